# vm: --mem 512 --timeout 900
# vm-zram: no Debian's 6.1 zram has no compressed writeback
# Compressed writeback (compressed_writeback=1): a pass packs the compressed
# objects of the pages it picks into the blocks of the backing device, byte
# after byte, and gives raw (huge) pages a block each.  The blocks used are
# those the compressed bytes need and no more; every byte reads back; a
# block is freed when the last object in it is; recompressed (zstd)
# objects decode with their own algorithm; a failed write, the writeback
# limit, a full device and reset lose nothing; the two forms live side by
# side; rewrites racing a pass leave no block behind.  The backing device
# is a loop device on a file in the guest's tmpfs, or a device-mapper
# device over it switched to the error target.  The blocks written hold
# the objects' bytes and zeros, nothing else (backing-scan walks them).
# writeback.sh runs its slow-device and ext4 steps in both forms.

S=$(sysdir 0)
D=$(dev 0)
TEXT=4096	# text pages: compressed, packed
RAND=512	# random pages: stored raw (huge), a block each
ZERO=256	# zero pages: same-filled, never written back
TOTAL=$((TEXT + RAND + ZERO))

load_module loop
load_module dm_mod
export DM_DISABLE_UDEV=1

bd() { awk -v i="$1" '{ print $i }' $S/bd_stat; }
wb_pages() { awk '$3 ~ /w/ { n++ } END { print n + 0 }' /sys/kernel/debug/ozram/ozram0/block_state; }

pagegen --pages $TEXT --kind text --seed 151 >/tmp/data.bin
pagegen --pages $RAND --kind random --seed 152 >>/tmp/data.bin
pagegen --pages $ZERO --kind zero >>/tmp/data.bin
cp /tmp/data.bin /tmp/orig.bin

fill() {
	dd if=/tmp/data.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
	ring_settle 0
}

verify() {
	dd if=$D of=/tmp/back.bin bs=1M count=$((TOTAL / 256)) iflag=direct 2>/dev/null ||
		fail "$1: read failed"
	check_eq "$(md5 /tmp/back.bin)" "$(md5 /tmp/data.bin)" "$1: md5 of the data read back"
	rm -f /tmp/back.bin
}

# setup BACKING: device 0 with BACKING, compressed writeback on, filled and
# every page idle.  Sets PACKED_BYTES to the compressed text's bytes.
setup() {
	sysfs_set $S/backing_dev "$1"
	sysfs_set $S/compressed_writeback 1
	dev_setup 0 64M
	fill
	huge=$(stat_field $S/mm_stat huge_pages)
	check_eq "$huge" $RAND "pages stored raw"
	PACKED_BYTES=$(($(stat_field $S/mm_stat compr_data_size) - huge * 4096))
	sysfs_set $S/idle all
}

# check_packed_blocks WHAT: bd_count is the raw pages' blocks plus what the
# packed bytes need, give or take the tail of each 64-block bio.
check_packed_blocks() {
	need=$(((PACKED_BYTES + 4095) / 4096))
	check_cmp "$(bd 1)" -ge $((RAND + need)) "$1: blocks, at least raw + packed bytes / 4096"
	check_cmp "$(bd 1)" -le $((RAND + need + need / 63 + 2)) "$1: blocks, at most one more per bio"
}

dd if=/dev/zero of=/tmp/backing.img bs=1M count=40 2>/dev/null
L=$(losetup -f) || fail "no free loop device"
losetup $L /tmp/backing.img || fail "losetup $L failed"

step "compressed_writeback: a boolean, zram's EINVAL otherwise"
check_eq "$(cat $S/compressed_writeback)" 1 "compressed_writeback by default"
expect_errno EINVAL sysfs-write $S/compressed_writeback x
expect_errno EINVAL sysfs-write $S/compressed_writeback 2
expect_errno EINVAL sysfs-write $S/compressed_writeback ""
sysfs_set $S/compressed_writeback off
check_eq "$(cat $S/compressed_writeback)" 0 "compressed_writeback once off"
sysfs_set $S/compressed_writeback y
check_eq "$(cat $S/compressed_writeback)" 1 "compressed_writeback once on"

step "idle pages are packed: the blocks hold the compressed bytes"
setup "$L"
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 3)" $((TEXT + RAND)) "bd_writes (pages)"
check_eq "$(wb_pages)" $((TEXT + RAND)) "pages marked w in block_state"
check_packed_blocks "after writeback idle"
check_cmp "$(bd 1)" -lt $((RAND + TEXT * 2 / 3)) "blocks against the pages written back"
check_eq "$(stat_field $S/mm_stat compr_data_size)" 0 "compr_data_size"
check_eq "$(stat_field $S/mm_stat huge_pages)" 0 "huge_pages"
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((TOTAL * 4096)) "orig_data_size"
verify "after compressed writeback"
check_eq "$(bd 2)" $((TEXT + RAND)) "bd_reads after reading every page once"
# Through the page cache too, not only O_DIRECT.
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(dd if=$D bs=1M count=$((TOTAL / 256)) 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/data.bin)" "md5 read through the page cache"

step "a block is freed with the last object in it"
blocks=$(bd 1)
# Every other group of 8 text pages: the blocks between two groups hold
# objects of both, and stay.
G=8
g=0
while [ $g -lt $((TEXT / G)) ]; do
	blkdiscard -o $((g * G * 4096)) -l $((G * 4096)) $D || fail "discard of group $g failed"
	dd if=/dev/zero of=/tmp/data.bin bs=4096 seek=$((g * G)) count=$G conv=notrunc 2>/dev/null
	g=$((g + 2))
done
check_cmp "$(bd 1)" -lt "$blocks" "blocks with half the objects left"
check_cmp "$(bd 1)" -gt $((RAND + (blocks - RAND) / 3)) "blocks with half the objects left"
verify "with every other group of packed pages discarded"
blkdiscard -o 0 -l $((TEXT * 4096)) $D || fail "discard of the text pages failed"
check_eq "$(bd 1)" $RAND "blocks with no packed object left"
cp /tmp/orig.bin /tmp/data.bin
fill
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/writeback idle
check_packed_blocks "written back again into the freed blocks"
verify "after writing back again"
dev_reset 0
check_eq "$(cat $S/bd_stat | tr -s ' ')" " 0 0 0" "bd_stat after reset"
losetup -d $L || fail "the loop device is still held after reset"
losetup $L /tmp/backing.img || fail "losetup $L failed"

step "recompressed pages are written back and decode with their algorithm"
sysfs_set $S/backing_dev "$L"
sysfs_set $S/recomp_algorithm "algo=zstd"
dev_setup 0 64M
fill
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/recompress "type=idle"
recompressed=$(backend_field recompressed_pages)
check_cmp "$recompressed" -gt $((TEXT / 2)) "pages recompressed with zstd"
PACKED_BYTES=$(($(stat_field $S/mm_stat compr_data_size) - $(stat_field $S/mm_stat huge_pages) * 4096))
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/writeback idle
check_packed_blocks "recompressed pages written back"
check_eq "$(backend_field recompressed_pages)" 0 "recompressed pages left in memory"
verify "recompressed pages read back"
dev_reset 0

step "the writeback limit counts pages; raw and packed pages side by side"
setup "$L"
sysfs_set $S/writeback_limit_enable 1
sysfs_set $S/writeback_limit 1000
expect_errno EIO sysfs-write $S/writeback idle
check_eq "$(bd 3)" 1000 "bd_writes with a limit of 1000"
check_eq "$(cat $S/writeback_limit)" 0 "writeback_limit once spent"
check_cmp "$(bd 1)" -lt 1000 "blocks for 1000 packed pages"
sysfs_set $S/writeback_limit_enable 0
sysfs_set $S/compressed_writeback 0
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 3)" $((TEXT + RAND)) "bd_writes after the rest went raw"
check_eq "$(wb_pages)" $((TEXT + RAND)) "pages marked w"
check_cmp "$(bd 1)" -gt $((TEXT + RAND - 1000)) "blocks: one per raw page"
verify "raw and packed pages read back"
dev_reset 0

step "a full backing device: ENOSPC, the rest stays in memory"
dd if=/dev/zero of=/tmp/small.img bs=1M count=1 2>/dev/null
L2=$(losetup -f) || fail "no free loop device"
losetup $L2 /tmp/small.img || fail "losetup $L2 failed"
setup "$L2"
expect_errno ENOSPC sysfs-write $S/writeback idle
# 256 blocks, the first never used; the last may be cut short.
check_cmp "$(bd 1)" -ge 250 "blocks on a full backing device"
check_cmp "$(bd 3)" -gt 255 "pages in the 255 blocks"
verify "after ENOSPC"
dev_reset 0
losetup -d $L2 || fail "the small loop device is still held after reset"

step "a failing backing device loses nothing: EIO, the objects stay"
sectors=$((40 * 2048))
dmsetup create ozcwb --table "0 $sectors linear $L 0" || fail "dmsetup create failed"
M=/dev/dm-$(dmsetup info -c --noheadings -o minor ozcwb | tr -d ' ')
[ -b $M ] || fail "no $M"
setup "$M"
dmsetup suspend ozcwb && dmsetup load ozcwb --table "0 $sectors error" &&
	dmsetup resume ozcwb || fail "cannot switch ozcwb to the error target"
expect_errno EIO sysfs-write $S/writeback idle
check_eq "$(bd 1)" 0 "blocks after the failed writeback"
check_eq "$(bd 3)" 0 "bd_writes after the failed writeback"
check_eq "$(backend_field bd_write_failed_pages_total)" $((TEXT + RAND)) "writeback_failed"
check_eq "$(stat_field $S/mm_stat huge_pages)" $RAND "raw pages still in memory"
verify "after the failed writeback, from memory"
dmsetup suspend ozcwb && dmsetup load ozcwb --table "0 $sectors linear $L 0" &&
	dmsetup resume ozcwb || fail "cannot switch ozcwb back to linear"
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/writeback idle
check_packed_blocks "written back once the device works"
# A packed page read from the failing device: EIO, counted.
dmsetup suspend ozcwb && dmsetup load ozcwb --table "0 $sectors error" &&
	dmsetup resume ozcwb || fail "cannot switch ozcwb to the error target"
reads_failed=$(stat_field $S/io_stat failed_reads)
dd if=$D of=/dev/null bs=4096 count=1 iflag=direct 2>/dev/null &&
	fail "a packed page on the failing device read without an error"
check_eq "$(stat_field $S/io_stat failed_reads)" $((reads_failed + 1)) \
	"failed_reads after a read from the failing device"
dmsetup suspend ozcwb && dmsetup load ozcwb --table "0 $sectors linear $L 0" &&
	dmsetup resume ozcwb || fail "cannot switch ozcwb back to linear"
verify "the device back"
dev_reset 0
dmsetup remove ozcwb || fail "the dm device is still held after reset"

step "pages rewritten while a pass packs them keep the new content"
setup "$L"
pagegen --pages 1024 --kind text --seed 153 >/tmp/new.bin
sysfs-write $S/writeback idle >/tmp/wb.out 2>&1 &
wb=$!
dd if=/tmp/new.bin of=$D bs=4096 oflag=direct 2>/dev/null || fail "rewrite failed"
dd if=$D of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null || fail "read during writeback failed"
wait $wb
check_eq "$(tail -n 1 /tmp/wb.out)" OK "writeback racing the rewrite"
dd if=/tmp/new.bin of=/tmp/data.bin bs=4096 conv=notrunc 2>/dev/null
ring_settle 0
verify "after rewrites racing writeback"
check_cmp "$(wb_pages)" -gt 0 "pages on the backing device"
# The objects dropped for their rewritten pages left no block behind.
blkdiscard $D || fail "discard of the whole device failed"
check_eq "$(bd 1)" 0 "blocks once every page is discarded"
dev_reset 0
cp /tmp/orig.bin /tmp/data.bin

step "raw pages among the packed ones: each packed bio fills its blocks"
# The bench's page mix, raw (random) pages all along between the packed
# ones: a raw page's block must not end a packed bio at a part-filled block.
pagegen --pages 2048 --kind mixed --seed 155 >/tmp/mixed.bin
sysfs_set $S/backing_dev "$L"
dev_setup 0 64M
dd if=/tmp/mixed.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
huge=$(stat_field $S/mm_stat huge_pages)
check_cmp "$huge" -gt 100 "raw pages in the mix"
need=$((($(stat_field $S/mm_stat compr_data_size) - huge * 4096 + 4095) / 4096))
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/writeback idle
check_cmp "$(bd 1)" -ge $((huge + need)) "blocks, at least raw + packed bytes / 4096"
check_cmp "$(bd 1)" -le $((huge + need + need / 63 + 2)) "blocks, at most one more per packed bio"
check_eq "$(dd if=$D bs=1M count=8 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/mixed.bin)" "md5 of the mix read back"
dev_reset 0

step "the blocks hold the objects' bytes and zeros, nothing else"
# 640 raw pages first: the pass fills more raw batches than it has, so
# that its packed batches reuse pages that held raw ones.  The bytes after
# the last object of each packed bio must still read as zeros.  zstd, so
# that backing-scan can walk from one object to the next.
pagegen --pages 640 --kind random --seed 161 >/tmp/scan.bin
pagegen --pages 1024 --kind text --seed 162 >>/tmp/scan.bin
dd if=/dev/zero of=/tmp/scan.img bs=1M count=16 2>/dev/null
L3=$(losetup -f) || fail "no free loop device"
losetup $L3 /tmp/scan.img || fail "losetup $L3 failed"
sysfs_set $S/backing_dev "$L3"
sysfs_set $S/comp_algorithm zstd
dev_setup 0 64M
dd if=/tmp/scan.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
check_eq "$(stat_field $S/mm_stat huge_pages)" 640 "pages stored raw"
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 3)" 1664 "bd_writes (pages)"
sync
scan=$(backing-scan /tmp/scan.img /tmp/scan.bin 2>&1) || fail "$scan"
check_eq "$(echo "$scan" | cut -d' ' -f1-4)" "objects 1024 raw 640" "what backing-scan finds"
check_eq "$(dd if=$D bs=4096 count=1664 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(head -c $((1664 * 4096)) /tmp/scan.bin | md5sum | cut -d' ' -f1)" "md5 of the pages read back"
dev_reset 0
losetup -d $L3
rm -f /tmp/scan.img /tmp/scan.bin

step "a 64 GiB backing device: its block counts come as packing takes blocks"
# Setting the backing device allocates its bitmap, a bit per block (2 MiB
# here, as zram's; from vmalloc only when kmalloc cannot give it).  The
# counts of packed blocks, a byte per block, come in chunks as passes take
# blocks, instead of 16 MiB of vmalloc up front.
truncate -s 64G /tmp/large.img || fail "truncate failed"
L4=$(losetup -f) || fail "no free loop device"
losetup $L4 /tmp/large.img || fail "losetup $L4 failed"
vmalloc_kb() { awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo; }
before=$(vmalloc_kb)
sysfs_set $S/backing_dev "$L4"
taken=$(($(vmalloc_kb) - before))
note "VmallocUsed: +$taken kB for the backing device"
check_cmp "$taken" -le 3072 "kB of vmalloc the backing device takes (at most its bitmap, 2048, and change)"
dev_setup 0 64M
dd if=/tmp/data.bin of=$D bs=1M count=4 oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
sysfs_set $S/idle all
expect_errno OK sysfs-write $S/writeback idle
check_eq "$(bd 3)" 1024 "bd_writes (pages)"
check_cmp "$(bd 1)" -lt 1024 "blocks, packed"
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(dd if=$D bs=1M count=4 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(head -c 4194304 /tmp/data.bin | md5sum | cut -d' ' -f1)" "md5 of the pages read back"
dev_reset 0
losetup -d $L4
rm -f /tmp/large.img

losetup -d $L
