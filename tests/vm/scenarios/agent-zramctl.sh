# vm: --mem 384 --no-module --agent cpu
# compat=1 (the operator's request): ozram.ko names its disks zramN and its
# control class zram-control, so util-linux zramctl sets a device up, lists
# it and resets it unchanged, here with the agent compressing.  Loading
# with compat=1 is refused, with a clear log line, while stock zram is
# loaded.

command -v zramctl >/dev/null || fail "no zramctl in this VM (util-linux on the host)"

step "compat=1 is refused while zram is loaded"
modprobe zram || fail "cannot load zram"
load_ozram_deps
if insmod $OZRAM_KO compat=1 2>/tmp/insmod.err; then
	fail "ozram.ko compat=1 loaded next to zram"
fi
dmesg | grep -q 'compat=1 needs the names of zram, but the zram module is loaded' ||
	fail "no log line explaining the refusal"
rmmod zram || fail "rmmod zram failed"

step "compat=1: zram names"
load_ozram compat=1 num_devices=1
[ -b /dev/zram0 ] || fail "no /dev/zram0"
[ -d /sys/class/zram-control ] || fail "no /sys/class/zram-control"
[ -e /sys/block/ozram0 ] && fail "/sys/block/ozram0 exists in compat mode"
check_eq "$(cat /sys/module/ozram/parameters/compat)" Y "compat parameter"
start_agent || fail "cannot start ozramd"

step "zramctl sets up, lists and resets a device"
d=$(zramctl --find --size 64M --algorithm lz4) || fail "zramctl --find failed"
note "zramctl --find: $d"
n=${d#/dev/zram}
zramctl --output NAME,ALGORITHM,DISKSIZE --bytes --noheadings >/tmp/list || fail "zramctl list failed"
cat /tmp/list
grep -q "^$d  *lz4  *67108864" /tmp/list || fail "zramctl does not list $d with lz4 and 64 MiB"
pagegen --pages 4096 --seed 17 >/tmp/m.bin
dd if=/tmp/m.bin of=$d bs=1M oflag=direct 2>/dev/null || fail "write to $d failed"
check_eq "$(dd if=$d bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$(md5 /tmp/m.bin)" "data on $d"
ring_settle /sys/block/zram$n
note "backend_stat: $(tr '\n' ' ' </sys/block/zram$n/backend_stat)"
check_cmp "$(sed -n 's/^agent_cpu_pages: //p' /sys/block/zram$n/backend_stat)" -gt 0 "agent_cpu on $d"

step "ozramctl under zram's names"
ozramctl devices | tee /tmp/devices
grep -q "^zram$n " /tmp/devices || fail "ozramctl devices does not list zram$n"
ozramctl stats zram$n >/tmp/stats || fail "ozramctl stats zram$n failed"
grep -q "^zram$n" /tmp/stats || fail "ozramctl stats zram$n does not name zram$n"
ozramctl stats -j /dev/zram$n | grep -q '"orig_data_bytes":16777216' ||
	fail "ozramctl stats -j /dev/zram$n does not count the 16 MiB written"
check_eq "$(ozramctl stats ozram$n 2>&1)" \
	"ozramctl: no such device: ozram$n (the ozram module is loaded with compat=1 and names its devices zramN: zram$n)" \
	"ozramctl stats ozram$n in compat mode"
s=$(ozramctl setup --size 8M) || fail "ozramctl setup in compat mode failed"
[ -b "$s" ] && [ "${s#/dev/zram}" != "$s" ] || fail "ozramctl setup printed '$s', not a /dev/zramN"
check_eq "$(cat /sys/block/${s#/dev/}/disksize)" 8388608 "disksize of $s"
dd if=/tmp/m.bin of=$s bs=1M count=8 oflag=direct 2>/dev/null || fail "write to $s failed"
check_eq "$(dd if=$s bs=1M count=8 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if=/tmp/m.bin bs=1M count=8 2>/dev/null | md5sum | cut -d' ' -f1)" "data on $s"
zramctl --reset $s || fail "zramctl --reset $s failed"

zramctl --reset $d || fail "zramctl --reset failed"
# zramctl resets the device, then removes it through zram-control/hot_remove.
if [ -e /sys/block/zram$n ]; then
	check_eq "$(cat /sys/block/zram$n/disksize)" 0 "disksize after zramctl --reset"
else
	note "zramctl --reset removed $d through /sys/class/zram-control/hot_remove"
fi

step "unload"
stop_agent
rmmod ozram || fail "rmmod ozram failed"
