# vm: --mem 512 --no-module --timeout 900 --program /bin/bash --program /usr/bin/bc
# vm: --program /sbin/mkswap --program /lib/systemd/system-generators/zram-generator
# vm: --program /lib/systemd/systemd-makefs
# The clients that set zram up, run unmodified against ozram.ko compat=1:
#  * the kernel's own zram selftests (Linux 6.1, tools/testing/selftests/zram,
#    from Debian's linux-source-6.1): no FAIL line, both tests PASS;
#  * util-linux zramctl --algorithm zstd, lzo-rle and lz4hc: the device has
#    that algorithm selected and keeps every byte, and its stat files hold
#    zram 6.1's fields exactly;
#  * Debian's systemd-zram-generator (1.1.2), --setup-device zram0 with
#    compression-algorithm set to lzo-rle, zstd, lz4hc and lzo: the device
#    has that algorithm selected, and the swap area that systemd-makefs made
#    with util-linux mkswap can be switched on.
# LTP's zram01-03 are not run: Debian 12 does not package LTP.
# With the agent (tests/vm/run --agent cpu) ozramd compresses throughout.
# Runs on stock zram too (DEV=zram), which checks the scenario itself.

for p in bash bc mkswap zram-generator systemd-makefs; do
	[ -x /usr/bin/$p ] || fail "no $p in this VM: tools/install-deps installs it on the host"
done
[ -x /opt/selftests/zram/zram.sh ] ||
	fail "no zram selftests in this VM: they come from Debian's linux-source-6.1 (tools/install-deps)"
# Where the clients expect what they run: the selftests' #!/bin/bash, and
# zram-generator's /lib/systemd/systemd-makefs.  The clients themselves are
# not touched.
[ -e /bin/bash ] || ln -s /usr/bin/bash /bin/bash
mkdir -p /lib/systemd
ln -sf /usr/bin/systemd-makefs /lib/systemd/systemd-makefs
# The selftests make ext4 with mkfs.ext4, which e2fsprogs provides as a link.
ln -sf /usr/sbin/mke2fs /usr/sbin/mkfs.ext4

if [ "$DEV" = zram ]; then
	load_ozram num_devices=1
else
	load_ozram compat=1 num_devices=1
fi
start_agent || fail "cannot start ozramd"
[ -d /sys/class/zram-control ] || fail "no /sys/class/zram-control"

# selected N: the algorithm zramN's comp_algorithm shows in brackets.
selected() { grep -o '\[[a-z0-9-]*\]' /sys/block/zram$1/comp_algorithm | tr -d '[]'; }

step "the kernel's zram selftests (Linux 6.1), unmodified"
# bash runs them and searches PATH itself: util-linux mkswap.
status=0
(cd /opt/selftests/zram && PATH=/usr/sbin:/usr/bin:/sbin:/bin bash ./zram.sh) >/tmp/selftests.log 2>&1 ||
	status=$?
cat /tmp/selftests.log
check_eq "$status" 0 "exit status of zram.sh"
if grep -n 'FAIL' /tmp/selftests.log; then
	fail "the zram selftests printed a FAIL line (above)"
fi
for t in zram01 zram02; do
	grep -q "^$t : \[PASS\]$" /tmp/selftests.log || fail "$t did not PASS"
	note "ok: $t : [PASS]"
done

mkdir -p /etc/systemd
for alg in lzo-rle zstd lz4hc lzo; do
	step "systemd-zram-generator --setup-device zram0, compression-algorithm = $alg"
	cat >/etc/systemd/zram-generator.conf <<-CONF
	[zram0]
	zram-size = 64
	compression-algorithm = $alg
	CONF
	status=0
	zram-generator --setup-device zram0 >/tmp/generator.log 2>&1 || status=$?
	cat /tmp/generator.log
	check_eq "$status" 0 "exit status of zram-generator --setup-device zram0"
	check_eq "$(selected 0)" "$alg" "comp_algorithm of zram0"
	check_eq "$(cat /sys/block/zram0/disksize)" $((64 << 20)) "disksize of zram0"
	swapon /dev/zram0 || fail "swapon /dev/zram0 failed"
	grep -q '^/dev/zram0 ' /proc/swaps || fail "/dev/zram0 is not in /proc/swaps"
	note "ok: /dev/zram0 is swap: $(grep '^/dev/zram0 ' /proc/swaps | tr -s ' ')"
	swapoff /dev/zram0 || fail "swapoff /dev/zram0 failed"
	zram-generator --reset-device zram0 || fail "zram-generator --reset-device zram0 failed"
	check_eq "$(cat /sys/block/zram0/disksize)" 0 "disksize of zram0 after --reset-device"
done

# zramctl --reset removes the device it found (hot_remove), zram0 too: last.
pagegen --pages 4096 --seed 23 >/tmp/m.bin
sum=$(md5 /tmp/m.bin)
for alg in zstd lzo-rle lz4hc; do
	step "util-linux zramctl --algorithm $alg"
	d=$(zramctl --find --size 32M --algorithm $alg) || fail "zramctl --find --algorithm $alg failed"
	n=${d#/dev/zram}
	check_eq "$(selected $n)" "$alg" "comp_algorithm of $d"
	zramctl --output NAME,ALGORITHM --noheadings >/tmp/list || fail "zramctl list failed"
	grep -q "^$d  *$alg\$" /tmp/list || fail "zramctl does not list $d with $alg: $(cat /tmp/list)"
	dd if=/tmp/m.bin of=$d bs=1M oflag=direct 2>/dev/null || fail "write to $d failed"
	ring_settle /sys/block/zram$n
	sync
	echo 3 >/proc/sys/vm/drop_caches
	check_eq "$(dd if=$d bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$sum" \
		"data on $d in $alg"
	# What zramctl and scripts read: zram's files, zram's fields.
	check_zram_stat_files /sys/block/zram$n
	zramctl --reset $d || fail "zramctl --reset $d failed"
done

step "unload"
stop_agent
rmmod "$DEV" || fail "rmmod $DEV failed"
