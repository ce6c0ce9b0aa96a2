# vm: --mem 384 --no-module
# The module unloads and loads again with data stored on initialized
# devices; unloading frees all of it and the devices work after each load.
# The memory is compared from the end of the third round on: the first
# rounds also warm what the kernel keeps after its first ext4 mounts and its
# first zsmalloc pools (slab caches, journal caches), 2 to 6 MiB on 6.12 in
# the first round and up to 2 MiB more, once, in the second or (seen on 6.1)
# the third.  A leak of the module's would take memory in every round.

ROUNDS=6
BASE_ROUND=3

# Free memory with the caches dropped, in KiB: MemAvailable and the free
# pages the per-CPU lists hold, which it does not count (from 6.7 on the
# kernel grows those lists under frees like rmmod's, by 10 MiB and more in
# this VM, and drains them at its own pace).
available_kb() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	pcp_pages=$(awk '$1 == "count:" { n += $2 } END { print n + 0 }' /proc/zoneinfo)
	echo $(($(awk '/MemAvailable/ { print $2 }' /proc/meminfo) + pcp_pages * 4))
}

step "the data"
dd if=/dev/urandom of=/tmp/random.bin bs=1M count=16 2>/dev/null
pagegen --pages 2048 --seed 3 >/tmp/mixed.bin

round=1
while [ $round -le $ROUNDS ]; do
	step "round $round: load, store data, unload"
	load_ozram num_devices=2
	[ -d $CONTROL ] || fail "$CONTROL missing after load"
	check_eq "$(cat $(sysdir 0)/initstate)" 0 "initstate of a fresh device"
	dev_setup 0 64M
	dev_setup 1 64M
	dd if=/tmp/random.bin of=$(dev 0) bs=1M oflag=direct 2>/dev/null
	dd if=/tmp/mixed.bin of=$(dev 1) bs=1M oflag=direct 2>/dev/null
	check_eq "$(dd if=$(dev 0) bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5 /tmp/random.bin)" "random data on device 0"
	check_eq "$(dd if=$(dev 1) bs=1M count=8 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5 /tmp/mixed.bin)" "mixed data on device 1"
	check_cmp "$(stat_field $(sysdir 0)/mm_stat mem_used_total)" -ge $((16 * 1024 * 1024)) \
		"memory used by device 0"

	# A mounted device keeps the module in use.
	mke2fs -q -F -b 4096 -t ext4 $(dev 1)
	mkdir -p /mnt/r
	mount -t ext4 $(dev 1) /mnt/r
	if rmmod $DEV 2>/dev/null; then
		fail "rmmod succeeded with a mounted device"
	fi
	note "ok: rmmod refused while mounted"
	umount /mnt/r

	unload_ozram
	[ -e $CONTROL ] && fail "$CONTROL still exists after rmmod"
	ls /sys/block | grep -q "^$DEV" && fail "block devices left after rmmod: $(ls /sys/block)"
	# From 6.3 on zsmalloc names its caches after the pool (the disk
	# name); a cache of its own that outlives the pool is a directory in
	# /sys/kernel/slab.  One merged into another cache is a symlink there,
	# which SLUB leaves after the cache is destroyed, whoever made it.
	leftover=$(for c in /sys/kernel/slab/zspage-$DEV* /sys/kernel/slab/zs_handle-$DEV*; do
		if [ -d "$c" ] && [ ! -L "$c" ]; then echo "${c##*/}"; fi
	done)
	[ -z "$leftover" ] || fail "zsmalloc caches left after rmmod: $leftover"
	avail=$(available_kb)
	note "available with the module unloaded: $avail KiB ($(awk '/^Slab:/ { print "slab " $2 " KiB" }' /proc/meminfo))"
	[ $round = $BASE_ROUND ] && base_kb=$avail
	round=$((round + 1))
done

step "no memory lost over rounds $((BASE_ROUND + 1)) to $ROUNDS, 24 MiB each"
check_cmp $((base_kb - avail)) -lt 1024 "drop of the memory available (KiB)"
