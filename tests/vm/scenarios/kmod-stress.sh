# vm: --mem 384 --cpus 2
# Everything at once on one device: writers, readers, discards, netlink and
# sysfs readers, compaction, idle marking and hot add/remove of other devices.
# Afterwards the data is exact, the page counters add up, and the kernel
# logged no warning (the harness fails the run on one).

if [ "$DEV" != ozram ]; then
	note "SKIPPED: uses ozram's netlink family and backend_stat (DEV=$DEV)"
	exit 0
fi

S=$(sysdir 0)
D=$(dev 0)
SECONDS_TO_RUN=20

dev_setup 0 64M
# Region A (pages 0..2047): rewritten with the same data again and again.
# Region B (pages 4096..6143): overwritten and discarded in turns.
pagegen --pages 2048 --kind mixed --seed 21 >/tmp/a.bin
pagegen --pages 2048 --kind mixed --seed 22 >/tmp/b.bin
sum_a=$(md5 /tmp/a.bin)

stop_at=$(($(date +%s) + SECONDS_TO_RUN))
running() { [ "$(date +%s)" -lt $stop_at ]; }
# count NAME: one more round of load process NAME, for the summary.
count() { echo x >>/tmp/rounds.$1; }
load_failed() {
	echo "load process $1 failed: $2"
	exit 1
}

step "$SECONDS_TO_RUN s of concurrent load"
# The writers open the device only while a dd runs, so between two rounds
# nobody may hold it; hold it open here so that every reset below must fail.
exec 9<$D
(while running; do
	dd if=/tmp/a.bin of=$D bs=64k oflag=direct 2>/dev/null || load_failed writer-a "dd"
	count writer-a
done) &
w1=$!
(while running; do
	dd if=/tmp/b.bin of=$D bs=4096 seek=4096 oflag=direct 2>/dev/null || load_failed writer-b "dd"
	blkdiscard -o $((4096 * 4096)) -l $((1024 * 4096)) $D || load_failed writer-b "blkdiscard"
	count writer-b
done) &
w2=$!
(while running; do
	dd if=$D of=/dev/null bs=128k iflag=direct 2>/dev/null || load_failed reader "direct dd"
	dd if=$D of=/dev/null bs=4096 count=2048 2>/dev/null || load_failed reader "buffered dd"
	count reader
done) &
r1=$!
(while running; do
	ozram-genl-dump stats 0 >/dev/null || load_failed control "netlink stats 0"
	ozram-genl-dump stats >/dev/null || load_failed control "netlink stats"
	ozram-genl-dump devices >/dev/null || load_failed control "netlink devices"
	cat $S/mm_stat $S/io_stat $S/debug_stat $S/backend_stat >/dev/null ||
		load_failed control "stat files"
	ozram-genl-dump compact 0 >/dev/null || load_failed control "netlink compact"
	sysfs-write $S/compact 1 >/dev/null || load_failed control "compact"
	sysfs-write $S/idle all >/dev/null || load_failed control "idle"
	# A reset must be refused while the device is open (fd 9 above).
	r=$(sysfs-write $S/reset 1 || true)
	[ "$r" = EBUSY ] || load_failed control "reset of an open device gave $r"
	count control
done) &
m1=$!
(while running; do
	id=$(cat $CONTROL/hot_add) || load_failed hotplug "hot_add"
	sysfs-write "$(sysdir $id)/disksize" 4M >/dev/null || load_failed hotplug "disksize of $id"
	dd if=/tmp/b.bin of="$(dev $id)" bs=4096 count=256 oflag=direct 2>/dev/null ||
		load_failed hotplug "dd to $id"
	r=$(sysfs-write $CONTROL/hot_remove $id || true)
	[ "$r" = OK ] || load_failed hotplug "hot_remove $id gave $r"
	count hotplug
done) &
h1=$!

for p in $w1 $w2 $r1 $m1 $h1; do
	wait $p || fail "a load process (pid $p) failed"
done
exec 9<&-
note "all load processes finished cleanly"
for name in writer-a writer-b reader control hotplug; do
	check_cmp "$(wc -l </tmp/rounds.$name)" -ge 2 "rounds of $name"
done

step "the data is exact and the counters add up"
check_eq "$(dd if=$D bs=4096 count=2048 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$sum_a" "region A"
# Region B ends in the discard state: first 1024 pages zero, then B's tail.
check_eq "$(dd if=$D bs=4096 skip=4096 count=1024 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if=/dev/zero bs=4096 count=1024 2>/dev/null | md5sum | cut -d' ' -f1)" "discarded part of region B"
check_eq "$(dd if=$D bs=4096 skip=5120 count=1024 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if=/tmp/b.bin bs=4096 skip=1024 count=1024 2>/dev/null | md5sum | cut -d' ' -f1)" "kept part of region B"
stored=$(($(stat_field $S/mm_stat orig_data_size) / 4096))
# Every way a page is stored: compressed by each path, staged and parked
# (backend_stat's gauges of pages), same-filled and raw (mm_stat's).
paths=$(awk -F': ' '$1 ~ /^(kernel|agent_cpu|agent_gpu|staged|parked)_pages$/ { s += $2 } END { print s }' $S/backend_stat)
paths=$((paths + $(stat_field $S/mm_stat same_pages) + $(stat_field $S/mm_stat huge_pages)))
check_eq "$paths" "$stored" "the ways pages are stored add up to the pages stored"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
check_eq "$(ozram-genl-dump devices | grep -c '^id=')" 1 "hot-added devices all removed"
dev_reset 0
check_eq "$(stat_field $S/mm_stat mem_used_total)" 0 "no memory left after reset"
