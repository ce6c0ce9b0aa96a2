# vm: --mem 256 --timeout 120
# vm-agent: no it tests the harness, not the module: once is enough
# Only the kernel's own messages fail a run, never a test program's output:
# programs print "WARNING:" or "BUG:" for their own reasons (LTP says
# "TINFO: WARNING: testing only ext4"), and tests/vm/run must let this run
# pass.  The kernel side is checked here too: the pattern the harness uses
# must catch each kind of report the kernel prints.

step "a program's output that looks like a kernel report"
echo "TINFO: WARNING: testing only ext4"
echo "BUG: a test program's own message" >&2
echo "Call Trace: printed by a test, not by the kernel"
printf 'half a line, then: WARNING: CPU: 0 PID: 1 at nowhere\n'
note "the harness must not count these"

step "the pattern catches what the kernel prints"
while read -r line; do
	echo "$line" | grep -q -E "$KERNEL_PROBLEM_PATTERN" || fail "not caught: $line"
done <<'REPORTS'
[   12.345678] WARNING: CPU: 1 PID: 42 at kmod/ozram_io.c:76 ozram_free_slot+0x1/0x2 [ozram]
[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000008
[   12.345678] BUG kmalloc-64 (Tainted: G           O      ): Poison overwritten
[   12.345678] pagealloc: memory corruption
[   12.345678] INFO: task kworker/1:2:123 blocked for more than 30 seconds.
[   12.345678] WARNING: possible circular locking dependency detected
[   12.345678] INFO: trying to register non-static key.
[   12.345678] Kernel panic - not syncing: Fatal exception
[   12.345678] list_add corruption. prev->next should be next
[   12.345678] ozramd[375]: segfault at 7fdb6761f014 ip 00005626377885a9 sp 00007fdb672b64a0 error 4 in ozramd[562637700000+200000] likely on CPU 0 (core 0, socket 0)
[   12.345678] traps: memhog[212] trap invalid opcode ip:401000 sp:7ffd2c1c8e70 error:0 in memhog[400000+1000]
REPORTS
# Ordinary kernel messages must not match.
while read -r line; do
	echo "$line" | grep -q -E "$KERNEL_PROBLEM_PATTERN" && fail "caught, but harmless: $line"
done <<'MESSAGES'
[   12.345678] Adding 524284k swap on /dev/ozram3.  Priority:-2 extents:1 across:524284k SS
[   12.345678] EXT4-fs (ozram2): mounted filesystem with ordered data mode. Quota mode: none.
[   12.345678] mem auto-init: CONFIG_PAGE_POISONING is on, will take precedence over init_on_alloc and init_on_free
[   12.345678] ozram: agent 375 attached to the offload ring
MESSAGES
note "ok: every kind of report is caught, ordinary messages are not"
