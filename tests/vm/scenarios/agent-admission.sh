# vm: --mem 512 --agent cpu --timeout 600
# Admission: while the agent does not drain the ring (SIGSTOP), written pages
# are not offered to it: they are parked (see agent-park.sh) or compressed
# in the kernel at once (ring_admission_inline_total), without staging attempts:
# the pages staged and the attempts that find the ring full (ozram_fallback
# events) number only what fills the ring and the probes (one per 50 ms).
# After SIGCONT the agent first answers the pages it held, which were taken
# back meanwhile: stale answers, no evidence that it drains.  Once it has,
# it completes the next probe, admission opens again and pages are staged
# at more than the probes' rate.  Every byte reads back.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)
PAGES=8192 # 32 MiB per region
MB=$((PAGES / 256))
cap=$(cat /sys/module/ozram/parameters/ring_slots)

dev_setup 0 128M
echo 300 >/sys/module/ozram/parameters/ring_timeout_ms
for seed in 1 2 3; do
	pagegen --pages $PAGES --seed $((20 + seed)) --kind text >/tmp/r$seed.bin
done

# counters: "submitted fallbacks admission parked agent_cpu kernel" now
counters() {
	echo "$(backend_field ring_submitted_total) $(backend_field ring_inline_fallbacks_total)" \
		"$(backend_field ring_admission_inline_total) $(backend_field pages_parked_total)" \
		"$(backend_field agent_cpu_pages) $(backend_field kernel_pages)"
}
# Staging attempts that find the ring full fire ozram_fallback, whether the
# page is then parked or compressed.
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T || fail "cannot mount tracefs"
# write_region N: writes /tmp/rN.bin to region N, leaves the seconds it took
# (rounded up) in $secs.
write_region() {
	t0=$(uptime_cs)
	dd if=/tmp/r$1.bin of=$D bs=1M seek=$(($1 * MB)) oflag=direct 2>/dev/null ||
		fail "write of region $1 failed"
	secs=$((($(uptime_cs) - t0) / 100 + 1))
}

step "agent running: pages go through the ring"
set -- $(counters)
write_region 1
ring_settle 0
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(($(backend_field ring_submitted_total) - $1))" -gt 0 "pages staged with the agent running"

step "agent stopped: no staging attempts"
ring_settle 0
kill -STOP "$(agent_pid)"
set -- $(counters)
echo >$T/trace
echo 1 >$T/events/ozram/ozram_fallback/enable
write_region 2
echo 0 >$T/events/ozram/ozram_fallback/enable
sub=$(($(backend_field ring_submitted_total) - $1))
fb=$(($(backend_field ring_inline_fallbacks_total) - $2))
adm=$(($(backend_field ring_admission_inline_total) - $3))
parked=$(($(backend_field pages_parked_total) - $4))
full=$(grep -c 'ozram_fallback: dev=0 index=[0-9]* reason=ring_full' $T/trace || true)
probes=$((secs * 20 + 1))
# Pages kept from the ring: compressed at once by admission, or parked
# without a staging attempt (those parked after one found the ring full).
kept=$((adm + parked - (full - fb)))
note "in $secs s: $sub staged, $full staging attempts found the ring full ($fb of those pages compressed, the rest parked), $kept kept from the ring by admission ($adm compressed, the rest parked), ring of $cap slots, at most $probes probes"
note "while stopped: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$kept" -ge $((PAGES - 2 * cap - probes)) "pages kept from the ring by admission"
# Without admission every page past the full ring tries the ring first.
check_cmp "$((sub + full))" -le $((2 * cap + probes)) "staging attempts while the agent is stopped"

step "agent continued: staging resumes"
kill -CONT "$(agent_pid)"
ring_settle 0
wait_until "the agent did not answer what it held in 10 s" \
	'[ $(($(backend_field ring_completed_total) + $(backend_field ring_stale_total))) -ge $(backend_field ring_submitted_total) ]'
set -- $(counters)
write_region 3
sub=$(($(backend_field ring_submitted_total) - $1))
note "in $secs s: $sub staged, $(($(backend_field ring_admission_inline_total) - $3)) inline by admission, $(($(backend_field pages_parked_total) - $4)) parked"
check_cmp "$sub" -ge $((cap / 2)) "pages staged after SIGCONT"
check_cmp "$sub" -gt $((secs * 20 + 1)) "pages staged beyond the probes' rate"
ring_settle 0
note "region 3: $(($(backend_field agent_cpu_pages) - $5)) pages compressed by the agent, $(($(backend_field kernel_pages) - $6)) by the kernel"

step "every byte reads back"
for seed in 1 2 3; do
	check_eq "$(dd if=$D bs=1M skip=$((seed * MB)) count=$MB iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5 /tmp/r$seed.bin)" "region $seed, right after the writes"
done
ring_settle 0
for seed in 1 2 3; do
	check_eq "$(dd if=$D bs=1M skip=$((seed * MB)) count=$MB iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5 /tmp/r$seed.bin)" "region $seed, once the agent has finished"
done
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_eq "$(backend_field ring_rejected_total)" 0 "ring_rejected_total"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
echo 1000 >/sys/module/ozram/parameters/ring_timeout_ms
dev_reset 0
