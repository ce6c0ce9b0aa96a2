# vm: --mem 384 --agent none --no-module
# With verify=0 the kernel stores the agent's LZ4 output without decoding it,
# but it still checks a same-filled answer against the staged page: a wrong
# word would otherwise replace the page.  A hostile agent answers every page
# with a wrong fill word; every byte must read back as written.  verify is
# read-only after load, and loading with verify=0 is logged; the log line
# and the parameter's description say what it leaves unchecked: results of
# every algorithm, recompression results included.

if [ "$DEV" != ozram ]; then
	note "SKIPPED: the offload ring is ozram's own (DEV=$DEV)"
	exit 0
fi

D=$(dev 0)
readback() { dd if=$D bs=1M skip="$1" count="$2" iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }

step "loading with verify=0 warns, and verify cannot change afterwards"
load_ozram verify=0
dmesg | grep -q 'ozram: verify=0: ' || fail "no warning logged for verify=0"
dmesg | grep -q 'ozram: verify=0: .*with every algorithm.*recompression results.*replace objects already stored' ||
	fail "the verify=0 warning does not say that every algorithm and recompression go unchecked: $(dmesg | grep 'ozram: verify=0')"
desc=$(modinfo -F parm $OZRAM_KO | grep '^verify:')
note "modinfo: $desc"
case $desc in
*"every algorithm"*"recompression results included"*"replace objects already stored"*) ;;
*) fail "verify's description does not say that every algorithm and recompression go unchecked: $desc" ;;
esac
check_eq "$(cat /sys/module/ozram/parameters/verify)" N "verify"
expect_errno EACCES sysfs-write /sys/module/ozram/parameters/verify 1
check_eq "$(cat /sys/module/ozram/parameters/verify)" N "verify after a write was refused"
dev_setup 0 64M
echo 200 >/sys/module/ozram/parameters/ring_timeout_ms

step "a hostile agent answers every page with a wrong fill word"
pagegen --pages 1024 --seed 51 >/tmp/fill.bin
rogue-agent --seconds 3 --no-jump --kind wrong_fill >/tmp/rogue.log 2>&1 &
rogue=$!
wait_attached "the rogue agent"
dd if=/tmp/fill.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
wait $rogue || fail "rogue run failed: $(cat /tmp/rogue.log)"
cat /tmp/rogue.log
grep -q 'sent wrong_fill=[1-9]' /tmp/rogue.log || fail "the rogue sent no wrong fill word"

step "no wrong word was stored"
check_eq "$(backend_field ring_completed_total)" 0 "ring_completed_total (no wrong word accepted)"
check_cmp "$(backend_field ring_verify_failures_total)" -gt 0 "ring_verify_failures_total"
check_eq "$(backend_field ring_slots_used)" 0 "nothing left staged"
sync
echo 3 >/proc/sys/vm/drop_caches
check_eq "$(readback 0 4)" "$(md5 /tmp/fill.bin)" "data answered with wrong fill words"
dev_reset 0
