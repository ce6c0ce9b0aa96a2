# vm: --mem 512
# An ext4 file system on the device: files of many sizes and kinds survive
# unmount, fsck and mount; fstrim gives freed blocks back to the device.

S=$(sysdir 0)
D=$(dev 0)
TREE=/tmp/tree

step "a tree of files: generated pages of every kind, odd sizes, and kernel modules"
mkdir -p $TREE/gen $TREE/modules
i=0
for kind in mixed text ints random zero same mixed mixed; do
	for pages in 1 3 17 64; do
		i=$((i + 1))
		mkdir -p $TREE/gen/$kind
		# Odd sizes, so that the last block is partial.
		pagegen --kind $kind --seed $i --pages $pages | head -c $((pages * 4096 - i * 37)) \
			>$TREE/gen/$kind/file-$i
	done
done
pagegen --kind heap --pages 300 >$TREE/gen/heap.bin
cp -a $MODDIR/kernel $TREE/modules/
: >$TREE/empty
(cd $TREE && find . -type f | sort | xargs md5sum) >/tmp/sums
files=$(wc -l </tmp/sums)
check_cmp "$files" -ge 40 "files in the tree"
note "$(du -sk $TREE | cut -f1) KiB in $files files"

step "mke2fs -t ext4 and mount"
dev_setup 0 128M
mke2fs -q -F -b 4096 -t ext4 $D || fail "mke2fs failed"
mkdir -p /mnt/fs
mount -t ext4 $D /mnt/fs || fail "mount ext4 failed"
grep " /mnt/fs ext4 " /proc/mounts >/dev/null || fail "not mounted as ext4"

step "copy the tree, sync, unmount"
cp -a $TREE/. /mnt/fs/
sync
umount /mnt/fs
stored=$(stat_field $S/mm_stat orig_data_size)
check_cmp "$stored" -gt $((1024 * 1024)) "orig_data_size after the copy"
note "mm_stat: $(cat $S/mm_stat)"

step "fsck finds a clean file system"
e2fsck -f -n $D || fail "e2fsck reports errors"

step "mount again and verify every file"
echo 3 >/proc/sys/vm/drop_caches
mount -t ext4 $D /mnt/fs || fail "second mount failed"
(cd /mnt/fs && md5sum -c -s /tmp/sums) || fail "checksums differ after remount"
note "ok: $files files verified"

step "delete files and trim: the device frees their pages"
rm -rf /mnt/fs/modules
sync
fstrim /mnt/fs || fail "fstrim failed"
after=$(stat_field $S/mm_stat orig_data_size)
check_cmp "$after" -lt "$stored" "orig_data_size after deleting and trimming"
(cd /mnt/fs && grep -v ' ./modules/' /tmp/sums | md5sum -c -s) || fail "remaining files differ after trim"

umount /mnt/fs
dev_reset 0
