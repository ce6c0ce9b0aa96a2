# vm: --mem 256
# vm-agent: no it checks backend_stat for the in-kernel path (kernel_pages counts, agent detached)
# The sysfs ABI of one device and its errno values, value by value, as zram
# defines them (Documentation/admin-guide/blockdev/zram.rst).

S=$(sysdir 0)
D=$(dev 0)

step "before initialization"
for f in disksize initstate reset comp_algorithm mem_limit mem_used_max max_comp_streams \
	compact idle mm_stat io_stat debug_stat; do
	[ -e "$S/$f" ] || fail "$S/$f is missing"
done
check_eq "$(cat $S/initstate)" 0 "initstate of a new device"
check_eq "$(cat $S/disksize)" 0 "disksize of a new device"
expect_errno EINVAL sysfs-write $S/disksize junk
expect_errno EINVAL sysfs-write $S/disksize 0
expect_errno EINVAL sysfs-write $S/comp_algorithm no-such-algorithm
expect_errno EINVAL sysfs-write $S/compact 1
expect_errno EINVAL sysfs-write $S/idle all
grep -q 'lz4' $S/comp_algorithm || fail "lz4 not offered: $(cat $S/comp_algorithm)"
sysfs_set $S/comp_algorithm lz4
case $(cat $S/comp_algorithm) in
*"[lz4]"*) note "ok: comp_algorithm = '$(cat $S/comp_algorithm)'" ;;
*) fail "comp_algorithm does not show [lz4]: $(cat $S/comp_algorithm)" ;;
esac

step "initialization"
sysfs_set $S/disksize 64M
check_eq "$(cat $S/initstate)" 1 "initstate after disksize"
check_eq "$(cat $S/disksize)" 67108864 "disksize in bytes"
check_eq "$(blockdev --getsize64 $D)" 67108864 "block device size"
expect_errno EBUSY sysfs-write $S/disksize 32M
expect_errno EBUSY sysfs-write $S/comp_algorithm lz4
cpus=$(cat $S/max_comp_streams)
check_cmp "$cpus" -ge 1 "max_comp_streams"
sysfs_set $S/max_comp_streams 2

step "stat files"
# zram 6.1's fields, no more: ozram's own numbers are in backend_stat.
check_zram_stat_files $S
check_eq "$(stat_field $S/mm_stat orig_data_size)" 0 "orig_data_size of an empty device"

step "mem_limit takes sizes with suffixes"
sysfs_set $S/mem_limit 4M
check_eq "$(stat_field $S/mm_stat mem_limit)" 4194304 "mem_limit 4M"
sysfs_set $S/mem_limit 1G
check_eq "$(stat_field $S/mm_stat mem_limit)" 1073741824 "mem_limit 1G"
sysfs_set $S/mem_limit 12345
check_eq "$(stat_field $S/mm_stat mem_limit)" 16384 "mem_limit rounded up to pages"
# As memparse(): the E of a hexadecimal number is a digit, not exa.
sysfs_set $S/mem_limit 0x1E
check_eq "$(stat_field $S/mm_stat mem_limit)" 4096 "mem_limit 0x1E (30 bytes, a page)"
expect_errno EINVAL sysfs-write $S/mem_limit xyz
sysfs_set $S/mem_limit 0
check_eq "$(stat_field $S/mm_stat mem_limit)" 0 "mem_limit 0 (no limit)"

step "writing data moves the counters"
pagegen --pages 1024 --kind text >/tmp/text.bin
dd if=/tmp/text.bin of=$D bs=4096 oflag=direct 2>/dev/null
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((1024 * 4096)) "orig_data_size after 1024 pages"
compr=$(stat_field $S/mm_stat compr_data_size)
check_cmp "$compr" -gt 0 "compr_data_size"
check_cmp "$compr" -lt $((1024 * 4096 * 3 / 4)) "text pages compress by a quarter at least"
used=$(stat_field $S/mm_stat mem_used_total)
check_cmp "$used" -gt 0 "mem_used_total"
check_cmp "$(stat_field $S/mm_stat mem_used_max)" -ge "$used" "mem_used_max >= mem_used_total"
if [ "$DEV" = ozram ]; then
	# backend_stat counts the pages stored now, by the path that stored them;
	# without an agent, compressible pages go through the in-kernel LZ4.
	cat $S/backend_stat
	check_eq "$(backend_field kernel_pages)" 1024 "backend_stat kernel_pages after 1024 text pages"
	check_eq "$(backend_field agent)" detached "backend_stat agent"
fi

step "mem_used_max resets with 0 only"
expect_errno EINVAL sysfs-write $S/mem_used_max 5
dd if=/dev/zero of=$D bs=4096 count=1024 oflag=direct 2>/dev/null
sysfs_set $S/mem_used_max 0
check_eq "$(stat_field $S/mm_stat mem_used_max)" "$(stat_field $S/mm_stat mem_used_total)" \
	"mem_used_max after reset equals mem_used_total"
check_eq "$(stat_field $S/mm_stat same_pages)" 1024 "zero pages are same_pages"

step "compact and idle"
sysfs_set $S/compact 1
sysfs_set $S/idle all
expect_errno EINVAL sysfs-write $S/idle junk

step "backend_stat"
if [ "$DEV" = zram ]; then
	note "SKIPPED: zram has no backend_stat (ozram only)"
else
	cat $S/backend_stat
	check_eq "$(backend_field kernel_pages)" 0 "backend_stat kernel_pages after the text pages were overwritten"
	check_eq "$(backend_field agent_cpu_pages)" 0 "backend_stat agent_cpu_pages without an agent"
	# One number a line, each once: mm_stat's are not repeated here.
	check_eq "$(cut -d: -f1 $S/backend_stat | sort | uniq -d)" "" "no name twice in backend_stat"
	check_eq "$(grep -c -e '^same_pages:' -e '^huge_pages:' $S/backend_stat)" 0 \
		"mm_stat's numbers are not in backend_stat"
fi

step "reset"
exec 3<$D
expect_errno EBUSY sysfs-write $S/reset 1
exec 3<&-
sleep 30 3<$D &
holder=$!
sleep 1
expect_errno EBUSY sysfs-write $S/reset 1
kill $holder
wait $holder 2>/dev/null || true
expect_errno EINVAL sysfs-write $S/reset junk
sysfs_set $S/reset 1
check_eq "$(cat $S/initstate)" 0 "initstate after reset"
check_eq "$(cat $S/disksize)" 0 "disksize after reset"
check_eq "$(stat_field $S/mm_stat orig_data_size)" 0 "orig_data_size after reset"

step "the device can be initialized again"
dev_setup 0 16M
dd if=/tmp/text.bin of=$D bs=4096 count=100 2>/dev/null
sync
check_eq "$(dd if=$D bs=4096 count=100 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if=/tmp/text.bin bs=4096 count=100 2>/dev/null | md5sum | cut -d' ' -f1)" "data after re-initialization"
dev_reset 0
