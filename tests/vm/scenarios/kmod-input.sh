# vm: --mem 256
# Malformed and hostile input to every writable file of the module: each is
# refused with its errno and changes nothing; stored data survives them all;
# writes over mem_limit fail without losing the data already stored; the
# module unloads and loads again cleanly.

if [ "$DEV" != ozram ]; then
	note "SKIPPED: checks ozram's own limits and messages (DEV=$DEV)"
	exit 0
fi

S=$(sysdir 0)
D=$(dev 0)

step "disksize refuses what it cannot hold"
expect_errno EINVAL sysfs-write $S/disksize ""
expect_errno EINVAL sysfs-write $S/disksize "   "
expect_errno EINVAL sysfs-write $S/disksize 16T
expect_errno EINVAL sysfs-write $S/disksize 1E
expect_errno ENOMEM sysfs-write $S/disksize 8T
# Stricter than zram, whose memparse() wraps and ignores what follows:
expect_errno EINVAL sysfs-write $S/disksize 18446744073709551617
expect_errno EINVAL sysfs-write $S/disksize 17179869184E
expect_errno EINVAL sysfs-write $S/disksize 1Gjunk
expect_errno EINVAL sysfs-write $S/disksize "4M 4M"
expect_errno EINVAL sysfs-write -e $S/disksize '4M\0x'
# As zram's memparse(): no sign.
expect_errno EINVAL sysfs-write $S/disksize +4M
check_eq "$(cat $S/initstate)" 0 "initstate after refused sizes"
check_eq "$(cat $S/disksize)" 0 "disksize after refused sizes"

step "other files before initialization"
expect_errno EINVAL sysfs-write $S/reset 0
expect_errno ERANGE sysfs-write $S/reset 65536
expect_errno EINVAL sysfs-write $S/reset -1
expect_errno OK sysfs-write $S/reset 1
expect_errno EINVAL sysfs-write $S/comp_algorithm ""
expect_errno EINVAL sysfs-write $S/comp_algorithm lz5
expect_errno EINVAL sysfs-write $S/comp_algorithm "lz4 lz4"
expect_errno EINVAL sysfs-write $S/max_comp_streams many
expect_errno EINVAL sysfs-write $S/mem_used_max ""
expect_errno EINVAL sysfs-write $S/mem_limit ""
expect_errno EINVAL sysfs-write $S/mem_limit +4M
expect_errno OK sysfs-write $S/mem_used_max 0
expect_errno EINVAL sysfs-write $S/compact 1
expect_errno EINVAL sysfs-write $S/idle all
expect_errno EINVAL sysfs-write $S/idle 60
for f in mm_stat io_stat debug_stat backend_stat; do
	cat $S/$f >/dev/null || fail "cannot read $f of an uninitialized device"
done
check_eq "$(ozram-genl-dump stats 0 | tail -n 1)" OK "netlink stats of an uninitialized device"

step "data written before the hostile input"
dev_setup 0 8M
pagegen --pages 512 --kind mixed --seed 5 >/tmp/mixed.bin
dd if=/tmp/mixed.bin of=$D bs=4096 oflag=direct 2>/dev/null
sum=$(md5 /tmp/mixed.bin)
check_eq "$(dd if=$D bs=4096 count=512 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$sum" "data written"
expect_errno OK sysfs-write $S/idle all
ring_settle 0 # with an agent, staged pages would still change mm_stat
expect_errno OK sysfs-write $S/compact 1
mm_before=$(cat $S/mm_stat)

step "hostile input to an initialized device changes nothing"
expect_errno EBUSY sysfs-write $S/disksize 4M
# As zram: busy, whatever the size asked for.
expect_errno EBUSY sysfs-write $S/disksize 32T
expect_errno EINVAL sysfs-write $S/disksize junk
expect_errno EBUSY sysfs-write $S/comp_algorithm zstd
expect_errno EBUSY sysfs-write $S/comp_algorithm lz4
expect_errno EINVAL sysfs-write $S/reset 0
expect_errno EINVAL sysfs-write $S/reset junk
expect_errno EINVAL sysfs-write $S/mem_used_max -1
expect_errno EINVAL sysfs-write $S/mem_limit "-"
expect_errno EINVAL sysfs-write $S/mem_limit 18446744073709555712
expect_errno EINVAL sysfs-write $S/mem_limit 18446744073709551615
expect_errno EINVAL sysfs-write $S/mem_limit 1Mjunk
expect_errno EINVAL sysfs-write $S/idle alll
# A NUL byte ends what the parsers read: refused whole, nothing done.
expect_errno EINVAL sysfs-write -e $S/reset '1\0x'
expect_errno EINVAL sysfs-write -e $S/mem_limit '1M\0x'
expect_errno EINVAL sysfs-write -e $S/comp_algorithm 'lz4\0x'
expect_errno EINVAL sysfs-write -e $S/max_comp_streams '2\0x'
expect_errno EINVAL sysfs-write -e $S/mem_used_max '0\0x'
expect_errno EINVAL sysfs-write -e $S/compact '1\0x'
expect_errno EINVAL sysfs-write -e $S/idle 'all\0x'
check_eq "$(cat $S/initstate)" 1 "initstate after the hostile input"
check_eq "$(stat_field $S/mm_stat mem_limit)" 0 "mem_limit after the hostile input"
check_eq "$(cat $S/mm_stat)" "$mm_before" "mm_stat unchanged"
check_eq "$(dd if=$D bs=4096 count=512 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$sum" "data after the hostile input"

step "hot_remove refuses bad ids and open devices"
expect_errno EINVAL sysfs-write $CONTROL/hot_remove -1
expect_errno EINVAL sysfs-write $CONTROL/hot_remove abc
expect_errno ERANGE sysfs-write $CONTROL/hot_remove 99999999999
expect_errno ENODEV sysfs-write $CONTROL/hot_remove 255
expect_errno EINVAL sysfs-write -e $CONTROL/hot_remove '0\0x'
[ -e $S ] || fail "hot_remove of '0\\0x' removed ozram0"
sleep 30 3<$D &
holder=$!
sleep 1
expect_errno EBUSY sysfs-write $CONTROL/hot_remove 0
kill $holder
wait $holder 2>/dev/null || true
check_eq "$(dd if=$D bs=4096 count=512 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$sum" "data after a refused hot_remove"

step "mem_limit: writes over the limit fail, stored data stays"
dev_reset 0
dev_setup 0 32M
pagegen --pages 2048 --kind random --seed 9 >/tmp/random.bin
sysfs_set $S/mem_limit 1M
# Random pages are stored raw: 1 MiB holds at most 256 of them.
if dd if=/tmp/random.bin of=$D bs=4096 oflag=direct 2>/dev/null; then
	fail "writing 8 MiB of random data under a 1 MiB limit succeeded"
fi
failed=$(stat_field $S/io_stat failed_writes)
check_cmp "$failed" -ge 1 "failed_writes"
# With the agent, stores go on after dd failed: the agent's results, and the
# parked pages, which the kernel compresses once the ring has stayed full
# of pages held at the limit.  Each may hold one page over the limit for a
# moment (allocate, compare, free, as zram does); at rest none is over.
ring_steady 0
used=$(stat_field $S/mm_stat mem_used_total)
check_cmp "$used" -le 1048576 "mem_used_total stays within mem_limit"
stored=$(($(stat_field $S/mm_stat orig_data_size) / 4096))
check_cmp "$stored" -ge 1 "pages stored before the limit"
# The pages that made it in read back intact, the rest read as zeroes.
check_eq "$(dd if=$D bs=4096 count=$stored iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if=/tmp/random.bin bs=4096 count=$stored 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"the $stored pages stored under the limit"
# Zero pages cost no memory: they still go in.
dd if=/dev/zero of=$D bs=4096 count=16 seek=4000 oflag=direct 2>/dev/null ||
	fail "same-filled pages refused under mem_limit"
sysfs_set $S/mem_limit 0
dd if=/tmp/random.bin of=$D bs=4096 oflag=direct 2>/dev/null || fail "write after lifting the limit"
check_eq "$(dd if=$D bs=4096 count=2048 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/random.bin)" "data after lifting the limit"
ring_settle 0
check_eq "$(stat_field $S/mm_stat huge_pages)" 2048 "random pages stored raw"

step "unload with devices in every state, then load again"
id=$(cat $CONTROL/hot_add)
check_eq "$id" 1 "hot_add id"
unload_ozram
[ -e $S ] && fail "$S still exists after rmmod"
[ -e $CONTROL ] && fail "$CONTROL still exists after rmmod"
ozram-genl-dump devices >/tmp/devs.txt 2>&1 && fail "netlink family still registered after rmmod"
load_ozram num_devices=3
check_eq "$(ozram-genl-dump devices | grep -c '^id=')" 3 "three devices after reload"
expect_errno OK sysfs-write $CONTROL/hot_remove 2
check_eq "$(cat $S/initstate)" 0 "a reloaded device starts uninitialized"
dev_setup 0 8M
dd if=/tmp/mixed.bin of=$D bs=4096 oflag=direct 2>/dev/null
check_eq "$(dd if=$D bs=4096 count=512 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$sum" "data after reload"
unload_ozram
load_ozram_deps
insmod $OZRAM_KO num_devices=257 2>/dev/null && fail "num_devices=257 was accepted"
dmesg | grep -q "num_devices 257 is more than the maximum" || fail "no message for num_devices=257"
[ -e $CONTROL ] && fail "$CONTROL exists after a refused load"
load_ozram
check_eq "$(ozram-genl-dump devices | grep -c '^id=')" 1 "one device by default"
