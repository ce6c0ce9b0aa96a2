# The ozram demo, run inside the VM by tests/vm/demo (with the agent, ozramd,
# on the CPU backend): swap and a file system on compressed RAM set up with
# ozramctl, and what happened to the pages told between the steps.

say() {
	echo
	echo "---- $*"
}

indent() { sed 's/^/   | /'; }

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# device_number PATH: 3 for /dev/ozram3.
device_number() { echo "${1##*[!0-9]}"; }

# story N: what device N holds and which path stored those pages (the
# backend_stat page counters follow the pages: a freed page leaves them).
story() {
	s=$(sysdir "$1")
	set -- $(cat $s/mm_stat)
	orig=$1 compr=$2 used=$3
	f=$(device_number "$s")
	echo "   ${s##*/} holds $((orig / 4096)) pages ($(mib $orig)) in $(mib $used) of memory, stored by:"
	echo "     ozramd, LZ4 on the CPU cores:        $(backend_field agent_cpu_pages $f)"
	echo "     ozramd, LZ4 on a GPU:                $(backend_field agent_gpu_pages $f)"
	echo "     the kernel's own LZ4 (fallbacks):    $(backend_field kernel_pages $f)"
	echo "     same-filled, only the value kept:    $(backend_field same_filled $f)"
	echo "     incompressible, kept as-is:          $(backend_field huge $f)"
	if [ "$compr" -gt 0 ]; then
		echo "   compression ratio $(awk -v o=$orig -v c=$compr 'BEGIN { printf "%.2f", o / c }')" \
			"($(mib $orig) of pages in $(mib $compr) of compressed data)"
	fi
}

# ring_story: the offload ring since the module was loaded (one ring for all
# devices): what went to the agent, and why pages did not.
ring_story() {
	echo "   The offload ring since the module was loaded: $(backend_field ring_submitted_total) pages" \
		"in $(backend_field ring_batches_total) batches went to ozramd, $(backend_field ring_completed_total) came back compressed."
	echo "   Compressed in the kernel instead: $(backend_field ring_inline_fallbacks_total) inline" \
		"(ring full: swap-out outran the agent), $(backend_field ring_timeouts_total) after a time-out" \
		"(the agent held them too long), $(backend_field ring_drained_total) drained when the agent detached."
	echo "   Results dropped: $(backend_field ring_stale_total) stale (the page was rewritten or timed out" \
		"meanwhile), $(backend_field ring_rejected_total) rejected, $(backend_field ring_verify_failures_total) failed verification."
}

ram_mb=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024))
hog_mb=$((ram_mb * 3 / 2))
swap_mb=$((hog_mb + 64))

say "1. The module is loaded and ozramd, the compression agent, is attached"
echo "   This VM has $ram_mb MiB of memory, $(nproc) CPUs and no disk at all."
echo "   ozramd compresses batches of pages with LZ4 on all CPU cores (a GPU when"
echo "   there is one); the module falls back to its own LZ4 whenever the agent"
echo "   is late or absent.  'ozramctl agent':"
ozramctl agent | indent

say "2. 'ozramctl setup --size ${swap_mb}M --swap' sizes a device and swaps on it"
echo 0 >/proc/sys/vm/page-cluster # no swap read-ahead, as usual for zram
swapdev=$(ozramctl setup --size ${swap_mb}M --swap)
swapn=$(device_number "$swapdev")
echo "   swap is on $swapdev:"
indent </proc/swaps

say "3. memhog asks for $hog_mb MiB, 1.5 times the memory, fills it with a mix of pages and checks every byte"
memhog --mb $hog_mb --seed 2026 &
hog=$!
# Show the device while it holds the most: once a third of the hog is in swap.
while kill -0 $hog 2>/dev/null; do
	used=$(awk -v d=$swapdev '$1 == d { print $4 }' /proc/swaps)
	if [ "${used:-0}" -gt $((hog_mb * 1024 / 3)) ]; then
		echo "   with $((used / 1024)) MiB swapped out, while memhog runs:"
		story $swapn
		ring_story
		break
	fi
	sleep 1
done
if wait $hog; then
	echo "   memhog verified every byte it read back from swap."
else
	echo "   FAILED: memhog found wrong data or could not run"
	exit 1
fi
ring_settle $swapn
echo "   After memhog ended (its pages left swap with it), 'ozramctl stats $swapdev':"
ozramctl stats $swapdev | indent

say "4. A second device, added with 'ozramctl setup --size 128M', carries ext4"
fsdev=$(ozramctl setup --size 128M)
fsn=$(device_number "$fsdev")
echo "   ozramctl added $fsdev (no free device was left)"
mke2fs -q -F -b 4096 -t ext4 $fsdev
mkdir -p /mnt/demo
mount -t ext4 $fsdev /mnt/demo
cp -a $MODDIR/kernel /mnt/demo/modules
mkdir /mnt/demo/pages
for kind in text ints zero random; do
	pagegen --kind $kind --pages 512 --seed 7 >/mnt/demo/pages/$kind.bin
done
sync
ring_settle $fsn
echo "   copied $(find /mnt/demo -type f | wc -l) files, $(du -sk /mnt/demo | cut -f1) KiB:"
df -h /mnt/demo | tail -n 1 | indent
story $fsn
ring_story

say "5. The files read back the same after a remount"
(cd /mnt/demo && find . -type f | sort | xargs md5sum) >/tmp/sums
umount /mnt/demo
echo 3 >/proc/sys/vm/drop_caches
mount -t ext4 $fsdev /mnt/demo
if (cd /mnt/demo && md5sum -c -s /tmp/sums); then
	echo "   all $(wc -l </tmp/sums) files verified byte for byte"
else
	echo "   FAILED: files differ after the remount"
	exit 1
fi

say "6. ozramd stops: the module takes the ring back and compresses in the kernel"
kernel_before=$(backend_field kernel_pages $fsn)
stop_agent
echo "   'ozramctl agent' after SIGTERM:"
ozramctl agent | indent
for kind in text ints; do
	pagegen --kind $kind --pages 1024 --seed 8 >/mnt/demo/pages/$kind-2.bin
done
sync
(cd /mnt/demo/pages && md5sum text-2.bin ints-2.bin) >/tmp/sums2
umount /mnt/demo
echo 3 >/proc/sys/vm/drop_caches
mount -t ext4 $fsdev /mnt/demo
if (cd /mnt/demo/pages && md5sum -c -s /tmp/sums2); then
	echo "   2048 more pages written without the agent read back intact"
else
	echo "   FAILED: files written without the agent differ"
	exit 1
fi
umount /mnt/demo
echo "   pages of ${fsdev#/dev/} stored by the kernel's own LZ4: $kernel_before with the agent," \
	"$(backend_field kernel_pages $fsn) now"

say "7. 'ozramctl stats': every device and the total"
ozramctl stats | indent

say "8. Clean up: swapoff, reset, hot_remove"
swapoff $swapdev
echo 1 >$(sysdir $swapn)/reset
echo 1 >$(sysdir $fsn)/reset
echo $fsn >$CONTROL/hot_remove
echo "   done: $(ls -d /sys/block/$DEV* | wc -l) device left, empty"
