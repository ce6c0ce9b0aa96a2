# vm: --mem 384 --agent cpu
# With ozramd attached, written pages go through the offload ring: they read
# back byte for byte while staged and after the agent compressed them, the
# agent's pages are counted in backend_stat (agent_cpu), nothing is
# rejected, and detaching hands everything back without loss.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)

step "the agent is attached"
check_eq "$(backend_field agent)" attached "backend_stat agent"
check_eq "$(backend_field agent_pid)" "$(agent_pid)" "backend_stat agent_pid"
[ -c /dev/ozram-ring ] || fail "no /dev/ozram-ring"
check_eq "$(stat -c %a /dev/ozram-ring)" 600 "mode of /dev/ozram-ring"

dev_setup 0 64M
step "mixed pages through the agent"
pagegen --pages 4096 --seed 3 >/tmp/mixed.bin
dd if=/tmp/mixed.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
# Read back at once: some pages may still be staged.
check_eq "$(dd if=$D bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$(md5 /tmp/mixed.bin)" "read back right after the write"
ring_settle 0
check_eq "$(dd if=$D bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$(md5 /tmp/mixed.bin)" "read back after the agent completed"
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(backend_field agent_cpu_pages)" -gt 0 "pages compressed by the agent (agent_cpu)"
check_cmp "$(backend_field ring_submitted_total)" -gt 0 "ring_submitted_total"
check_cmp "$(backend_field ring_completed_total)" -gt 0 "ring_completed_total"
check_eq "$(backend_field ring_rejected_total)" 0 "ring_rejected_total (an honest agent)"
check_eq "$(backend_field ring_verify_failures_total)" 0 "ring_verify_failures_total"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"

step "overwrite and discard while the agent works"
pagegen --pages 4096 --seed 4 >/tmp/mixed2.bin
dd if=/tmp/mixed2.bin of=$D bs=4096 oflag=direct 2>/dev/null || fail "overwrite failed"
blkdiscard -o 0 -l 1048576 $D 2>/dev/null || fail "blkdiscard failed"
dd if=/dev/zero of=/tmp/mixed2.bin bs=1M count=1 conv=notrunc 2>/dev/null
ring_settle 0
check_eq "$(dd if=$D bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$(md5 /tmp/mixed2.bin)" "overwritten and discarded pages"

step "verify is fixed at load"
check_eq "$(cat /sys/module/ozram/parameters/verify)" Y "verify"
check_eq "$(stat -c %a /sys/module/ozram/parameters/verify)" 444 "mode of the verify parameter"

step "the module cannot be unloaded while the agent holds the ring"
if rmmod ozram 2>/tmp/rmmod.err; then
	fail "rmmod ozram succeeded with an agent attached"
fi
note "rmmod refused: $(cat /tmp/rmmod.err)"
check_eq "$(backend_field agent)" attached "agent still attached after the refused rmmod"

step "the agent detaches; the module compresses alone again"
stop_agent
check_eq "$(backend_field agent)" detached "backend_stat agent after SIGTERM"
check_eq "$(backend_field ring_slots_used)" 0 "nothing left staged after the detach"
before=$(backend_field kernel_pages)
pagegen --pages 512 --seed 5 >/tmp/m3.bin
dd if=/tmp/m3.bin of=$D bs=1M seek=32 oflag=direct 2>/dev/null || fail "write failed"
check_cmp "$(backend_field kernel_pages)" -gt "$before" "kernel_pages grows without an agent"
check_eq "$(dd if=$D bs=1M skip=32 count=2 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$(md5 /tmp/m3.bin)" "written without the agent"

step "netlink carries the ring counters and the agent state"
ozram-genl-dump stats 0 >/tmp/nl.txt || fail "ozram-genl-dump failed"
grep -E 'agent|ring' /tmp/nl.txt | tr '\n' ' '; echo
dev_reset 0
