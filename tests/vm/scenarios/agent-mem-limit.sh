# vm: --mem 384 --agent cpu
# mem_limit with the agent attached.  A write completes once its page is
# staged, so a page the agent compressed but that does not fit under the
# limit stays staged: still readable, not lost.  Writing mem_limit again
# (here: lifting it) makes the module store those pages, and nothing stays
# staged.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)

# staged_steady: waits (up to 60 s) until backend_stat's staged count has
# not changed for one second, i.e. the agent answered and the module stored
# what it could, and leaves it in $last.
staged_steady() {
	last=-1
	same=0
	i=0
	while [ $same -lt 10 ]; do
		now=$(backend_field staged)
		if [ "$now" = "$last" ]; then same=$((same + 1)); else same=0; fi
		last=$now
		i=$((i + 1))
		[ $i -le 600 ] || fail "staged still changing after 60 s: $now"
		sleep 0.1
	done
}

readback() { dd if=$D bs=1M count=3 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }

dev_setup 0 64M
sysfs_set $S/mem_limit 2M

step "3 MiB of incompressible pages under a 2 MiB limit"
dd if=/dev/urandom of=/tmp/random.bin bs=1M count=3 2>/dev/null
dd if=/tmp/random.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "staged writes failed"
staged_steady
held=$last
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
note "mm_stat: $(cat $S/mm_stat)"
check_cmp "$held" -gt 0 "pages held staged at the limit"
check_cmp "$(stat_field $S/mm_stat mem_used_total)" -le $((3 * 1024 * 1024)) "mem_used_total stays near the limit"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
check_cmp "$(backend_field ring_completed)" -gt 0 "ring_completed"
check_eq "$(readback)" "$(md5 /tmp/random.bin)" "every page reads back, held ones from staging"

step "lifting mem_limit stores the held pages"
sysfs_set $S/mem_limit 0
ring_settle 0
check_eq "$(backend_field staged)" 0 "pages still staged"
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((3 * 1024 * 1024)) "orig_data_size"
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(readback)" "$(md5 /tmp/random.bin)" "every page reads back after the store"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
