#!/usr/bin/env bash
# vm_boot_fault (tests/vm/lib.sh) on console logs of failed VM runs: a panic
# while the kernel boots, before the test's start marker and with nothing of
# ozram.ko in the log, is booted again; anything else is the test's result.
# $1: tests/vm/lib.sh.
set -euo pipefail
. "$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

# expect VERDICT WHAT: VERDICT is "retry" or "keep", for the log on stdin.
expect() {
	local verdict=$1 what=$2 got=keep
	cat >"$dir/console.log"
	vm_boot_fault "$dir/console.log" "OZRAM-VM-START" && got=retry
	if [[ $got == "$verdict" ]]; then
		echo "ok: $what: $got"
	else
		echo "FAIL: $what: expected $verdict, got $got"
		failures=$((failures + 1))
	fi
}

# The kernel's own boot under the emulator: an int3 oops in PID 1 before
# it ran the init, no module of ozram anywhere.
expect retry "an oops while the kernel boots" <<'LOG'
[    4.488612] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    4.488700] CPU: 1 UID: 0 PID: 1 Comm: swapper/0 Not tainted 6.12.117+deb12-amd64 #1  Debian 6.12.117-1~deb12u1
[    4.490396] Call Trace:
[    4.494337] Kernel panic - not syncing: Fatal exception in interrupt
LOG
expect retry "an oops of a module other than ozram, before the marker" <<'LOG'
[    6.100000] Oops: general protection fault, probably for non-canonical address
[    6.100100] Modules linked in: virtio_blk(E) ext4 ozramx_other crc16
[    6.100200] Call Trace:
[    6.100300]  ? some_fn+0x10/0x20 [virtio_blk]
LOG
expect retry "nothing printed at all" </dev/null
expect retry "the host name, which has ozram in it" <<'LOG'
ozram-test login:
[    5.000000] BUG: kernel NULL pointer dereference, address: 0000000000000000
LOG
expect keep "the test had begun" <<'LOG'
OZRAM-VM-START kernel=6.12.117+deb12-amd64 cpus=2
[   12.000000] Kernel panic - not syncing: Fatal exception
LOG
expect keep "ozram is among the oops's modules, tainted" <<'LOG'
[    9.000000] Oops: 0000 [#1] PREEMPT SMP NOPTI
[    9.000100] Modules linked in: ozram(OE) zsmalloc lz4_compress
LOG
expect keep "ozram is the last of the oops's modules" <<'LOG'
[    9.000100] Modules linked in: zsmalloc lz4_compress ozram
[    9.000200] Kernel panic - not syncing: Fatal exception
LOG
expect keep "a frame of ozram in the trace" <<'LOG'
[    9.000200] Call Trace:
[    9.000300]  ozram_ring_doorbell+0x42/0x100 [ozram]
LOG
expect keep "a message of ozram's before the panic" <<'LOG'
[    8.000000] ozram: agent 200 attached to the offload ring
[    9.000000] Kernel panic - not syncing: softlockup: hung tasks
LOG
expect keep "a message of ozram's device" <<'LOG'
[    8.000000] ozram0: detected capacity change from 0 to 262144
[    9.000000] Kernel panic - not syncing: Fatal exception
LOG
if [[ $failures != 0 ]]; then
	echo "$failures of the verdicts were wrong"
	exit 1
fi
