# vm: --mem 384 --agent none
# What an agent leaves behind cannot reach the next one.  The header page
# of the ring is read-only and the mapping's protections are fixed.  Pages
# discarded while staged, and the pages of a reset device, are gone from the
# ring's memory when the next agent attaches.  An agent that forks and exits
# does not keep the ring from the next agent: its child's file is revoked.
# A page pinned by an exited agent (vmsplice into a pipe its child keeps)
# never shows what the next agent is given.  An agent in a pid namespace is
# shown with the pid the reader sees.

if [ "$DEV" != ozram ]; then
	note "SKIPPED: the offload ring is ozram's own (DEV=$DEV)"
	exit 0
fi

S=$(sysdir 0)
D=$(dev 0)
DUMMY=NOTHINGTOSEEHERE
echo 200 >/sys/module/ozram/parameters/ring_timeout_ms

# hold_ring GOFILE: a holder that attaches and does nothing with the pages it
# is given until GOFILE appears; its pid in $holder.
hold_ring() {
	rm -f "$1"
	ring-holder probe $DUMMY --after "$1" >/dev/null &
	holder=$!
	wait_until "pid $holder did not attach" "[ \"\$(backend_field agent_pid)\" = $holder ]"
}

# marker_page TEXT FILE: a page that starts with the 16 bytes of TEXT.
marker_page() {
	{ printf '%s' "$1"; head -c 4080 /dev/urandom; } >"$2"
}

dev_setup 0 64M

step "the header page is read-only and mprotect() changes nothing"
ring-holder write-header || fail "ring-holder write-header"

step "a page discarded while staged is gone for the next agent"
marker_page OZRAMMARKER00001 /tmp/m1.bin
hold_ring /tmp/go1
dd if=/tmp/m1.bin of=$D bs=4096 count=1 oflag=direct 2>/dev/null || fail "write failed"
check_eq "$(backend_field staged_pages)" 1 "the marker page is staged"
blkdiscard -o 0 -l 4096 $D || fail "blkdiscard failed"
touch /tmp/go1
wait $holder || true
ring-holder probe OZRAMMARKER00001 || fail "the next agent found the discarded page in the ring"

step "the pages of a reset device are gone for the next agent"
marker_page OZRAMMARKER00002 /tmp/m2.bin
hold_ring /tmp/go2
dd if=/tmp/m2.bin of=$D bs=4096 count=1 seek=7 oflag=direct 2>/dev/null || fail "write failed"
touch /tmp/go2
wait $holder || true
dev_reset 0
dev_setup 0 64M
ring-holder probe OZRAMMARKER00002 || fail "the next agent found a reset device's page in the ring"

step "an agent that forks and exits: its child's file is revoked for the next agent"
rm -f /tmp/go3 /tmp/go3.result
ring-holder fork-exit /tmp/go3 || fail "ring-holder fork-exit"
check_eq "$(backend_field agent)" attached "the exited agent's file is still open (its child)"
# The next agent, in a pid namespace of its own.
unshare -p -f ring-holder probe $DUMMY --after /tmp/go3 >/tmp/h3.log &
wait_until "a new agent could not attach" "[ -s /tmp/h3.log ]"
dmesg | grep -q 'is gone but its ring file is still open: revoking it' || fail "no revocation logged"
pid=
for p in /proc/[0-9]*; do
	tr '\0' ' ' <$p/cmdline 2>/dev/null | grep -q "^ring-holder probe $DUMMY" && pid=${p#/proc/}
done
[ -n "$pid" ] || fail "no ring-holder probe running"
[ "$pid" != 1 ] || fail "the new agent is pid 1 here too"
check_eq "$(backend_field agent_pid)" "$pid" "agent_pid of an agent in a pid namespace, as this namespace sees it"
touch /tmp/go3
wait_until "the child of the exited agent reported nothing" "[ -s /tmp/go3.result ]"
check_eq "$(cat /tmp/go3.result)" revoked "the old file, in the exited agent's child"
wait

step "a page an exited agent pinned never shows the next agent's pages"
rm -f /tmp/go4 /tmp/go4.page
ring-holder pin /tmp/go4 || fail "ring-holder pin"
hold_ring /tmp/go4b
dmesg | grep -q 'still mapped or pinned: the next agent gets fresh memory' ||
	fail "the next agent did not get fresh memory"
marker_page OZRAMMARKER00004 /tmp/m4.bin
dd if=/tmp/m4.bin of=$D bs=4096 count=1 seek=9 oflag=direct 2>/dev/null || fail "write failed"
touch /tmp/go4
wait_until "the pinned page was not read" "[ -s /tmp/go4.page ]"
if head -c 16 /tmp/go4.page | grep -q OZRAMMARKER00004; then
	fail "the page an exited agent pinned shows the next agent's page"
fi
touch /tmp/go4b
wait $holder || true
check_eq "$(dd if=$D bs=4096 count=1 skip=9 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/m4.bin)" "the page written to the fresh memory"
dev_reset 0
