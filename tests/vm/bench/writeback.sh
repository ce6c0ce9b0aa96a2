# vm: --mem 768 --timeout 1200
# Writeback of 64 MiB of idle LZ4 text pages to a backing device: stock
# zram (one page per bio, waited for) against ozram (64-page bios, 8 in
# flight), in the same VM, each onto its own loop device on a file in the
# guest's tmpfs.  Five rounds each, alternating, the first one alternating;
# each round starts from a fresh device and checks every byte after the
# writeback.  Prints the medians and their ratio (the target is ozram <=
# 0.5x zram).
# Run: tests/vm/run --mem 768 --timeout 1200 --script tests/vm/bench/writeback.sh
PAGES=16384
pagegen --pages $PAGES --kind text --seed 141 >/tmp/text.bin
sum=$(md5 /tmp/text.bin)

load_module loop
modprobe lz4 || fail "cannot load the crypto lz4 module"
modprobe zram num_devices=1 || fail "cannot load zram"

for f in zram ozram; do
	dd if=/dev/zero of=/tmp/$f.img bs=1M count=72 2>/dev/null
	l=$(losetup -f) || fail "no free loop device"
	losetup $l /tmp/$f.img || fail "losetup $l failed"
	eval "LOOP_$f=$l"
done

# round zram|ozram: one timed writeback; appends "WHO CS".
round() {
	s=/sys/block/${1}0
	eval "l=\$LOOP_$1"
	sysfs_set $s/backing_dev $l
	sysfs_set $s/comp_algorithm lz4
	sysfs_set $s/disksize 64M
	dd if=/tmp/text.bin of=/dev/${1}0 bs=1M oflag=direct 2>/dev/null || fail "write failed"
	sysfs_set $s/idle all
	t0=$(uptime_cs)
	sysfs_set $s/writeback idle
	t1=$(uptime_cs)
	check_eq "$(awk '{ print $1 }' $s/bd_stat)" $PAGES "$1's pages on the backing device"
	check_eq "$(dd if=/dev/${1}0 bs=1M count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$sum" "every byte after $1's writeback"
	echo "WRITEBACK-BENCH $1: $(((t1 - t0) * 10)) ms"
	echo "$1 $((t1 - t0))" >>/tmp/rounds
	sysfs_set $s/reset 1
}

for r in 1 2 3 4 5; do
	if [ $((r % 2)) = 1 ]; then round zram; round ozram; else round ozram; round zram; fi
done
# median WHO
median() { awk -v w="$1" '$1 == w { print $2 }' /tmp/rounds | sort -n | sed -n 3p; }
z=$(median zram)
o=$(median ozram)
echo "WRITEBACK-BENCH median: zram $((z * 10)) ms, ozram $((o * 10)) ms, ozram/zram $(awk -v o=$o -v z=$z 'BEGIN { printf "%.2f", o / z }')"
