# vm: --mem 768 --timeout 1500
# Writeback to a backing device, stock zram against ozram, in the same VM,
# each onto its own loop device on a file in the guest's tmpfs.
#
# Time: 64 MiB of idle LZ4 text pages written back by zram (one page per
# bio, waited for), by ozram writing each page to its own block
# (compressed_writeback=0) and by ozram packing the compressed objects
# (compressed_writeback=1), both with 64-block bios, 8 in flight.  Five
# rounds each, the order rotating; each round starts from a fresh device,
# times the writeback, then times one O_DIRECT read of every page back and
# checks every byte.  Prints the medians and their ratios (the target is
# ozram <= 0.5x zram).
#
# Blocks: bd_count after writing back every page of the bench's page mix
# (pagegen's mixed kind, as blkbench writes it) and of the text pages, on
# zram and on ozram in both forms, and packed after recompressing the idle
# pages: with zstd, and with zstd and deflate, each page kept in the smaller
# (the target is packed ozram <= 0.5x zram).
# Run: tests/vm/run --mem 768 --timeout 1500 --script tests/vm/bench/writeback.sh
PAGES=16384
pagegen --pages $PAGES --kind text --seed 141 >/tmp/text.bin
pagegen --pages $PAGES --kind mixed --seed 142 >/tmp/mixed.bin

load_module loop
modprobe lz4 || fail "cannot load the crypto lz4 module"
modprobe zram num_devices=1 || fail "cannot load zram"

for f in zram ozram; do
	dd if=/dev/zero of=/tmp/$f.img bs=1M count=72 2>/dev/null
	l=$(losetup -f) || fail "no free loop device"
	losetup $l /tmp/$f.img || fail "losetup $l failed"
	eval "LOOP_$f=$l"
done

# setup WHO FILE [RECOMP]: device WHO (zram, ozram-raw, ozram-packed) holding
# FILE, every page idle; with RECOMP, the idle pages recompressed with it
# first.  RECOMP "zstd+deflate" recompresses with zstd (deflate for a page
# zstd does not shrink), then tries deflate on every page again, keeping
# whichever object is smaller.  Sets s (its sysfs directory) and dev.
setup() {
	mod=${1%%-*}
	s=/sys/block/${mod}0
	dev=/dev/${mod}0
	eval "l=\$LOOP_$mod"
	sysfs_set $s/backing_dev $l
	sysfs_set $s/comp_algorithm lz4
	case $1 in
	ozram-raw) sysfs_set $s/compressed_writeback 0 ;;
	ozram-packed) sysfs_set $s/compressed_writeback 1 ;;
	esac
	case ${3:-} in
	"") ;;
	zstd+deflate)
		sysfs_set $s/recomp_algorithm "algo=zstd priority=1"
		sysfs_set $s/recomp_algorithm "algo=deflate priority=2"
		;;
	*) sysfs_set $s/recomp_algorithm "algo=$3" ;;
	esac
	sysfs_set $s/disksize 64M
	dd if=$2 of=$dev bs=1M oflag=direct 2>/dev/null || fail "write failed"
	sysfs_set $s/idle all
	if [ -n "${3:-}" ]; then
		sysfs_set $s/recompress type=idle
		sysfs_set $s/idle all
		if [ "$3" = zstd+deflate ]; then
			sysfs_set $s/recompress "type=idle algo=deflate"
			sysfs_set $s/idle all
		fi
	fi
}

# round WHO: one timed writeback and read-back of the text pages; appends
# "WHO WB-CS READ-CS".
round() {
	setup $1 /tmp/text.bin
	t0=$(uptime_cs)
	sysfs_set $s/writeback idle
	t1=$(uptime_cs)
	check_eq "$(awk '{ print $3 }' $s/bd_stat)" $PAGES "$1's pages written to the backing device"
	sum=$(dd if=$dev bs=1M count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
	t2=$(uptime_cs)
	check_eq "$sum" "$(md5 /tmp/text.bin)" "every byte after $1's writeback"
	echo "WRITEBACK-BENCH $1: writeback $(((t1 - t0) * 10)) ms, read back $(((t2 - t1) * 10)) ms, $(awk '{ print $1 }' $s/bd_stat) blocks"
	echo "$1 $((t1 - t0)) $((t2 - t1))" >>/tmp/rounds
	sysfs_set $s/reset 1
}

step "time: writeback and read-back of $PAGES idle text pages"
for r in 1 2 3 4 5; do
	case $((r % 3)) in
	1) round zram; round ozram-raw; round ozram-packed ;;
	2) round ozram-raw; round ozram-packed; round zram ;;
	0) round ozram-packed; round zram; round ozram-raw ;;
	esac
done
# median WHO COLUMN
median() { awk -v w="$1" -v c="$2" '$1 == w { print $c }' /tmp/rounds | sort -n | sed -n 3p; }
ratio() { awk -v o="$1" -v z="$2" 'BEGIN { printf "%.2f", o / z }'; }
for col in 2 3; do
	[ $col = 2 ] && what=writeback || what="read back"
	z=$(median zram $col)
	r=$(median ozram-raw $col)
	p=$(median ozram-packed $col)
	echo "WRITEBACK-BENCH median $what: zram $((z * 10)) ms, ozram raw $((r * 10)) ms ($(ratio $r $z)x), ozram packed $((p * 10)) ms ($(ratio $p $z)x)"
done

# blocks WHO FILE [RECOMP]: sets B to bd_count once every page of FILE is
# written back.
blocks() {
	setup "$@"
	sysfs_set $s/writeback idle
	check_eq "$(dd if=$dev bs=1M count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5 $2)" "every byte after $1's writeback"
	B=$(awk '{ print $1 }' $s/bd_stat)
	sysfs_set $s/reset 1
}

step "blocks: every page written back"
for f in mixed text; do
	blocks zram /tmp/$f.bin && z=$B
	blocks ozram-raw /tmp/$f.bin && r=$B
	blocks ozram-packed /tmp/$f.bin && p=$B
	blocks ozram-packed /tmp/$f.bin zstd && pz=$B
	blocks ozram-packed /tmp/$f.bin zstd+deflate && pzd=$B
	echo "WRITEBACK-BENCH blocks $f: zram $z, ozram raw $r ($(ratio $r $z)x), ozram packed $p ($(ratio $p $z)x), packed after zstd recompression $pz ($(ratio $pz $z)x), after zstd and deflate $pzd ($(ratio $pzd $z)x)"
done
