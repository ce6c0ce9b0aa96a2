# vm: --mem 512 --agent cpu --timeout 600
# Parked pages: a page written while the agent cannot take it (ring full,
# admission closed) is held raw and staged later, or compressed by the
# kernel when the agent stalls or goes.  With the agent stopped (SIGSTOP)
# written pages are parked up to park_limit_mb (10 % of RAM by default),
# the rest compressed by their writer; every byte reads back while parked,
# after an overwrite and a discard of parked pages, after SIGCONT (the
# agent compresses them), after ring_timeout_ms of a stopped agent (the
# kernel compresses them), after a kill -9, and across a reset.  A page
# marked idle while parked keeps its mark once stored.  Reclaim never
# parks: a swapping memory hog leaves parked_total unchanged.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)
PAGES=4096 # 16 MiB per region
MB=$((PAGES / 256))
ram_pages=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 4))
limit=$((ram_pages / 10))

check_eq "$(cat /sys/module/ozram/parameters/park_limit_mb)" -1 "park_limit_mb default"
dev_setup 0 256M
for r in 0 1 2 3 4 5 6; do
	pagegen --pages $PAGES --seed $((40 + r)) --kind text >/tmp/r$r.bin
done
pagegen --pages $((PAGES / 2)) --seed 99 --kind text >/tmp/over.bin

# write_region N [FILE]: FILE (default /tmp/rN.bin) to region N.
write_region() {
	dd if=${2:-/tmp/r$1.bin} of=$D bs=1M seek=$(($1 * MB)) oflag=direct 2>/dev/null ||
		fail "write of region $1 failed"
}
# region_md5 N: the md5 of region N as the device reads it.
region_md5() {
	dd if=$D bs=1M skip=$(($1 * MB)) count=$MB iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1
}
check_region() { check_eq "$(region_md5 $1)" "$(md5 ${3:-/tmp/r$1.bin})" "region $1, $2"; }
# idle_in N: the pages of region N marked idle in block_state.
idle_in() {
	awk -v a=$(($1 * PAGES)) -v b=$((($1 + 1) * PAGES)) \
		'$1 >= a && $1 < b && $3 ~ /i$/ { n++ } END { print n + 0 }' \
		/sys/kernel/debug/ozram/ozram0/block_state
}

step "agent stopped: written pages are parked, and read back while parked"
echo 30000 >/sys/module/ozram/parameters/ring_timeout_ms
kill -STOP "$(agent_pid)"
t0=$(backend_field pages_parked_total)
write_region 0
write_region 1
note "while stopped: $(tr '\n' ' ' <$S/backend_stat)"
held=$(backend_field parked_pages)
check_cmp "$held" -ge $((PAGES * 3 / 2)) "pages parked while the agent is stopped"
check_eq "$(($(backend_field pages_parked_total) - t0))" "$held" "parked_total counts them"
check_region 0 "while parked"
check_region 1 "while parked"
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((2 * PAGES * 4096)) "orig_data_size"

step "a discard and an overwrite of parked pages"
# Region 1 (all parked: the ring was full) discarded, then the first half
# of region 0 rewritten (parked again).
blkdiscard -o $((MB * 1048576)) -l $((MB * 1048576)) $D
check_cmp "$(backend_field parked_pages)" -le $((held - PAGES + 64)) "discarded pages are no longer parked"
write_region 0 /tmp/over.bin
{ cat /tmp/over.bin; tail -c $((PAGES / 2 * 4096)) /tmp/r0.bin; } >/tmp/r0new.bin
check_region 0 "rewritten in part while parked" /tmp/r0new.bin
check_eq "$(region_md5 1)" "$(dd if=/dev/zero bs=1M count=$MB 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"region 1 reads as zeroes once discarded"
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((PAGES * 4096)) "orig_data_size after the discard"

step "SIGCONT: the agent compresses the parked pages"
# Marked idle while staged or parked: storing them is no access.
sysfs_set $S/idle all
a0=$(backend_field agent_cpu_pages)
kill -CONT "$(agent_pid)"
ring_settle 0
note "after SIGCONT: $(tr '\n' ' ' <$S/backend_stat)"
check_eq "$(backend_field parked_pages)" 0 "parked pages left"
check_eq "$(idle_in 0)" $PAGES "pages of region 0 still idle once stored"
check_cmp "$(($(backend_field agent_cpu_pages) - a0))" -ge $((PAGES / 2)) "pages the agent compressed"
check_region 0 "compressed by the agent" /tmp/r0new.bin
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((PAGES * 4096)) "orig_data_size once stored"

step "agent stalled past ring_timeout_ms: the kernel compresses the parked pages"
echo 300 >/sys/module/ozram/parameters/ring_timeout_ms
kill -STOP "$(agent_pid)"
k0=$(backend_field kernel_pages)
write_region 2
sysfs_set $S/idle all
note "while stopped: $(tr '\n' ' ' <$S/backend_stat)"
i=0
while [ "$(backend_field parked_pages)" != 0 ]; do
	i=$((i + 1))
	[ $i -le 300 ] || fail "parked pages still held 30 s into a stall: $(backend_field parked_pages)"
	sleep 0.1
done
check_cmp "$(($(backend_field kernel_pages) - k0))" -ge $((PAGES / 2)) "pages the kernel compressed"
check_eq "$(idle_in 2)" $PAGES "pages of region 2 still idle once the kernel stored them"
check_region 2 "compressed by the kernel during the stall"
kill -CONT "$(agent_pid)"
ring_settle 0

step "ring_timeout_ms lowered with pages in flight: they are taken back in the new time"
echo 600000 >/sys/module/ozram/parameters/ring_timeout_ms
kill -STOP "$(agent_pid)"
sleep 1 # the time-out worker of the last step, if still queued, has run
t0=$(backend_field ring_timeouts_total)
dd if=/tmp/r3.bin of=$D bs=4096 count=64 seek=$((3 * PAGES)) oflag=direct 2>/dev/null ||
	fail "write of 64 pages failed"
# Admission, closed by the last stall, stages a probe and parks the rest.
staged=$(backend_field staged_pages)
check_cmp "$staged" -gt 0 "pages staged, the time-out worker queued for 600 s"
echo 300 >/sys/module/ozram/parameters/ring_timeout_ms
i=0
while [ "$(backend_field staged_pages)" != 0 ] || [ "$(backend_field parked_pages)" != 0 ]; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "pages still staged 10 s after ring_timeout_ms became 300: $(backend_field staged_pages)"
	sleep 0.1
done
check_cmp "$(($(backend_field ring_timeouts_total) - t0))" -ge "$staged" "pages taken back by the time-out"
check_eq "$(dd if=$D bs=4096 count=64 skip=$((3 * PAGES)) iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(head -c $((64 * 4096)) /tmp/r3.bin | md5sum | cut -d' ' -f1)" "the 64 pages, stored by the kernel"
kill -CONT "$(agent_pid)"
ring_settle 0

step "the parking limit: at most park_limit_mb of pages are held"
# Regions 3 to 6 hold more than the limit beyond the ring's 1024 slots.
[ $((4 * PAGES - 1024)) -gt $limit ] || fail "4 regions do not reach the limit of $limit pages"
echo 30000 >/sys/module/ozram/parameters/ring_timeout_ms
kill -STOP "$(agent_pid)"
k0=$(backend_field kernel_pages)
for r in 3 4 5 6; do write_region $r; done
peak=$(backend_field parked_pages)
note "limit $limit pages, parked $peak: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$peak" -le "$limit" "parked pages within the limit"
check_cmp "$peak" -ge $((limit - 64)) "parked pages up to the limit"
check_cmp "$(($(backend_field kernel_pages) - k0))" -gt 0 "pages past the limit compressed by their writer"

step "kill -9 of the agent with pages parked: the kernel compresses them"
kill -KILL "$(agent_pid)"
wait_detached
rm -f $OZRAMD_PIDFILE
ring_settle 0
check_eq "$(backend_field parked_pages)" 0 "parked pages left after the kill"
for r in 3 4 5 6; do check_region $r "after the kill"; done
check_region 0 "after the kill" /tmp/r0new.bin
check_region 2 "after the kill"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
start_agent

step "reset with pages parked"
kill -STOP "$(agent_pid)"
write_region 4
check_cmp "$(backend_field parked_pages)" -gt 0 "pages parked before the reset"
dev_reset 0
dev_setup 0 256M
check_eq "$(backend_field parked_pages)" 0 "parked after the reset"
check_eq "$(region_md5 4)" "$(dd if=/dev/zero bs=1M count=$MB 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"a reset device reads as zeroes"
kill -CONT "$(agent_pid)"
write_region 5
ring_settle 0
check_region 5 "written after the reset"

step "reclaim never parks: swap through the device"
rm -f /tmp/r*.bin /tmp/over.bin # tmpfs: memory the hog needs
dev_reset 0
dev_setup 0 512M
echo 0 >/proc/sys/vm/page-cluster
mkswap $D >/dev/null || fail "mkswap failed"
swapon $D || fail "swapon failed"
t0=$(backend_field pages_parked_total)
s0=$(backend_field ring_submitted_total)
# 96 MiB more than is available: enough swap for the check (thousands of
# pages through the ring); a larger hog only adds emulated time.
hog_mb=$(($(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) / 1024 + 96))
memhog --mb $hog_mb --seed 7 >/tmp/memhog.log 2>&1 || {
	cat /tmp/memhog.log
	fail "memhog reported corrupted pages (or could not run)"
}
note "after the hog: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(($(backend_field ring_submitted_total) - s0))" -gt 0 "swap pages through the ring"
check_eq "$(($(backend_field pages_parked_total) - t0))" 0 "swap pages parked"
swapoff $D
echo 1000 >/sys/module/ozram/parameters/ring_timeout_ms
dev_reset 0
