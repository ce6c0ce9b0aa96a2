#!/bin/sh
# ozramctl end to end where the module is not loaded: usage errors exit 2,
# runtime errors 1 with the documented message, --help and --version 0.
# Usage: cli_test.sh PATH-TO-OZRAMCTL
set -u
ctl=$1
failures=0

# expect STATUS PATTERN ARGS...: the exit status and a line of the output.
expect() {
	want=$1 pattern=$2
	shift 2
	out=$("$ctl" "$@" 2>&1)
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: ozramctl $*: exit $got, expected $want; output: $out"
		failures=$((failures + 1))
	elif ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
		echo "FAIL: ozramctl $*: no '$pattern' in: $out"
		failures=$((failures + 1))
	else
		echo "ok: ozramctl $* -> $got"
	fi
}

expect 0 '^Usage: ozramctl \[OPTIONS\] COMMAND' --help
expect 0 '^ozramctl [0-9]' --version
for sub in devices stats agent reset-stats compact setup export latency recompress writeback; do
	expect 0 "^Usage: ozramctl $sub" "$sub" --help
done
expect 2 'no command given' 
expect 2 "unknown command 'frob'" frob
expect 2 "invalid device 'zram01'" stats zram01
expect 2 "invalid device '/dev/sda'" stats /dev/sda
expect 2 'setup needs --size' setup
expect 2 'export needs --textfile DIR' export
expect 2 "^ozramctl: --format: expected text, json or prometheus, got 'xml'\$" stats --format xml
expect 2 "^ozramctl: --format prometheus is not an option of 'agent'\$" agent --format prometheus
expect 2 "^ozramctl: -j conflicts with --format prometheus\$" stats --format prometheus -j
expect 2 "^ozramctl: --textfile is not an option of 'stats'\$" stats --textfile /tmp
expect 2 "^ozramctl: --interval: expected an integer in 1\.\.86400, got '0'\$" \
	export --textfile /tmp --interval 0
expect 2 "^ozramctl: option '--interval' needs an argument\$" stats --watch --interval
expect 2 "^Try 'ozramctl --help' for more information\.\$" stats --watch --interval
expect 2 "^ozramctl: --interval: expected an integer in 1\.\.86400, got '0'\$" \
	stats --watch --interval 0
expect 2 "^ozramctl: --interval needs --watch\$" stats --interval 2
expect 2 "^ozramctl: --watch is not an option of 'devices'\$" devices --watch
expect 2 '^ozramctl: writeback needs --type$' writeback
expect 2 "^ozramctl: --type: expected idle, huge, huge_idle or incompressible, got 'all'\$" \
	writeback --type all
expect 2 "^ozramctl: --limit is not an option of 'recompress'\$" recompress --limit 1M
expect 2 "^ozramctl: -p: expected an integer in -1\.\.32767, got 'x'\$" setup -s 1M --swap -p x
expect 2 "^ozramctl: --size: expected bytes, or a number with K, M, G, T, P or E, got 'lots'\$" \
	setup --size lots
if [ -d /sys/module/ozram ]; then
	echo "note: the ozram module is loaded here: skipping the not-loaded checks"
else
	msg="ozram module not loaded (generic netlink family 'ozram' not found)"
	expect 1 "^ozramctl: $msg\$" stats
	expect 1 "^ozramctl: $msg\$" devices -j
	expect 1 "^ozramctl: $msg\$" reset-stats 0
	expect 1 'ozram module not loaded' setup --size 1M
	# Over sysfs, not netlink: the module's own directory tells.
	msg="ozram module not loaded (/sys/module/ozram not found)"
	expect 1 "^ozramctl: $msg\$" writeback --type idle
	expect 1 "^ozramctl: $msg\$" writeback --type idle 0
fi
[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
