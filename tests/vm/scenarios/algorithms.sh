# vm: --mem 384
# comp_algorithm lists and takes zram's algorithms, with zram's format and
# errnos; every algorithm stores and returns every byte, through the agent
# when one is attached; the choice survives a reset on 6.1, and a reset
# puts the default back on 6.12, as zram's does.  Runs on stock zram too
# (DEV=zram), over the algorithms it offers: 6.1's lists deflate only when
# selected, Debian's 6.12 has no lzo, lzo-rle or 842.

S=$(sysdir 0)
D=$(dev 0)

step "the list and the default"
list=$(cat $S/comp_algorithm)
note "comp_algorithm: '$list'"
default=$(echo "$list" | grep -o '\[[a-z0-9-]*\]')
algorithms="lzo lzo-rle lz4 lz4hc zstd deflate"
if [ "$DEV" = ozram ]; then
	check_eq "$list" "lzo lzo-rle [lz4] lz4hc zstd deflate " "comp_algorithm before any choice"
else
	algorithms="$(echo "$list" | tr -d '[]' | sed 's/ deflate//; s/ 842//') deflate"
fi
for a in $algorithms; do
	[ $a = deflate ] || echo " $list " | tr -d '[]' | grep -q " $a " || fail "$a is not offered"
done
major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)
reset_keeps=1
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 12 ]; }; then
	reset_keeps=0
fi

step "unknown names and initialised devices are refused"
expect_errno EINVAL sysfs-write $S/comp_algorithm foo
expect_errno EINVAL sysfs-write $S/comp_algorithm ""
expect_errno EINVAL sysfs-write $S/comp_algorithm "lz4 zstd"
expect_errno EINVAL sysfs-write $S/comp_algorithm aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa

step "a value too long for an algorithm's name"
# CRYPTO_MAX_ALG_NAME is 128.  From 6.2 zram says E2BIG for a value of 128
# bytes or more, its newline counted, before it looks the name up; 6.1's
# cuts the value short and finds no such algorithm.
long_errno=EINVAL
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 2 ]; }; then
	long_errno=E2BIG
fi
name127=$(printf '%127s' '' | tr ' ' a)
expect_errno EINVAL sysfs-write -n $S/comp_algorithm "$name127"
expect_errno $long_errno sysfs-write $S/comp_algorithm "$name127"
expect_errno $long_errno sysfs-write -n $S/comp_algorithm "${name127}a"
expect_errno $long_errno sysfs-write -n $S/comp_algorithm "lz4$name127"
check_eq "$(cat $S/comp_algorithm | grep -o '\[[a-z0-9-]*\]')" "$default" "the algorithm after the refusals"
pagegen --pages 2048 --seed 81 >/tmp/mixed.bin
sum=$(md5 /tmp/mixed.bin)

for a in $algorithms; do
	step "$a stores every byte"
	after_reset=$default
	[ $reset_keeps = 1 ] && after_reset="[$a]"
	expect_errno OK sysfs-write $S/comp_algorithm $a
	echo 16M >$S/disksize || fail "disksize with $a"
	check_eq "$(cat $S/comp_algorithm | grep -o '\[[a-z0-9-]*\]')" "[$a]" "selected"
	expect_errno EBUSY sysfs-write $S/comp_algorithm lz4
	dd if=/tmp/mixed.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write with $a"
	check_eq "$(dd if=$D bs=1M count=8 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$sum" \
		"read back with $a, maybe while staged"
	ring_settle 0
	sync
	echo 3 >/proc/sys/vm/drop_caches
	check_eq "$(dd if=$D bs=1M count=8 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$sum" \
		"read back with $a"
	echo "$a $(stat_field $S/mm_stat compr_data_size)" >>/tmp/sizes
	[ "$DEV" = ozram ] && note "backend_stat: $(tr '\n' ' ' <$S/backend_stat | cut -c1-200)"
	sysfs_set $S/reset 1
	check_eq "$(cat $S/comp_algorithm | grep -o '\[[a-z0-9-]*\]')" "$after_reset" "the choice after a reset"
done
cat /tmp/sizes
lz4=$(awk '$1 == "lz4" { print $2 }' /tmp/sizes)
zstd=$(awk '$1 == "zstd" { print $2 }' /tmp/sizes)
check_cmp "$zstd" -lt "$lz4" "zstd stores fewer bytes than lz4"
sysfs_set $S/comp_algorithm lz4
