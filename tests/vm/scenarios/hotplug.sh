# vm: --mem 256
# Devices added and removed at run time through the control class, EBUSY for
# a device in use, and a memory limit that fills up without losing what was
# stored before it.

step "hot_add returns new ids"
check_eq "$(ls -d /sys/block/$DEV* | wc -l)" 1 "devices at start"
id1=$(cat $CONTROL/hot_add)
id2=$(cat $CONTROL/hot_add)
check_eq "$id1" 1 "first hot_add id"
check_eq "$id2" 2 "second hot_add id"
[ -b "$(dev $id1)" ] && [ -b "$(dev $id2)" ] || fail "no block devices for $id1 and $id2"
[ -d "$(sysdir $id2)" ] || fail "no sysfs directory for device $id2"

step "a hot-added device works"
dev_setup $id1 32M
pagegen --pages 512 --seed 5 >/tmp/p.bin
dd if=/tmp/p.bin of=$(dev $id1) bs=4096 oflag=direct 2>/dev/null
check_eq "$(dd if=$(dev $id1) bs=4096 count=512 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/p.bin)" "data on device $id1"

step "hot_remove of an open device is refused"
exec 3<$(dev $id1)
expect_errno EBUSY sysfs-write $CONTROL/hot_remove $id1
exec 3<&-

step "reset and hot_remove of a mounted device are refused"
dev_setup $id2 64M
mke2fs -q -F -b 4096 -t ext4 $(dev $id2)
mkdir -p /mnt/x
mount -t ext4 $(dev $id2) /mnt/x
expect_errno EBUSY sysfs-write $(sysdir $id2)/reset 1
expect_errno EBUSY sysfs-write $CONTROL/hot_remove $id2
check_eq "$(cat $(sysdir $id2)/initstate)" 1 "initstate of the mounted device"
umount /mnt/x

step "hot_remove works, also on an initialized device"
sysfs_set $CONTROL/hot_remove $id1
sysfs_set $CONTROL/hot_remove $id2
[ -e "$(sysdir $id1)" ] && fail "$(sysdir $id1) still exists"
[ -e "$(dev $id2)" ] && fail "$(dev $id2) still exists"
expect_errno ENODEV sysfs-write $CONTROL/hot_remove $id1
expect_errno ENODEV sysfs-write $CONTROL/hot_remove 999
expect_errno EINVAL sysfs-write $CONTROL/hot_remove junk
check_eq "$(ls -d /sys/block/$DEV* | wc -l)" 1 "devices after hot_remove"

step "ids are reused"
id3=$(cat $CONTROL/hot_add)
check_eq "$id3" 1 "hot_add after removal reuses the lowest free id"

step "mem_limit: writes fail cleanly when it is reached, earlier data stays"
D=$(dev $id3)
S=$(sysdir $id3)
dev_setup $id3 64M
pagegen --pages 256 --kind text --seed 8 >/tmp/before.bin
dd if=/tmp/before.bin of=$D bs=4096 oflag=direct 2>/dev/null
sysfs_set $S/mem_limit 2M
dd if=/dev/urandom of=/tmp/random.bin bs=1M count=8 2>/dev/null
if dd if=/tmp/random.bin of=$D bs=4096 seek=1024 oflag=direct 2>/tmp/dd.err; then
	fail "8 MiB of random data fit under a 2 MiB mem_limit"
fi
note "dd failed as expected: $(head -n 1 /tmp/dd.err)"
grep -q -E 'Input/output error|No space left' /tmp/dd.err || fail "unexpected dd error: $(cat /tmp/dd.err)"
check_cmp "$(stat_field $S/io_stat failed_writes)" -gt 0 "failed_writes"
check_cmp "$(stat_field $S/mm_stat mem_used_total)" -le $((3 * 1024 * 1024)) "mem_used_total stays near the limit"
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(dd if=$D bs=4096 count=256 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/before.bin)" "data written before the limit"

step "raising the limit lets writes succeed again"
sysfs_set $S/mem_limit 0
dd if=/tmp/random.bin of=$D bs=4096 seek=1024 oflag=direct 2>/dev/null || fail "write after lifting the limit"
check_eq "$(dd if=$D bs=4096 skip=1024 count=2048 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/random.bin)" "data written after lifting the limit"
sysfs_set $CONTROL/hot_remove $id3
