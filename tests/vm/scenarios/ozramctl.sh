# vm: --mem 256 --program /usr/bin/script
# vm-agent: no it checks the output for a module without an agent (agent_pid 0, detached)
# ozramctl end to end: its numbers equal sysfs's after a known workload, its
# JSON has exactly the documented keys, reads are open to every user while
# reset-stats needs CAP_NET_ADMIN (message and exit status 1), errors name
# the device, and "setup --size 64M --swap" gives a working swap device.

if [ "$DEV" != ozram ]; then
	note "SKIPPED: ozramctl speaks ozram's own netlink family (DEV=$DEV)"
	exit 0
fi
command -v ozramctl >/dev/null ||
	fail "ozramctl is not in the image: build it (make userspace) before tests/vm/run"

S=$(sysdir 0)
D=$(dev 0)

# json_num FILE KEY: the number after "KEY": in a JSON file (every key
# ozramctl writes is unique within a device object).
json_num() {
	v=$(sed -n "s/.*\"$2\":\([0-9][0-9]*\).*/\1/p" "$1")
	[ -n "$v" ] || fail "no numeric \"$2\" in $(cat "$1")"
	echo "$v"
}

# json_keys FILE: every key of the document, one per line, in order.
json_keys() { grep -o '"[a-z0-9_]*":' "$1" | tr -d '":'; }

# expect_fail STATUS MESSAGE CMD...: CMD exits STATUS and says MESSAGE.
expect_fail() {
	want=$1 msg=$2
	shift 2
	set +e
	out=$("$@" 2>&1)
	got=$?
	set -e
	[ "$got" = "$want" ] || fail "$*: exit $got, expected $want ($out)"
	[ "$out" = "$msg" ] || fail "$*: said '$out', expected '$msg'"
	note "ok: $* -> $got, '$msg'"
}

step "ozramctl answers before initialization"
ozramctl --version
ozramctl devices | tee /tmp/devs.txt
check_eq "$(sed -n 2p /tmp/devs.txt | tr -s ' ')" "ozram0 0B no" "devices lists ozram0"
check_eq "$(ozramctl devices -j)" \
	'{"devices":[{"dev_id":0,"dev_name":"ozram0","disksize":0,"initstate":0}]}' "devices -j"

step "a known workload"
dev_setup 0 64M
known_workload $D

step "stats -j of ozram0 equals sysfs"
ozramctl stats -j ozram0 >/tmp/s.json
cat /tmp/s.json
check_eq "$(wc -l </tmp/s.json)" 1 "one JSON line"
check_eq "$(json_num /tmp/s.json dev_id)" 0 "dev_id"
check_eq "$(sed -n 's/.*"dev_name":"\([^"]*\)".*/\1/p' /tmp/s.json)" ozram0 "dev_name"
check_eq "$(json_num /tmp/s.json disksize)" "$(cat $S/disksize)" "disksize"
check_eq "$(json_num /tmp/s.json initstate)" 1 "initstate"
# The device's numbers: each as sysfs shows it, in the order of their list,
# under backend_stat's names.
sysfs=$(dev_numbers $S)
zram_fields=$(echo "$sysfs" | grep -vc ':')
check_eq "$(grep -o '"[a-z0-9_]*":[0-9][0-9]*' /tmp/s.json | tr -d '"' |
	sed -n '/^initstate:/,/^agent_pid:/p' | sed '1d;$d' |
	awk -F: -v n=$zram_fields 'NR <= n { print $2; next } { print $1 ": " $2 }')" \
	"$sysfs" "json's numbers = sysfs's"
check_eq "$(sed -n 's/.*"agent_state":"\([a-z]*\)".*/\1/p' /tmp/s.json)" \
	"$(backend_field agent)" "agent_state = backend_stat agent"
check_eq "$(json_num /tmp/s.json agent_pid)" "$(backend_field agent_pid)" "agent_pid = backend_stat agent_pid"
check_eq "$(json_num /tmp/s.json agent_pid)" 0 "no agent, no pid"
for f in $(sed -n 's/^\(ring_[a-z_]*\): .*/\1/p' $S/backend_stat); do
	check_eq "$(json_num /tmp/s.json $f)" "$(backend_field $f)" "json $f = backend_stat $f"
done
# Exactly the module's numbers, named as the module names them (its netlink
# answer, made from the same lists), and nothing else.
ozram-genl-dump stats 0 >/tmp/nl.txt
dev_names=$(sed -n '/^disksize=/,/^agent=/p' /tmp/nl.txt | sed '1d;$d' | cut -d= -f1 | tr '\n' ' ')
ring_names=$(sed -n '/^agent_pid=/,$p' /tmp/nl.txt | sed '1d;$d' | cut -d= -f1 | tr '\n' ' ')
json_keys /tmp/s.json | tr '\n' ' ' >/tmp/keys.txt
check_eq "$(cat /tmp/keys.txt)" \
	"dev_id dev_name disksize initstate ${dev_names}agent_state agent_pid ring $ring_names" \
	"key set and order"
braces='2 2'
check_eq "$(tr -cd '{' </tmp/s.json | wc -c) $(tr -cd '}' </tmp/s.json | wc -c)" "$braces" \
	"balanced braces"
# Every member is "key":value with value a number, a string, null or {.
check_eq "$(sed 's/^{//; s/}}$//; s/"ring":{/"ring":0,/' \
	/tmp/s.json | tr ',' '\n' |
	grep -v -c -E '^"[a-z0-9_]+":([0-9]+|"[a-z0-9]+"|null)$' || true)" 0 "every member is well formed"

step "human output, sizes in bytes and in K/M/G"
ozramctl stats ozram0 | tee /tmp/s.txt
check_eq "$(head -n 1 /tmp/s.txt)" "ozram0: disksize 64M, initialized" "title line"
ozramctl stats --bytes /dev/ozram0 >/tmp/b.txt
check_eq "$(awk '/mm_stat:/ { getline; print $1 }' /tmp/b.txt)" "$(stat_field $S/mm_stat orig_data_size)" \
	"orig_data_size in bytes under its name"
ozramctl agent | tee /tmp/agent.txt
check_eq "$(sed -n 's/^agent_state: *//p' /tmp/agent.txt)" detached "agent_state: detached"
check_eq "$(sed -n 's/^agent_pid: *//p' /tmp/agent.txt)" - "no agent pid"
# backend_stat's and the ring's numbers, as backend_stat names them.
ozramctl agent --bytes >/tmp/agent-bytes.txt
for f in $(sed -n '/^agent_pid: /d; s/^\([a-z_]*\): [0-9]*$/\1/p' $S/backend_stat); do
	check_eq "$(sed -n "s/^$f: *//p" /tmp/agent-bytes.txt)" "$(backend_field $f)" "agent view $f"
done

step "stats without a device: every device and the total"
ozramctl stats -j >/tmp/all.json
check_eq "$(json_keys /tmp/all.json | head -n 2 | tr '\n' ' ')" "devices dev_id " "starts with devices"
check_eq "$(grep -c '],"total":{"num_devices":1,' /tmp/all.json)" 1 "then the total of one device"
check_eq "$(sed 's/.*"total"://' /tmp/all.json > /tmp/total.json && json_num /tmp/total.json orig_data_bytes)" \
	"$(stat_field $S/mm_stat orig_data_size)" "total orig_data_size"

step "reads are open to every user; reset-stats needs CAP_NET_ADMIN"
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >>/etc/group
as_nobody() { su nobody -s /bin/sh -c "$*"; }
check_eq "$(as_nobody id -u)" 65534 "su nobody works"
as_nobody ozramctl stats -j 0 >/tmp/nobody.json || fail "stats as nobody failed"
check_eq "$(json_num /tmp/nobody.json orig_data_bytes)" "$(stat_field $S/mm_stat orig_data_size)" \
	"orig_data_size as nobody"
as_nobody ozramctl devices >/dev/null || fail "devices as nobody failed"
expect_fail 1 "ozramctl: operation not permitted: needs CAP_NET_ADMIN" as_nobody ozramctl reset-stats
expect_fail 1 "ozramctl: operation not permitted: needs CAP_NET_ADMIN" as_nobody ozramctl compact 0
check_eq "$(stat_field $S/io_stat notify_free)" 8 "a refused reset-stats changed nothing"
ozramctl reset-stats ozram0 || fail "reset-stats as root failed"
check_eq "$(stat_field $S/io_stat notify_free)" 0 "reset-stats cleared notify_free"
ozramctl compact || fail "compact as root failed"
check_eq "$(dd if=$D bs=4096 count=512 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/text.bin)" "data after compact and reset-stats"

step "errors name the device; usage errors exit 2"
expect_fail 1 "ozramctl: no such device: ozram200" ozramctl stats 200
expect_fail 1 "ozramctl: no such device: ozram200" ozramctl reset-stats ozram200
set +e
ozramctl stats sda >/dev/null 2>&1
rc=$?
set -e
check_eq "$rc" 2 "a bad device name is a usage error"
expect_fail 1 "ozramctl: no such device: zram0 (the ozram module names its devices ozramN: ozram0; zramN with compat=1)" \
	ozramctl stats zram0

step "stats --watch repeats until interrupted"
set +e
timeout -s INT 3 ozramctl stats -j -w --interval 1 0 >/tmp/watch.json
set -e
check_cmp "$(wc -l </tmp/watch.json)" -ge 2 "JSON lines under --watch"

step "stats --watch without a terminal: the live view, a block per sample"
set +e
timeout -s INT 4 ozramctl stats --watch --interval 1 0 >/tmp/live.txt
set -e
cat /tmp/live.txt
check_cmp "$(grep -c '^DEVICE  RATIO' /tmp/live.txt)" -ge 2 "live view blocks"
check_eq "$(grep -c '^ozram0 ' /tmp/live.txt)" "$(($(grep -c '^DEVICE  RATIO' /tmp/live.txt) * 2))" \
	"two lines of ozram0 per block"
check_eq "$(grep -c "$(printf '\033')" /tmp/live.txt)" 0 "escape sequences without a terminal"
check_eq "$(awk 'length > 80' /tmp/live.txt | wc -l)" 0 "lines over 80 columns"

step "stats --watch on a terminal: each frame clears the screen and replaces the last"
# util-linux script(1), carried into the VM, gives ozramctl a pseudo-terminal.
command -v script >/dev/null || fail "script(1) is not in the VM (tests/vm/run --program)"
if [ ! -e /dev/pts/ptmx ]; then
	mkdir -p /dev/pts
	mount -t devpts devpts /dev/pts || fail "cannot mount devpts"
fi
[ -e /dev/ptmx ] || ln -s pts/ptmx /dev/ptmx
script -q -c "timeout -s INT 4 ozramctl stats --watch 0" /tmp/tty.txt >/dev/null </dev/null
cat -v /tmp/tty.txt | head -n 8
# A frame starts right after the escape sequences, not at a line's start.
frames=$(grep -c 'ozram: rates and p99' /tmp/tty.txt || true)
check_cmp "$frames" -ge 2 "frames on the terminal"
check_eq "$(grep -o "$(printf '\033')\[H$(printf '\033')\[2J" /tmp/tty.txt | wc -l)" "$frames" \
	"a home-and-clear before each frame"

step "writeback without the module's writeback: said, exit status 1"
if [ -e $S/writeback ]; then
	note "this module has writeback: ozramctl writeback runs in the writeback scenarios"
else
	set +e
	ozramctl writeback --type idle 0 2>/tmp/wb.err
	rc=$?
	set -e
	check_eq "$rc" 1 "exit status of writeback"
	check_eq "$(cat /tmp/wb.err)" "ozramctl: ozram0: no writeback (the module has no writeback file)" \
		"the message"
	check_eq "$(ozramctl stats -j 0 | grep -c bd_stat)" 0 "no bd_stat in stats"
fi

step "setup --size 64M --swap on a new device"
new=$(ozramctl setup --size 64M --swap --priority 7) || fail "ozramctl setup failed"
check_eq "$new" /dev/ozram1 "setup took a hot-added device (ozram0 is in use)"
cat /proc/swaps
check_eq "$(awk -v d="$new" '$1 == d { print $3, $5 }' /proc/swaps)" "65532 7" \
	"/proc/swaps lists it with its size and priority"
check_eq "$(cat /sys/block/ozram1/disksize)" $((64 << 20)) "disksize set through sysfs"
expect_fail 1 "ozramctl: ozram1 is already initialized (reset it first)" \
	ozramctl setup --size 16M ozram1
swapoff "$new"
dev_reset 1
new=$(ozramctl setup --size 16M) || fail "setup without --swap failed"
check_eq "$new" /dev/ozram1 "setup reuses the first free device"
check_eq "$(ozramctl devices | grep -c '^ozram1 *16M *yes$')" 1 "devices shows ozram1 at 16M"
dev_reset 1
dev_reset 0
