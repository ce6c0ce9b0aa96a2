# vm: --mem 384 --agent none
# A hostile agent (progs/rogue-agent.c) attaches to /dev/ozram-ring and
# answers every page with a wrong completion: slot ids out of range, stale
# generations, impossible lengths, unknown encodings and flags, LZ4 that
# decodes to other bytes or not at all, same-filled answers that do
# not match the page, huge CQ tail jumps.  Then runs of one kind each:
# correct pages with unknown flag bits (all rejected), RAW answers whose
# output holds wrong bytes or none (all stored from the staged copy),
# correct LZ4 pages with the GPU flag (all counted as agent_gpu); last, a
# rogue that only feigns progress, whose pages are taken back after one
# time-out.  The kernel must survive (the harness fails the run on any
# oops or warning), reject and count them, and keep every byte written
# before and during the attack.
# A second open must fail with EBUSY, staging must stay read-only, read()
# and write() must fail with EINVAL, and a poll() asleep when the rogue
# detaches must wake with POLLHUP: the rogue checks them and exits 1
# otherwise.

S=$(sysdir 0)
D=$(dev 0)

readback() { dd if=$D bs=1M skip="$1" count="$2" iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }

dev_setup 0 64M
echo 200 >/sys/module/ozram/parameters/ring_timeout_ms

step "data written before the rogue attaches (in-kernel LZ4)"
pagegen --pages 2048 --seed 21 >/tmp/before.bin
dd if=/tmp/before.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"

step "the rogue attaches"
rogue-agent --seconds 15 --check-hup >/tmp/rogue.log 2>&1 &
rogue=$!
wait_attached "the rogue agent"
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"

step "data written and read while the rogue answers"
for i in 1 2 3 4; do
	pagegen --pages 1024 --seed $((30 + i)) >/tmp/during$i.bin
	seek=$((8 + 4 * (i - 1)))
	dd if=/tmp/during$i.bin of=$D bs=1M seek=$seek oflag=direct 2>/dev/null || fail "write $i failed"
	check_eq "$(readback $seek 4)" "$(md5 /tmp/during$i.bin)" "pages $i read back while staged or just stored"
done
# Overwrite some of the pages the rogue holds: its answers become stale.
dd if=/tmp/during1.bin of=$D bs=1M seek=8 count=2 oflag=direct 2>/dev/null || fail "overwrite failed"
check_eq "$(readback 0 8)" "$(md5 /tmp/before.bin)" "data written before the attack, during it"

step "the rogue finishes and checks its refusals"
wait $rogue || {
	cat /tmp/rogue.log
	fail "rogue-agent reported a failed check (second open, staging write, read/write, poll at the detach)"
}
cat /tmp/rogue.log
grep -q 'second open refused with EBUSY' /tmp/rogue.log || fail "no EBUSY on the second open"
grep -q 'writable staging mapping refused' /tmp/rogue.log || fail "writable staging not refused"
grep -q 'header and SQ tail restored' /tmp/rogue.log || fail "the next agent saw the old agent's header"
grep -q 'read() and write() refused with EINVAL' /tmp/rogue.log || fail "read() or write() was not refused"
grep -q 'woke with POLLHUP' /tmp/rogue.log || fail "a poll() asleep at the detach did not see POLLHUP"
grep -q 'cq tail jumps=[1-9]' /tmp/rogue.log || fail "the rogue never jumped the CQ tail"
check_eq "$(backend_field agent)" detached "agent state after the rogue closed the ring"
check_eq "$(backend_field ring_slots_used)" 0 "nothing left staged after the rogue closed the ring"

step "the kernel rejected and counted the garbage"
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(backend_field ring_submitted_total)" -gt 0 "ring_submitted_total"
check_cmp "$(backend_field ring_rejected_total)" -gt 0 "ring_rejected_total"
check_cmp "$(backend_field ring_verify_failures_total)" -gt 0 "ring_verify_failures_total (wrong LZ4, RAW, fill)"
check_cmp "$(backend_field ring_stale_total)" -gt 0 "ring_stale_total"
check_cmp "$(backend_field ring_agent_errors_total)" -gt 0 "ring_agent_errors_total (give-backs)"
check_cmp "$(( $(backend_field ring_timeouts_total) + $(backend_field ring_drained_total) ))" -gt 0 "pages taken back (timeouts + drained)"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"

step "every byte is intact"
sync
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(readback 0 8)" "$(md5 /tmp/before.bin)" "data written before the attack"
for i in 1 2 3 4; do
	check_eq "$(readback $((8 + 4 * (i - 1))) 4)" "$(md5 /tmp/during$i.bin)" "data written during the attack ($i)"
done

step "a second, short rogue run (a CQ tail jump in its first batch)"
rogue-agent --seconds 2 >/tmp/rogue2.log 2>&1 &
rogue=$!
wait_attached "the rogue agent"
dd if=/tmp/during2.bin of=$D bs=1M seek=24 oflag=direct 2>/dev/null || fail "write failed"
wait $rogue || fail "second rogue run failed: $(cat /tmp/rogue2.log)"
check_eq "$(readback 24 4)" "$(md5 /tmp/during2.bin)" "data written during the second attack"

# Runs the rogue for 2 s with one kind of answer while $1 is written at MiB $2.
rogue_kind_run() {
	rogue-agent --seconds 2 --no-jump --kind "$3" >/tmp/rogue-$3.log 2>&1 &
	rogue=$!
	wait_attached "the rogue agent"
	dd if="$1" of=$D bs=1M seek="$2" oflag=direct 2>/dev/null || fail "write failed"
	wait $rogue || fail "rogue run ($3) failed: $(cat /tmp/rogue-$3.log)"
	cat /tmp/rogue-$3.log
	grep -q "sent $3=[1-9]" /tmp/rogue-$3.log || fail "the rogue sent no $3 completion"
}

step "unknown completion flags are rejected, even on a correct page"
completed=$(backend_field ring_completed_total)
rejected=$(backend_field ring_rejected_total)
agent_cpu=$(backend_field agent_cpu_pages)
agent_gpu=$(backend_field agent_gpu_pages)
pagegen --pages 1024 --seed 41 >/tmp/flags.bin
rogue_kind_run /tmp/flags.bin 32 bad_flags
check_eq "$(backend_field ring_completed_total)" "$completed" "ring_completed_total (no flagged page accepted)"
check_cmp "$(backend_field ring_rejected_total)" -gt "$rejected" "ring_rejected_total"
check_eq "$(backend_field agent_cpu_pages)" "$agent_cpu" "agent_cpu"
check_eq "$(backend_field agent_gpu_pages)" "$agent_gpu" "agent_gpu"
check_eq "$(readback 32 4)" "$(md5 /tmp/flags.bin)" "data answered with unknown flags"

step "correct pages with a stale generation are refused"
completed=$(backend_field ring_completed_total)
stale=$(backend_field ring_stale_total)
huge=$(stat_field $S/mm_stat huge_pages)
pagegen --pages 1024 --seed 42 >/tmp/stale.bin
rogue_kind_run /tmp/stale.bin 36 stale_generation
sent=$(sed -n 's/^rogue-agent: sent stale_generation=//p' /tmp/rogue-stale_generation.log)
check_eq "$(backend_field ring_completed_total)" "$completed" "ring_completed_total (no stale answer accepted)"
check_cmp "$(( $(backend_field ring_stale_total) - stale ))" -ge "$sent" "ring_stale_total grew by every answer sent"
check_eq "$(backend_field agent_cpu_pages)" "$agent_cpu" "agent_cpu"
check_eq "$(readback 36 4)" "$(md5 /tmp/stale.bin)" "data answered with stale generations"
note "huge before $huge, after $(stat_field $S/mm_stat huge_pages): the kernel compressed these pages itself"

step "RAW answers with other bytes or none: the kernel stores its staged copy"
completed=$(backend_field ring_completed_total)
failures=$(backend_field ring_verify_failures_total)
# Random pages: the kernel would store them raw too.
pagegen --pages 1024 --kind random --seed 43 >/tmp/raw.bin
rogue_kind_run /tmp/raw.bin 44 wrong_raw
sent=$(sed -n 's/^rogue-agent: sent wrong_raw=//p' /tmp/rogue-wrong_raw.log)
check_cmp "$(( $(backend_field ring_completed_total) - completed ))" -ge "$sent" "ring_completed_total grew by every RAW answer"
check_eq "$(backend_field ring_verify_failures_total)" "$failures" "ring_verify_failures_total (RAW bytes are never read)"
check_eq "$(readback 44 4)" "$(md5 /tmp/raw.bin)" "data answered RAW with wrong bytes"

step "correct pages with the GPU flag are counted as agent_gpu"
completed=$(backend_field ring_completed_total)
# Period 7 (not one repeated 64-bit word, so the pages are staged): the
# rogue answers each with a correct LZ4 block.
yes ABCDEF | head -c 4194304 >/tmp/periodic.bin
rogue_kind_run /tmp/periodic.bin 40 honest_gpu
accepted=$(( $(backend_field ring_completed_total) - completed ))
check_cmp "$accepted" -gt 0 "pages accepted with the GPU flag"
check_eq "$(( $(backend_field agent_gpu_pages) - agent_gpu ))" "$accepted" "agent_gpu grew by every accepted page"
check_eq "$(backend_field agent_cpu_pages)" "$agent_cpu" "agent_cpu"
sync
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(readback 40 4)" "$(md5 /tmp/periodic.bin)" "data answered with the GPU flag"

step "an agent that only feigns progress is not waited for"
# The rogue takes no page and answers none: it writes completions that
# claim no slot and moves sq_head back and forth.  That is no progress, so
# the kernel takes its pages back after ring_timeout_ms (2 s), as from an
# agent that stopped; an agent that progresses is given 8 times that.
echo 2000 >/sys/module/ozram/parameters/ring_timeout_ms
timeouts=$(backend_field ring_timeouts_total)
rejected=$(backend_field ring_rejected_total)
stale=$(backend_field ring_stale_total)
rogue-agent --seconds 60 --feign-progress >/tmp/rogue-feign.log 2>&1 &
rogue=$!
wait_attached "the rogue agent"
pagegen --pages 256 --seed 46 >/tmp/feign.bin
dd if=/tmp/feign.bin of=$D bs=1M seek=48 oflag=direct 2>/dev/null || fail "write failed"
start=$(uptime_cs)
staged=$(backend_field ring_slots_used)
ring_settle
waited=$(($(uptime_cs) - start))
note "$staged pages held by the rogue, taken back ${waited}0 ms after the write"
check_cmp "$staged" -gt 0 "pages staged for the rogue"
check_cmp "$waited" -lt 1200 "hundredths of a second until they were taken back (12 s, under 8 time-outs)"
check_cmp "$(( $(backend_field ring_timeouts_total) - timeouts ))" -ge "$staged" "ring_timeouts_total grew by every page held"

step "completions that claim no slot do not reopen admission"
# Twice as many pages as the ring has slots (a quarter of pagegen's pages
# are same-filled, and staged nowhere): the ring fills and admission closes.
# Once they are taken back the ring is empty, and the rogue's completions,
# which claim nothing, are no evidence that it drains: only the probes (one
# page per 50 ms) may be staged, not the next write's pages.
slots=$(cat /sys/module/ozram/parameters/ring_slots)
pagegen --pages $((2 * slots)) --seed 47 >/tmp/feign-fill.bin
dd if=/tmp/feign-fill.bin of=$D bs=1M seek=50 oflag=direct 2>/dev/null || fail "write failed"
ring_settle
submitted=$(backend_field ring_submitted_total)
start=$(uptime_cs)
pagegen --pages 512 --seed 48 >/tmp/feign-after.bin
dd if=/tmp/feign-after.bin of=$D bs=1M seek=60 oflag=direct 2>/dev/null || fail "write failed"
elapsed=$(($(uptime_cs) - start))
offered=$(($(backend_field ring_submitted_total) - submitted))
note "$offered of 512 pages staged in ${elapsed}0 ms while the rogue feigned progress"
check_cmp "$offered" -le $((elapsed / 5 + 2)) "pages staged: the probes at most, one per 50 ms"
kill -TERM $rogue
wait $rogue || fail "the feigning rogue failed: $(cat /tmp/rogue-feign.log)"
cat /tmp/rogue-feign.log
grep -q 'feigned progress rounds=[1-9]' /tmp/rogue-feign.log || fail "the rogue feigned nothing"
check_cmp "$(backend_field ring_rejected_total)" -gt "$rejected" "ring_rejected_total (slots out of range)"
check_cmp "$(backend_field ring_stale_total)" -gt "$stale" "ring_stale_total (stale generations)"
check_eq "$(readback 48 1)" "$(md5 /tmp/feign.bin)" "data held by the feigning rogue"
ring_settle
check_eq "$(dd if=$D bs=1M skip=50 iflag=direct 2>/dev/null | head -c $((2 * slots * 4096)) | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/feign-fill.bin)" "data that filled the ring of the feigning rogue"
check_eq "$(readback 60 2)" "$(md5 /tmp/feign-after.bin)" "data written while admission was closed"
echo 200 >/sys/module/ozram/parameters/ring_timeout_ms
dev_reset 0
