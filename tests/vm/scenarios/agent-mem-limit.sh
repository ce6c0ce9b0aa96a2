# vm: --mem 384 --agent cpu
# mem_limit with the agent attached.  A write completes once its page is
# staged, so a page the agent compressed but that does not fit under the
# limit stays staged: still readable, not lost.  Writing mem_limit again
# (here: lifting it) makes the module store those pages at once, and
# memory freed on the device lets the module's own retries store them, so
# that nothing stays staged.

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

step "lifting mem_limit stores the held pages at once"
# The module tries held pages again on a clock: a second after the first
# is held, two seconds later, then four, eight...; each try is refused at
# the limit page by page, one refusal each, as was each page's first store.
# Once the second try has ended, the next is more than three seconds away:
# the write of mem_limit alone must have the pages stored before it.
refused() { backend_field mem_limit_refusals_total; }
centis() { awk '{ print int($1 * 100) }' /proc/uptime; }
i=0
while [ "$(refused)" -lt $((3 * held)) ]; do
	i=$((i + 1))
	[ $i -le 200 ] || fail "the held pages were not tried twice within 10 s: $(refused) refusals"
	sleep 0.05
done
# The try ends when the count stops moving.
r=$(refused)
sleep 0.2
while [ "$(refused)" != "$r" ]; do
	r=$(refused)
	sleep 0.2
done
t=$(centis)
sysfs_set $S/mem_limit 0
while [ "$(backend_field staged_pages)" != 0 ]; do
	[ $(($(centis) - t)) -le 200 ] ||
		fail "pages still staged 2 s after mem_limit was lifted: $(backend_field staged_pages)"
	sleep 0.05
done
note "stored within $((($(centis) - t) * 10)) ms of the write"
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((3 * 1024 * 1024)) "orig_data_size"
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(readback)" "$(md5 /tmp/random.bin)" "every page reads back after the store"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"

step "memory freed under the limit stores the held pages, mem_limit unwritten"
# 384 random pages fit under 2 MiB (one zsmalloc page each); of the next
# 384, about 128 fit and the rest are held.  Discarding the first 384 makes
# room, and the module stores the held pages by itself, within seconds.
dev_reset 0
dev_setup 0 64M
sysfs_set $S/mem_limit 2M
pagegen --pages 768 --kind random --seed 13 >/tmp/freed.bin
dd if=/tmp/freed.bin of=$D bs=4096 count=384 oflag=direct 2>/dev/null || fail "the first 384 pages"
ring_settle 0
dd if=/tmp/freed.bin of=$D bs=4096 skip=384 seek=384 count=384 oflag=direct 2>/dev/null ||
	fail "the next 384 pages"
ring_steady 0
check_cmp "$RING_STAGED" -gt 0 "pages held staged at the limit"
blkdiscard -o 0 -l $((384 * 4096)) $D || fail "blkdiscard failed"
ring_settle 0
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((384 * 4096)) "orig_data_size: the second 384 pages, all stored"
check_cmp "$(stat_field $S/mm_stat mem_used_total)" -le $((2 * 1024 * 1024)) "mem_used_total within the limit"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(dd if=$D bs=4096 skip=384 count=384 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if=/tmp/freed.bin bs=4096 skip=384 count=384 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"the second 384 pages read back"
check_eq "$(dd if=$D bs=4096 count=384 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if=/dev/zero bs=4096 count=384 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"the discarded 384 pages read as zeroes"

step "four writers at once under a 2 MiB limit: at rest, none over it"
# Writers park pages while the doorbell stores the agent's results: each
# takes memory and then checks the limit, so that two taking the last page
# at once cannot both keep it.
dev_reset 0
dev_setup 0 64M
sysfs_set $S/mem_limit 2M
pagegen --pages 4096 --kind random --seed 11 >/tmp/writers.bin
for w in 0 1 2 3; do
	dd if=/tmp/writers.bin of=$D bs=4096 skip=$((w * 1024)) seek=$((w * 1024)) count=1024 \
		oflag=direct 2>/tmp/writer$w.err &
done
wait || true
ring_steady 0
note "mm_stat: $(cat $S/mm_stat)"
check_cmp "$(stat_field $S/mm_stat mem_used_total)" -le $((2 * 1024 * 1024)) "mem_used_total at rest"
check_cmp "$(stat_field $S/io_stat failed_writes)" -ge 1 "failed_writes"
# Each writer stopped at its first failed write: what it wrote reads back,
# held pages from staging, and the rest of its region is still zeroes.
for w in 0 1 2 3; do
	n=$(sed -n 's/^\([0-9]*\)+[0-9]* records out$/\1/p' /tmp/writer$w.err)
	check_cmp "${n:-missing}" -ge 0 "pages writer $w wrote"
	check_eq "$(dd if=$D bs=4096 skip=$((w * 1024)) count=$n iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(dd if=/tmp/writers.bin bs=4096 skip=$((w * 1024)) count=$n 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"the $n pages writer $w wrote"
	rest=$((1024 - n))
	check_eq "$(dd if=$D bs=4096 skip=$((w * 1024 + n)) count=$rest iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(dd if=/dev/zero bs=4096 count=$rest 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"the $rest pages past writer $w's first failure"
done
sysfs_set $S/mem_limit 0
ring_settle 0
check_eq "$(backend_field staged_pages)" 0 "pages still staged after lifting the limit"

step "a write refused at the limit is one refusal"
# The agent stopped: pages fill the ring, then are parked up to the limit,
# then their writer compresses one, and the store is refused.  Parking
# refused at the limit is not a refusal: the page is still written.
dev_reset 0
dev_setup 0 64M
echo 30000 >/sys/module/ozram/parameters/ring_timeout_ms
kill -STOP "$(agent_pid)"
sysfs_set $S/mem_limit 2M
r0=$(backend_field mem_limit_refusals_total)
pagegen --pages 4096 --kind random --seed 12 >/tmp/refused.bin
if dd if=/tmp/refused.bin of=$D bs=4096 oflag=direct 2>/dev/null; then
	fail "16 MiB of random pages written under a 2 MiB limit"
fi
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(backend_field parked_pages)" -gt 0 "pages parked before the refusal"
check_eq "$(stat_field $S/io_stat failed_writes)" 1 "failed_writes"
check_eq "$(($(backend_field mem_limit_refusals_total) - r0))" 1 "refusals for the one failed write"
kill -CONT "$(agent_pid)"
echo 1000 >/sys/module/ozram/parameters/ring_timeout_ms
sysfs_set $S/mem_limit 0
ring_settle 0
check_eq "$(backend_field staged_pages)" 0 "pages still staged after lifting the limit"
