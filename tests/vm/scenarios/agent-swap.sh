# vm: --mem 384 --agent cpu --timeout 400
# Swap through the agent.  The agent serves the memory pressure it relieves,
# so it must never wait on reclaim: storing a completion that would need
# reclaim is left to the module's worker (ring_deferred_total) instead.  While a
# memory hog of 1.5 times the VM's memory swaps through the device, the
# agent's kernel stacks are sampled, and no sample may show it in reclaim.
# The hog verifies every byte, and no page is left staged.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)
ram_mb=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024))
hog_mb=$((ram_mb * 3 / 2))

dev_setup 0 512M
echo 0 >/proc/sys/vm/page-cluster
mkswap $D >/dev/null || fail "mkswap failed"
swapon $D || fail "swapon failed"
pid=$(agent_pid)
[ -n "$pid" ] && [ -d /proc/$pid ] || fail "no agent process"

step "memhog: $hog_mb MiB in a VM with $ram_mb MiB; the agent's stacks sampled"
memhog --mb $hog_mb --seed 31 >/tmp/memhog.log 2>&1 &
hog=$!
samples=0
in_reclaim=0
while kill -0 $hog 2>/dev/null; do
	for task in /proc/$pid/task/*; do
		stack=$(cat $task/stack 2>/dev/null) || continue
		samples=$((samples + 1))
		# Direct reclaim or compaction, which only a caller that may
		# reclaim (__GFP_DIRECT_RECLAIM) enters.
		case "$stack" in
		*try_to_free_pages* | *__alloc_pages_direct_compact*)
			in_reclaim=$((in_reclaim + 1))
			echo "$stack" >>/tmp/reclaim-stacks
			;;
		esac
	done
	sleep 0.1
done
wait $hog || {
	cat /tmp/memhog.log
	fail "memhog reported corrupted pages (or could not run)"
}
tail -n 3 /tmp/memhog.log

step "the agent never waited on reclaim, and every page was stored"
check_cmp $samples -ge 50 "stack samples of the agent"
[ $in_reclaim = 0 ] || head -n 20 /tmp/reclaim-stacks
check_eq $in_reclaim 0 "samples with the agent in reclaim"
ring_settle 0
check_cmp "$(backend_field ring_completed_total)" -gt 0 "pages completed by the agent"
check_eq "$(backend_field ring_rejected_total)" 0 "ring_rejected_total"
check_eq "$(backend_field ring_verify_failures_total)" 0 "ring_verify_failures_total"
note "deferred to the worker: $(backend_field ring_deferred_total)," \
	"timed out: $(backend_field ring_timeouts_total)," \
	"inline (ring full): $(backend_field ring_inline_fallbacks_total)"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
swapoff $D || fail "swapoff failed"
