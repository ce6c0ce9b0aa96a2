# vm: --mem 256
# vm-agent: no it checks the counters of a module without an agent (agent detached, pages by in-kernel LZ4)
# The generic netlink family "ozram": its numbers equal the sysfs numbers
# after a known workload, GET_DEVICES follows hot_add/hot_remove, totals are
# sums over devices and keep the ring's numbers and the agent when no device
# is left, the policy is strict, and the state-changing commands
# need CAP_NET_ADMIN while the reads are open to every user.

if [ "$DEV" != ozram ]; then
	note "SKIPPED: the netlink family is ozram's own (DEV=$DEV)"
	exit 0
fi

S=$(sysdir 0)
D=$(dev 0)
NL=ozram-genl-dump

# nl_field KEY: one key of the last "$NL stats" output saved in /tmp/nl.txt
nl_field() {
	v=$(sed -n "s/^$1=//p" /tmp/nl.txt)
	[ -n "$v" ] || fail "netlink answer has no $1: $(cat /tmp/nl.txt)"
	echo "$v"
}

# nl_numbers: the device's numbers of that answer, "name=value" in the order
# of their list, between disksize and the agent's state.
nl_numbers() { sed -n '/^disksize=/,/^agent=/p' /tmp/nl.txt | sed '1d;$d'; }

# nl_mm NAME: the field of mm_stat called NAME (zram's name) in that answer:
# mm_stat's fields are the first of the list.
nl_mm() {
	i=1
	for n in $MM_STAT_FIELDS; do
		[ "$n" = "$1" ] && break
		i=$((i + 1))
	done
	nl_numbers | sed -n "${i}p" | cut -d= -f2
}

step "the family answers before initialization"
$NL devices >/tmp/devs.txt
cat /tmp/devs.txt
check_eq "$(tail -n 1 /tmp/devs.txt)" OK "GET_DEVICES status"
check_eq "$(grep -c '^id=0 name=ozram0 disksize=0 initstate=0$' /tmp/devs.txt)" 1 \
	"GET_DEVICES lists the uninitialized ozram0"

step "a known workload"
dev_setup 0 64M
known_workload $D
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((668 * 4096)) \
	"orig_data_size after 676 pages written and 8 discarded"

step "GET_STATS of ozram0 equals sysfs"
$NL stats 0 >/tmp/nl.txt
cat /tmp/nl.txt
check_eq "$(tail -n 1 /tmp/nl.txt)" OK "GET_STATS status"
check_eq "$(nl_field id)" 0 "id"
check_eq "$(nl_field name)" ozram0 "name"
check_eq "$(nl_field disksize)" "$(cat $S/disksize)" "disksize"
check_eq "$(nl_field initstate)" 1 "initstate"
# Every number sysfs shows, netlink carries, in the same order and with
# the same value, under backend_stat's names: both are made from one list.
sysfs=$(dev_numbers $S)
zram_fields=$(echo "$sysfs" | grep -vc ':')
check_eq "$zram_fields" 18 "zram's files: 9 + 4 + 2 + 3 fields"
check_eq "$(nl_numbers | awk -F= -v n=$zram_fields 'NR <= n { print $2; next } { print $1 ": " $2 }')" \
	"$sysfs" "netlink's numbers = sysfs's"
check_eq "$(stat_field $S/io_stat notify_free)" 8 "notify_free counts the discarded pages"
check_eq "$(nl_field agent)" "$(backend_field agent)" "agent state"
check_eq "$(nl_field agent)" detached "no agent attached"
same=$(stat_field $S/mm_stat same_pages)
huge=$(stat_field $S/mm_stat huge_pages)
check_cmp "$same" -ge 100 "the zero pages are same-filled"
check_cmp "$huge" -ge 1 "random pages are huge"
check_cmp "$(nl_field kernel_pages)" -ge 1 "text pages compressed in the kernel"
check_eq "$(($(nl_field kernel_pages) + $(nl_field agent_cpu_pages) + $(nl_field agent_gpu_pages) + \
	same + huge))" 668 "the paths add up to the pages stored"
# The ring's numbers likewise.
ring_keys=$(sed -n 's/^\(ring_[a-z_]*\): .*/\1/p' $S/backend_stat)
check_eq "$(echo $ring_keys | wc -w)" 14 "backend_stat shows the ring's fourteen numbers"
for f in $ring_keys; do
	check_eq "$(nl_field $f)" "$(backend_field $f)" "netlink $f = backend_stat $f"
	check_eq "$(nl_field $f)" 0 "$f without a ring"
done

step "reads are open to every user"
$NL --as-nobody stats 0 >/tmp/nobody.txt
check_eq "$(tail -n 1 /tmp/nobody.txt)" OK "GET_STATS as uid 65534"
cp /tmp/nobody.txt /tmp/nl.txt
check_eq "$(nl_mm orig_data_size)" $((668 * 4096)) "orig_data_size as uid 65534"
check_eq "$($NL --as-nobody devices | tail -n 1)" OK "GET_DEVICES as uid 65534"

step "state changes need CAP_NET_ADMIN"
expect_errno EPERM $NL --as-nobody compact 0
expect_errno EPERM $NL --as-nobody compact
expect_errno EPERM $NL --as-nobody reset-stats 0
expect_errno EPERM $NL --as-nobody reset-stats
check_eq "$(stat_field $S/io_stat notify_free)" 8 "a refused reset-stats changed nothing"
expect_errno OK $NL compact 0
expect_errno OK $NL compact
expect_errno OK $NL reset-stats 0
check_eq "$(stat_field $S/io_stat notify_free)" 0 "reset-stats cleared notify_free"
check_eq "$(stat_field $S/mm_stat huge_pages_since)" 0 "reset-stats cleared huge_pages_since"
check_eq "$(stat_field $S/mm_stat mem_used_max)" "$(stat_field $S/mm_stat mem_used_total)" \
	"reset-stats restarted mem_used_max"
check_eq "$(stat_field $S/mm_stat orig_data_size)" $((668 * 4096)) \
	"reset-stats kept the stored data's gauges"
check_eq "$(stat_field $S/mm_stat huge_pages)" "$huge" "reset-stats kept huge_pages"
check_eq "$(dd if=$D bs=4096 count=512 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/text.bin)" "data after compact and reset-stats"

step "the policy is strict"
expect_errno ENODEV $NL stats 200
expect_errno ENODEV $NL compact 200
expect_errno ERANGE $NL stats 100000
expect_errno EINVAL $NL --extra-attr stats 0
# The genetlink header is checked too, on every command.
expect_errno EINVAL $NL --reserved stats 0
expect_errno EINVAL $NL --reserved devices
expect_errno EINVAL $NL --reserved compact 0
expect_errno EINVAL $NL --stray-flags stats 0
expect_errno EINVAL $NL --stray-flags devices

step "hot-added devices appear in GET_DEVICES and in the totals"
id=$(cat $CONTROL/hot_add)
check_cmp "$id" -ge 1 "hot_add id"
$NL devices >/tmp/devs.txt
cat /tmp/devs.txt
check_eq "$(grep -c "^id=$id name=ozram$id disksize=0 initstate=0$" /tmp/devs.txt)" 1 \
	"GET_DEVICES lists ozram$id"
check_eq "$(grep -c '^id=' /tmp/devs.txt)" 2 "two devices listed"
expect_errno EINVAL $NL compact $id
dev_setup $id 16M
dd if=/tmp/text.bin of=$(dev $id) bs=4096 count=50 oflag=direct 2>/dev/null
check_eq "$($NL devices | grep -c "^id=$id name=ozram$id disksize=16777216 initstate=1$")" 1 \
	"GET_DEVICES shows ozram$id initialized"
$NL stats >/tmp/nl.txt
cat /tmp/nl.txt
check_eq "$(nl_field num_devices)" 2 "the total covers two devices"
for f in orig_data_size compr_data_size mem_used_total same_pages huge_pages; do
	a=$(stat_field $S/mm_stat $f)
	b=$(stat_field "$(sysdir $id)/mm_stat" $f)
	check_eq "$(nl_mm $f)" $((a + b)) "total $f is the sum over devices"
done
check_eq "$(nl_field disksize)" $((64 * 1048576 + 16 * 1048576)) "total disksize"

step "hot-removed devices disappear"
dev_reset $id
sysfs_set $CONTROL/hot_remove $id
check_eq "$($NL devices | grep -c '^id=')" 1 "one device listed after hot_remove"
expect_errno ENODEV $NL stats $id
dev_reset 0
check_eq "$($NL devices | grep -c '^id=0 name=ozram0 disksize=0 initstate=0$')" 1 \
	"GET_DEVICES shows the reset ozram0"

step "with no device, the total still has the agent and the ring"
# The ring is the module's, not a device's: its numbers stay when the last
# device goes, and an agent may stay attached to it meanwhile.
$NL stats >/tmp/nl.txt
ring_before=$(sed -n '/^ring_/p' /tmp/nl.txt)
[ -n "$ring_before" ] || fail "the total has no ring numbers: $(cat /tmp/nl.txt)"
sysfs_set $CONTROL/hot_remove 0
check_eq "$($NL devices | grep -c '^id=')" 0 "devices listed after every hot_remove"
$NL stats >/tmp/nl.txt
check_eq "$(nl_field num_devices)" 0 "the total's num_devices"
check_eq "$(sed -n '/^ring_/p' /tmp/nl.txt)" "$ring_before" "the ring's numbers with no device"
rm -f /tmp/holder-release
ring-holder probe OZRAMNODEVICE001 --after /tmp/holder-release >/dev/null &
holder=$!
wait_until "no agent in the total while ring-holder is attached" \
	"$NL stats >/tmp/nl.txt && grep -q '^agent=attached$' /tmp/nl.txt"
check_eq "$(nl_field agent_pid)" $holder "the total's agent pid"
touch /tmp/holder-release
wait $holder || fail "ring-holder exited with status $?"
wait_until "the total still has an agent after ring-holder exited" \
	"$NL stats >/tmp/nl.txt && grep -q '^agent=detached$' /tmp/nl.txt"

step "in another network namespace ozramctl says why it finds no family"
# The family is registered in the host's network namespace only.
if out=$(unshare -n ozramctl stats 2>&1); then
	fail "ozramctl stats succeeded in a network namespace of its own: $out"
fi
note "$out"
echo "$out" | grep -q 'is not in this network namespace' ||
	fail "ozramctl's message in a network namespace of its own: $out"
