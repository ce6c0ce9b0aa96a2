# vm: --mem 384 --agent cpu
# mem_limit with the agent attached.  A write completes once its page is
# staged, so a page the agent compressed but that does not fit under the
# limit stays staged: still readable, not lost.  Writing mem_limit again
# (here: lifting it) makes the module store those pages, and nothing stays
# staged.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)

readback() { dd if=$D bs=1M count=3 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }

dev_setup 0 64M
sysfs_set $S/mem_limit 2M

step "3 MiB of incompressible pages under a 2 MiB limit"
dd if=/dev/urandom of=/tmp/random.bin bs=1M count=3 2>/dev/null
dd if=/tmp/random.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "staged writes failed"
ring_steady 0
held=$RING_STAGED
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
note "mm_stat: $(cat $S/mm_stat)"
check_cmp "$held" -gt 0 "pages held staged at the limit"
check_cmp "$(stat_field $S/mm_stat mem_used_total)" -le $((2 * 1024 * 1024)) "mem_used_total stays within the limit"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
check_cmp "$(backend_field ring_completed_total)" -gt 0 "ring_completed_total"
check_eq "$(readback)" "$(md5 /tmp/random.bin)" "every page reads back, held ones from staging"

step "lifting mem_limit stores the held pages"
sysfs_set $S/mem_limit 0
ring_settle 0
check_eq "$(backend_field staged_pages)" 0 "pages still staged"
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((3 * 1024 * 1024)) "orig_data_size"
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(readback)" "$(md5 /tmp/random.bin)" "every page reads back after the store"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
