# vm: --mem 512 --timeout 900
# zram 6.1's writeback, errno for errno: backing_dev (a block device, set
# before disksize), writeback (idle, huge, huge_idle, page_index=N),
# writeback_limit and writeback_limit_enable, bd_stat.  The backing device
# is a loop device on a file in the guest's tmpfs, or a device-mapper
# device over it that can be switched to the error target.  Every byte
# reads back after writeback, after overwrites and discards, after a
# failed write, and in an ext4 file system mounted again after writeback;
# reset releases the backing device.  ozram writes a block per page here,
# as zram does (compressed_writeback=0), but for the slow-device and ext4
# steps, which it runs in both forms.  With the agent
# (--agent cpu), pages staged for it are never written back.  On ozram,
# pages being written back to a slow device (dm-delay) read meanwhile.
# Runs unchanged on stock zram (DEV=zram), except for ozram's own counter
# and the slow device.

S=$(sysdir 0)
D=$(dev 0)
STATE=/sys/kernel/debug/$DEV/${DEV}0/block_state
TEXT=4096	# text pages: compressed
RAND=512	# random pages: stored raw (huge)
ZERO=256	# zero pages: same-filled, never written back
TOTAL=$((TEXT + RAND + ZERO))

load_module loop
load_module dm_mod
load_module dm_delay
# No udev in the guest: dmsetup makes its nodes itself and waits for none.
export DM_DISABLE_UDEV=1

bd() { awk -v i="$1" '{ print $i }' $S/bd_stat; }
# dm_create NAME TABLE: a device-mapper device; prints its /dev/dm-N.
dm_create() {
	dmsetup create "$1" --table "$2" || fail "dmsetup create $1 failed"
	echo "/dev/dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')"
}
wb_pages() { awk '$3 ~ /w/ { n++ } END { print n + 0 }' $STATE; }

# The page mix, laid out text, random, zero, in /tmp/data.bin.
pagegen --pages $TEXT --kind text --seed 131 >/tmp/data.bin
pagegen --pages $RAND --kind random --seed 132 >>/tmp/data.bin
pagegen --pages $ZERO --kind zero >>/tmp/data.bin
cp /tmp/data.bin /tmp/orig.bin

# fill: writes the mix to device 0 and waits for the agent to store it.
fill() {
	dd if=/tmp/data.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
	ring_settle 0
}

# verify WHAT: device 0 holds /tmp/data.bin, byte for byte.
verify() {
	dd if=$D of=/tmp/back.bin bs=1M count=$((TOTAL / 256)) iflag=direct 2>/dev/null ||
		fail "$1: read failed"
	check_eq "$(md5 /tmp/back.bin)" "$(md5 /tmp/data.bin)" "$1: md5 of the data read back"
	rm -f /tmp/back.bin
}

# slow_pass NAME: device 0 filled over the device-mapper device NAME,
# whose writes land 10 s late (reads go straight through), every page
# idle, and "writeback idle" running in the background ($wb), a second in.
slow_pass() {
	M=$(dm_create "$1" "0 $sectors delay $L 0 0 $L 0 10000")
	sysfs_set $S/backing_dev "$M"
	dev_setup 0 64M
	fill
	sysfs_set $S/idle all
	sysfs-write $S/writeback idle >/tmp/wb.out 2>&1 &
	wb=$!
	sleep 1
}

# zram 6.1's layout, a block per page, throughout: ozram's default packs
# compressed pages instead, which writeback-compressed.sh checks.
if [ "$DEV" = ozram ]; then
	sysfs_set $S/compressed_writeback 0
fi

dd if=/dev/zero of=/tmp/backing.img bs=1M count=40 2>/dev/null
L=$(losetup -f) || fail "no free loop device"
losetup $L /tmp/backing.img || fail "losetup $L failed"

step "backing_dev before initialisation: zram's errnos"
check_eq "$(cat $S/backing_dev)" none "backing_dev when none is set"
expect_errno ENOENT sysfs-write $S/backing_dev /dev/nonexistent
expect_errno ENOTBLK sysfs-write $S/backing_dev /tmp/data.bin
expect_errno EINVAL sysfs-write $S/writeback idle
sysfs_set $S/backing_dev "$L"
# zram claims the device again, as the holder of its claim: no EBUSY.
expect_errno OK sysfs-write $S/backing_dev "$L"
check_eq "$(cat $S/backing_dev)" "$L" "backing_dev after setting it"
check_eq "$(cat $S/writeback_limit_enable)" 0 "writeback_limit_enable by default"
check_eq "$(cat $S/writeback_limit)" 0 "writeback_limit by default"
expect_errno EINVAL sysfs-write $S/writeback_limit x
expect_errno EINVAL sysfs-write $S/writeback_limit_enable -1

step "after disksize the backing device is fixed"
dev_setup 0 64M
expect_errno EBUSY sysfs-write $S/backing_dev "$L"
check_eq "$(cat $S/bd_stat | tr -s ' ')" " 0 0 0" "bd_stat before any writeback"
fill
expect_errno EINVAL sysfs-write $S/writeback bogus
expect_errno EINVAL sysfs-write $S/writeback "page_index=16384"
expect_errno EINVAL sysfs-write $S/writeback "page_index=-1"
expect_errno EINVAL sysfs-write $S/writeback "page_index=x"
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 1)" 0 "blocks after writing back idle pages with none idle"

step "idle pages go to the backing device, same-filled ones stay"
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 1)" $((TEXT + RAND)) "bd_count after writeback idle"
check_eq "$(bd 3)" $((TEXT + RAND)) "bd_writes after writeback idle"
check_eq "$(wb_pages)" $((TEXT + RAND)) "pages marked w in block_state"
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((TOTAL * 4096)) "orig_data_size"
check_eq "$(stat_field $S/mm_stat compr_data_size)" 0 "compr_data_size"
check_eq "$(stat_field $S/mm_stat huge_pages)" 0 "huge_pages"
check_eq "$(stat_field $S/mm_stat same_pages)" $ZERO "same_pages"
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 3)" $((TEXT + RAND)) "bd_writes after a second pass"
verify "after writeback"
check_eq "$(bd 2)" $((TEXT + RAND)) "bd_reads after reading every page once"

step "overwrites and discards free their blocks"
pagegen --pages 8 --kind text --seed 133 >/tmp/new.bin
dd if=/tmp/new.bin of=$D bs=4096 seek=100 oflag=direct 2>/dev/null || fail "overwrite failed"
dd if=/tmp/new.bin of=/tmp/data.bin bs=4096 seek=100 conv=notrunc 2>/dev/null
blkdiscard -o $((200 * 4096)) -l $((16 * 4096)) $D || fail "discard failed"
dd if=/dev/zero of=/tmp/data.bin bs=4096 seek=200 count=16 conv=notrunc 2>/dev/null
ring_settle 0
check_eq "$(bd 1)" $((TEXT + RAND - 24)) "bd_count after 8 overwrites and 16 discards"
verify "after overwrites and discards"

step "page_index= writes back one page"
expect_errno OK sysfs-write $S/writeback "page_index=100"
check_eq "$(bd 1)" $((TEXT + RAND - 23)) "bd_count after page_index=100"
expect_errno OK sysfs-write $S/writeback "page_index=100"
check_eq "$(bd 1)" $((TEXT + RAND - 23)) "bd_count after page_index=100 again"
verify "after page_index="

step "pages rewritten while a pass writes them back keep the new content"
dev_reset 0
sysfs_set $S/backing_dev "$L"
dev_setup 0 64M
cp /tmp/orig.bin /tmp/data.bin
fill
sysfs_set $S/idle all
pagegen --pages 1024 --kind text --seed 134 >/tmp/new.bin
sysfs-write $S/writeback idle >/tmp/wb.out 2>&1 &
wb=$!
dd if=/tmp/new.bin of=$D bs=4096 oflag=direct 2>/dev/null || fail "rewrite failed"
dd if=$D of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null || fail "read during writeback failed"
wait $wb
check_eq "$(tail -n 1 /tmp/wb.out)" OK "writeback racing the rewrite"
dd if=/tmp/new.bin of=/tmp/data.bin bs=4096 conv=notrunc 2>/dev/null
ring_settle 0
verify "after rewrites racing writeback"
# The rewritten pages are in memory or written back, never both: the
# blocks are those of the pages marked w.
check_eq "$(bd 1)" "$(wb_pages)" "bd_count against the pages marked w"

step "reset with pages on the backing device releases it"
dev_reset 0
check_eq "$(cat $S/backing_dev)" none "backing_dev after reset"
check_eq "$(cat $S/bd_stat | tr -s ' ')" " 0 0 0" "bd_stat after reset"
losetup -d $L || fail "the loop device is still held after reset"
losetup $L /tmp/backing.img || fail "losetup $L failed"
cp /tmp/orig.bin /tmp/data.bin

step "writeback_limit: the pass stops with EIO when it is spent"
sysfs_set $S/backing_dev "$L"
dev_setup 0 64M
fill
sysfs_set $S/idle all
sysfs_set $S/writeback_limit_enable 1
check_eq "$(cat $S/writeback_limit)" 0 "writeback_limit"
expect_errno EIO sysfs-write $S/writeback idle
check_eq "$(bd 1)" 0 "bd_count with a limit of 0"
sysfs_set $S/writeback_limit 100
expect_errno EIO sysfs-write $S/writeback idle
check_eq "$(bd 1)" 100 "bd_count with a limit of 100"
check_eq "$(cat $S/writeback_limit)" 0 "writeback_limit once spent"
sysfs_set $S/writeback_limit 1000000
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 1)" $((TEXT + RAND)) "bd_count with a limit to spare"
check_eq "$(cat $S/writeback_limit)" $((1000000 - TEXT - RAND + 100)) "writeback_limit left"
sysfs_set $S/writeback_limit_enable 0
verify "after limited writeback"
dev_reset 0

step "a full backing device: ENOSPC, the rest stays in memory"
dd if=/dev/zero of=/tmp/small.img bs=1M count=1 2>/dev/null
L2=$(losetup -f) || fail "no free loop device"
losetup $L2 /tmp/small.img || fail "losetup $L2 failed"
sysfs_set $S/backing_dev "$L2"
dev_setup 0 64M
fill
sysfs_set $S/idle all
expect_errno ENOSPC sysfs-write $S/writeback idle
# 256 blocks, the first never used.
check_eq "$(bd 1)" 255 "bd_count on a full backing device"
# zram takes a block before it looks at the page: page 0, already written
# back and so no candidate, still gets ENOSPC.
expect_errno ENOSPC sysfs-write $S/writeback "page_index=0"
check_eq "$(bd 1)" 255 "bd_count after page_index= on a full backing device"
verify "after ENOSPC"
dev_reset 0
losetup -d $L2 || fail "the small loop device is still held after reset"

step "huge and huge_idle write back only pages stored raw"
sysfs_set $S/backing_dev "$L"
dev_setup 0 64M
fill
huge=$(stat_field $S/mm_stat huge_pages)
check_cmp "$huge" -ge $RAND "huge pages stored"
expect_errno OK sysfs-write $S/writeback huge_idle
check_eq "$(bd 1)" 0 "bd_count after huge_idle with none idle"
expect_errno OK sysfs-write $S/writeback huge
check_eq "$(bd 1)" "$huge" "bd_count after huge"
check_eq "$(stat_field $S/mm_stat huge_pages)" 0 "huge_pages after huge"
verify "after huge writeback"
dev_reset 0
losetup -d $L || fail "the loop device is still held after reset"

step "a failing backing device loses nothing: EIO, the pages stay"
losetup $L /tmp/backing.img || fail "losetup $L failed"
sectors=$((40 * 2048))
M=$(dm_create ozwb "0 $sectors linear $L 0")
[ -b $M ] || fail "no $M"
sysfs_set $S/backing_dev "$M"
dev_setup 0 64M
fill
sysfs_set $S/idle all
# Write back half, then make the device fail.
expect_errno OK sysfs-write $S/writeback huge_idle
check_eq "$(bd 1)" $RAND "bd_count before the failure"
dmsetup suspend ozwb && dmsetup load ozwb --table "0 $sectors error" &&
	dmsetup resume ozwb || fail "cannot switch ozwb to the error target"
expect_errno EIO sysfs-write $S/writeback idle
check_eq "$(bd 1)" $RAND "bd_count after the failed writeback"
check_eq "$(bd 3)" $RAND "bd_writes after the failed writeback"
if [ "$DEV" = ozram ]; then
	check_eq "$(backend_field bd_write_failed_pages_total)" $TEXT "writeback_failed"
fi
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((TOTAL * 4096)) "orig_data_size"
# The pages not written back read from memory; those written before, from
# the device, which fails now.
dd if=$D of=/tmp/back.bin bs=4096 count=$TEXT iflag=direct 2>/dev/null ||
	fail "pages kept in memory do not read"
dd if=/tmp/data.bin of=/tmp/text.bin bs=4096 count=$TEXT 2>/dev/null
check_eq "$(md5 /tmp/back.bin)" "$(md5 /tmp/text.bin)" "md5 of the pages kept in memory"
rm -f /tmp/back.bin /tmp/text.bin
# A page written back before the failure reads from the failing device:
# EIO to the reader, counted in failed_reads (zram 6.1 leaves its chained
# reads uncounted).
reads_failed=$(stat_field $S/io_stat failed_reads)
dd if=$D of=/dev/null bs=4096 skip=$TEXT count=1 iflag=direct 2>/dev/null &&
	fail "a page on the failing device read without an error"
if [ "$DEV" = ozram ]; then
	check_eq "$(stat_field $S/io_stat failed_reads)" $((reads_failed + 1)) \
		"failed_reads after a read from the failing device"
fi
dmsetup suspend ozwb && dmsetup load ozwb --table "0 $sectors linear $L 0" &&
	dmsetup resume ozwb || fail "cannot switch ozwb back to linear"
verify "after the failure, the device back"
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 1)" $((TEXT + RAND)) "bd_count after writing back again"
verify "after writing back again"
dev_reset 0
dmsetup remove ozwb || fail "the dm device is still held after reset"

step "writeback_limit written during a pass stands, whatever its writes do"
# Reads from the loop device at once; every write fails, 3 s late.
E=$(dm_create ozerr "0 $sectors error")
M=$(dm_create ozwb "0 $sectors delay $L 0 0 $E 0 3000")
sysfs_set $S/backing_dev "$M"
dev_setup 0 64M
fill
sysfs_set $S/idle all
sysfs_set $S/writeback_limit_enable 1
sysfs_set $S/writeback_limit 100000
sysfs-write $S/writeback idle >/tmp/wb.out 2>&1 &
wb=$!
sleep 1
kill -0 $wb 2>/dev/null || fail "the writeback ended before the limit was written: the check proves nothing"
sysfs_set $S/writeback_limit 0
wait $wb || true # sysfs-write exits 1 on an errno: its output says which
check_eq "$(tail -n 1 /tmp/wb.out)" EIO "the pass, its writes failed and its limit spent"
check_eq "$(cat $S/writeback_limit)" 0 "writeback_limit after the failed writes"
check_eq "$(bd 1)" 0 "bd_count"
verify "after the failed writes"
sysfs_set $S/writeback_limit_enable 0
dev_reset 0
dmsetup remove ozwb && dmsetup remove ozerr || fail "the dm devices are still held after reset"

step "writeback_limit written during a pass: pages picked before give back nothing"
# Every write lands 10 s late.  The pass picks pages with no limit, then a
# limit of one page is written, and the pages in flight go stale as they
# are rewritten: they took nothing, so they give nothing back, and one
# page, the first idle one past the rewrite, is all the limit writes.
slow_pass ozwb
sysfs_set $S/writeback_limit 1
sysfs_set $S/writeback_limit_enable 1
# The first 2,048 pages, the pass's picks so far among them, rewritten as
# they were: no longer idle, and stale where they are in flight.
dd if=/tmp/data.bin of=$D bs=1M count=8 oflag=direct conv=notrunc 2>/dev/null ||
	fail "the rewrite failed"
kill -0 $wb 2>/dev/null || fail "the writeback ended before the rewrite: the check proves nothing"
wait $wb || true # sysfs-write exits 1 on an errno: its output says which
check_eq "$(tail -n 1 /tmp/wb.out)" EIO "the pass, its limit spent"
check_eq "$(awk '$1 >= 2048 && $3 ~ /w/ { n++ } END { print n + 0 }' $STATE)" 1 \
	"pages past the rewrite written back with a limit of one"
check_eq "$(cat $S/writeback_limit)" 0 "writeback_limit"
verify "after the limit written during the pass"
sysfs_set $S/writeback_limit_enable 0
dev_reset 0
dmsetup remove ozwb || fail "the dm device is still held after reset"

step "a small backing device whose writes fail: every page is tried, EIO"
# 255 usable blocks for 4608 pages: the blocks of failed writes are used
# again, as zram's one block is, and the pass ends with the writes' error,
# not ENOSPC.
M=$(dm_create ozerr "0 2048 error")
sysfs_set $S/backing_dev "$M"
dev_setup 0 64M
fill
sysfs_set $S/idle all
if [ "$DEV" = ozram ]; then
	failed=$(backend_field bd_write_failed_pages_total)
fi
expect_errno EIO sysfs-write $S/writeback idle
check_eq "$(bd 1)" 0 "bd_count"
if [ "$DEV" = ozram ]; then
	check_eq "$(($(backend_field bd_write_failed_pages_total) - failed))" $((TEXT + RAND)) \
		"pages whose write failed: every candidate"
fi
verify "after the failed writes"
dev_reset 0
dmsetup remove ozerr || fail "the dm device is still held after reset"

# The last two steps in each of ozram's forms: a block per page, then
# compressed objects packed into blocks (compressed_writeback=1).
FORMS=0
[ "$DEV" = zram ] || FORMS="0 1"

# zram 6.1 writes one page at a time, 10 s each here: ozram only.
for form in $FORMS; do
	[ "$DEV" = ozram ] || break
	step "reads are served from memory while their pages are being written back (compressed_writeback=$form)"
	sysfs_set $S/compressed_writeback $form
	slow_pass ozslow
	verify "while the writeback waits for the backing device"
	kill -0 $wb 2>/dev/null || fail "the writeback ended before the reads: the check proves nothing"
	note "ok: every page read while the writeback was still in flight"
	wait $wb
	check_eq "$(tail -n 1 /tmp/wb.out)" OK "the slow writeback"
	# The reads cleared the idle marks of the pages still waiting their turn.
	check_cmp "$(bd 1)" -gt 0 "pages on the slow device"
	check_cmp "$(bd 3)" -gt 0 "pages written to the slow device"
	verify "after the slow writeback"
	dev_reset 0
	dmsetup remove ozslow || fail "the dm device is still held after reset"
done

for form in $FORMS; do
	step "ext4 written back, unmounted and mounted again reads back"
	if [ "$DEV" = ozram ]; then
		note "compressed_writeback=$form"
		sysfs_set $S/compressed_writeback $form
	fi
	sysfs_set $S/backing_dev "$L"
	dev_setup 0 64M
	mke2fs -q -F -b 4096 -t ext4 $D || fail "mke2fs failed"
	mkdir -p /mnt/fs
	mount -t ext4 $D /mnt/fs || fail "mount failed"
	cp /tmp/orig.bin /mnt/fs/data.bin
	umount /mnt/fs
	ring_settle 0
	sysfs_set $S/idle all
	expect_errno OK sysfs-write $S/writeback idle
	check_cmp "$(bd 3)" -gt $((TEXT + RAND)) "pages written to the backing device"
	if [ "$form" = 0 ]; then
		check_cmp "$(bd 1)" -gt $((TEXT + RAND)) "blocks on the backing device"
	fi
	echo 3 >/proc/sys/vm/drop_caches
	e2fsck -f -n $D >/tmp/fsck.out 2>&1 || fail "e2fsck: $(tail -n 3 /tmp/fsck.out)"
	mount -t ext4 $D /mnt/fs || fail "mount after writeback failed"
	check_eq "$(md5 /mnt/fs/data.bin)" "$(md5 /tmp/orig.bin)" "md5 of the file after writeback and a remount"
	umount /mnt/fs
	dev_reset 0
done
if [ "$DEV" = ozram ]; then
	sysfs_set $S/compressed_writeback 0
fi

if [ "${AGENT:-none}" = cpu ] && [ "$DEV" = ozram ]; then
	for form in 0 1; do
		step "pages staged for a stopped agent are never written back (compressed_writeback=$form)"
		sysfs_set $S/compressed_writeback $form
		T=/sys/module/ozram/parameters/ring_timeout_ms
		timeout=$(cat $T)
		# Long enough that the module does not take the pages back meanwhile.
		echo 600000 >$T
		sysfs_set $S/backing_dev "$L"
		dev_setup 0 64M
		dd if=/tmp/data.bin of=$D bs=1M count=8 oflag=direct 2>/dev/null || fail "write failed"
		ring_settle 0
		sysfs_set $S/idle all
		kill -STOP "$(agent_pid)"
		dd if=/tmp/data.bin of=$D bs=4096 count=64 seek=2048 skip=2048 oflag=direct 2>/dev/null ||
			fail "write failed"
		# Parked pages wait for the agent too (none while the ring has room).
		staged=$(($(backend_field staged_pages) + $(backend_field parked_pages)))
		check_cmp "$staged" -gt 0 "pages staged while the agent is stopped"
		sysfs_set $S/idle all
		expect_errno OK sysfs-write $S/writeback idle
		check_eq "$(($(backend_field staged_pages) + $(backend_field parked_pages)))" "$staged" \
			"pages still staged after writeback"
		# Pages the full ring did not take were parked or compressed.
		check_eq "$(bd 3)" $((2048 + 64 - staged)) "bd_writes: the stored pages only"
		if [ $form = 0 ]; then
			check_eq "$(bd 1)" $((2048 + 64 - staged)) "bd_count: the stored pages only"
		fi
		kill -CONT "$(agent_pid)"
		ring_settle 0
		echo "$timeout" >$T
		sysfs_set $S/idle all
		expect_errno OK sysfs-write $S/writeback idle
		check_eq "$(bd 3)" $((2048 + 64)) "bd_writes once the agent stored them"
		if [ $form = 0 ]; then
			check_eq "$(bd 1)" $((2048 + 64)) "bd_count once the agent stored them"
		fi
		check_eq "$(wb_pages)" $((2048 + 64)) "pages marked w"
		dd if=$D of=/tmp/back.bin bs=4096 count=$((2048 + 64)) iflag=direct 2>/dev/null ||
			fail "read failed"
		dd if=/tmp/data.bin of=/tmp/want.bin bs=4096 count=$((2048 + 64)) 2>/dev/null
		check_eq "$(md5 /tmp/back.bin)" "$(md5 /tmp/want.bin)" "md5 of the pages read back"
		dev_reset 0
	done
	sysfs_set $S/compressed_writeback 0
fi
losetup -d $L
