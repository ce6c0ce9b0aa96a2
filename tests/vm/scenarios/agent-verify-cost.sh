# vm: --mem 384 --agent cpu
# What verify=1 costs: the same 32 MiB of mixed pages written through the
# agent with verify on and off, alternately, three times each; the time is
# from the first write until the last page left the ring.  A measurement,
# not a pass/fail bound (timings under TCG are noisy): only the data is
# checked.  The numbers go into Documentation/kmod.md.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"
S=$(sysdir 0)
D=$(dev 0)
P=/sys/module/ozram/parameters

uptime_cs() { awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime; }

dev_setup 0 64M
pagegen --pages 8192 --seed 9 >/tmp/mixed.bin
# Warm up: the agent calibrates on its first batches.
dd if=/tmp/mixed.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0

for round in 1 2 3; do
	for v in 1 0; do
		echo $v >$P/verify
		before=$(backend_field ring_completed)
		t0=$(uptime_cs)
		dd if=/tmp/mixed.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
		ring_settle 0
		t1=$(uptime_cs)
		done_=$(($(backend_field ring_completed) - before))
		echo "verify=$v round=$round: $(((t1 - t0) * 10)) ms, $done_ pages completed by the agent"
		echo "$v $(((t1 - t0) * 10))" >>/tmp/times
	done
done
echo 1 >$P/verify
for v in 1 0; do
	awk -v v=$v '$1 == v { s += $2; n++ } END { printf "verify=%d: mean %d ms over %d rounds\n", v, s / n, n }' /tmp/times
done
check_eq "$(dd if=$D bs=1M count=32 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$(md5 /tmp/mixed.bin)" "data after the rounds"
check_eq "$(backend_field ring_verify_failures)" 0 "ring_verify_failures"
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
dev_reset 0
