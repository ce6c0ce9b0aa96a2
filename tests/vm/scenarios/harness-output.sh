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
REPORTS
# Ordinary kernel messages must not match.
while read -r line; do
	echo "$line" | grep -q -E "$KERNEL_PROBLEM_PATTERN" && fail "caught, but harmless: $line"
done <<'MESSAGES'
[   12.345678] Adding 524284k swap on /dev/ozram3.  Priority:-2 extents:1 across:524284k SS
[   12.345678] EXT4-fs (ozram2): mounted filesystem with ordered data mode. Quota mode: none.
[   12.345678] mem auto-init: CONFIG_PAGE_POISONING is on, will take precedence over init_on_alloc and init_on_free
MESSAGES
note "ok: every kind of report is caught, ordinary messages are not"
