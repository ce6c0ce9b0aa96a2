# vm: --mem 384 --agent cpu --no-module
# What verify=1 costs: the same 32 MiB of mixed pages written through the
# agent with verify on and off, alternately, three times each; the time is
# from the first write until the last page left the ring.  verify is
# read-only after load, so each round loads the module with its setting and
# starts the agent again.  A measurement, not a pass/fail bound (timings
# under TCG are noisy): only the data is checked, which also shows that an
# honest agent loses nothing with verify=0.  The numbers go into
# Documentation/kmod.md.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"
S=$(sysdir 0)
D=$(dev 0)

pagegen --pages 8192 --seed 9 >/tmp/mixed.bin
sum=$(md5 /tmp/mixed.bin)

# round V: loads the module with verify=V, writes the pages through a fresh
# agent and prints the time; the first call is the warm-up (the agent
# calibrates on its first start).
round() {
	load_ozram verify=$1
	start_agent
	dev_setup 0 64M
	before=$(backend_field ring_completed_total)
	t0=$(uptime_cs)
	dd if=/tmp/mixed.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
	ring_settle 0
	t1=$(uptime_cs)
	done_=$(($(backend_field ring_completed_total) - before))
	check_eq "$(dd if=$D bs=1M count=32 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$sum" \
		"data written with verify=$1"
	check_eq "$(backend_field ring_verify_failures_total)" 0 "ring_verify_failures_total with verify=$1"
	elapsed=$(((t1 - t0) * 10))
	unload_ozram
}

round 1
for r in 1 2 3; do
	for v in 1 0; do
		round $v
		echo "verify=$v round=$r: $elapsed ms, $done_ pages completed by the agent"
		echo "$v $elapsed" >>/tmp/times
	done
done
for v in 1 0; do
	awk -v v=$v '$1 == v { s += $2; n++ } END { printf "verify=%d: mean %d ms over %d rounds\n", v, s / n, n }' /tmp/times
done
