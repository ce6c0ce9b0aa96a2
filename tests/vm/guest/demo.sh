# The ozram demo, run inside the VM by tests/vm/demo: swap and a file system
# on compressed RAM, with the device's statistics between the steps.

say() {
	echo
	echo "---- $*"
}

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# show_stats N: mm_stat, io_stat and backend_stat of device N, with labels.
show_stats() {
	s=$(sysdir "$1")
	set -- $(cat $s/mm_stat)
	orig=$1 compr=$2 used=$3 max=$5 same=$6 huge=$8
	echo "   $DEV$(basename $s | tr -dc 0-9) now holds $((orig / 4096)) pages ($(mib $orig)):"
	echo "     same-filled pages (no data stored): $same"
	echo "     incompressible pages stored as-is:  $huge"
	if [ "$compr" -gt 0 ]; then
		echo "     compressed data: $(mib $compr), compression ratio (orig/compr) $(awk -v o=$orig -v c=$compr 'BEGIN { printf "%.2f", o / c }')"
	fi
	echo "     memory used: $(mib $used) (peak $(mib $max))"
	set -- $(cat $s/io_stat)
	echo "     failed reads $1, failed writes $2, invalid I/O $3, slots freed (swap or discard) $4"
	if [ -r $s/backend_stat ]; then
		echo "     pages by compression path: kernel LZ4 $(backend_field kernel_lz4 ${s##*[!0-9]})," \
			"agent CPU $(backend_field agent_cpu ${s##*[!0-9]}), agent GPU $(backend_field agent_gpu ${s##*[!0-9]});" \
			"agent $(backend_field agent ${s##*[!0-9]})"
	fi
}

ram_mb=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024))
hog_mb=$((ram_mb * 3 / 2))

say "1. ozram is loaded: $(ls -d /sys/block/$DEV* | wc -l) device, algorithm $(cat $(sysdir 0)/comp_algorithm)"
echo "   This VM has $ram_mb MiB of memory and no disk at all."

say "2. /dev/${DEV}0 becomes a 384 MiB swap device"
echo 384M >$(sysdir 0)/disksize
echo 0 >/proc/sys/vm/page-cluster # no swap read-ahead, as usual for zram
mkswap $(dev 0) >/dev/null
swapon $(dev 0)
cat /proc/swaps
show_stats 0

say "3. memhog asks for $hog_mb MiB, 1.5 times the memory, fills it with a mix of pages and checks every byte"
memhog --mb $hog_mb --seed 2026 &
hog=$!
# Show the device while it holds the most: once a third of the hog is in swap.
while kill -0 $hog 2>/dev/null; do
	used=$(awk -v d=$(dev 0) '$1 == d { print $4 }' /proc/swaps)
	if [ "${used:-0}" -gt $((hog_mb * 1024 / 3)) ]; then
		echo "   with $((used / 1024)) MiB swapped out:"
		show_stats 0
		break
	fi
	sleep 1
done
wait $hog
echo "   Pages went out to the compressed device and came back intact; after memhog ended:"
show_stats 0

say "4. A second device, added at run time, carries an ext4 file system"
id=$(cat $CONTROL/hot_add)
echo "   hot_add gave /dev/$DEV$id"
echo 128M >$(sysdir $id)/disksize
mke2fs -q -F -b 4096 -t ext4 $(dev $id)
mkdir -p /mnt/demo
mount -t ext4 $(dev $id) /mnt/demo
cp -a $MODDIR/kernel /mnt/demo/modules
mkdir /mnt/demo/pages
for kind in text ints zero random; do
	pagegen --kind $kind --pages 512 --seed 7 >/mnt/demo/pages/$kind.bin
done
sync
echo "   copied $(find /mnt/demo -type f | wc -l) files, $(du -sk /mnt/demo | cut -f1) KiB:"
df -h /mnt/demo | tail -n 1 | awk '{ print "   " $0 }'
show_stats $id

say "5. The files read back the same after a remount"
(cd /mnt/demo && find . -type f | sort | xargs md5sum) >/tmp/sums
umount /mnt/demo
echo 3 >/proc/sys/vm/drop_caches
mount -t ext4 $(dev $id) /mnt/demo
if (cd /mnt/demo && md5sum -c -s /tmp/sums); then
	echo "   all $(wc -l </tmp/sums) files verified"
else
	echo "   FAILED: files differ after the remount"
	exit 1
fi
umount /mnt/demo

say "6. Clean up: swapoff, reset, hot_remove"
swapoff $(dev 0)
echo 1 >$(sysdir 0)/reset
echo $id >$CONTROL/hot_remove
echo "   done: $(ls -d /sys/block/$DEV* | wc -l) device left, empty"
