# vm: --mem 512 --timeout 1200
# What the latency histograms cost per page I/O: blkbench's 4 KiB O_DIRECT
# writes and reads on ozram0 with the module parameter latency_stats on and
# off, alternately, five rounds each (the first one alternating), in one VM
# so that the two are measured side by side.  Prints the median of each
# setting per operation and the difference per page in nanoseconds.
# Run: tests/vm/run --mem 512 --timeout 1200 --script tests/vm/bench/latency-cost.sh
P=/sys/module/ozram/parameters/latency_stats
S=$(sysdir 0)
MB=32
dev_setup 0 128M

# round on|off: one blkbench run; appends "SETTING OP MIBPS" lines.
round() {
	if [ "$1" = on ]; then echo 1 >$P; else echo 0 >$P; fi
	before=$(awk '{ print $2 }' $S/latency_stat | tr '\n' ' ')
	blkbench --mb $MB --repeats 1 /dev/ozram0 >/tmp/round.txt || fail "blkbench failed"
	after=$(awk '{ print $2 }' $S/latency_stat | tr '\n' ' ')
	# Off, the histograms must not move; on, they must.
	if [ "$1" = off ]; then
		check_eq "$after" "$before" "latency_stat unchanged with latency_stats=0"
	else
		[ "$after" != "$before" ] || fail "latency_stat did not count with latency_stats=1"
	fi
	sed -n "s/^RESULT dev=[^ ]* op=\([^ ]*\) mibps=\([0-9.]*\)/$1 \1 \2/p" /tmp/round.txt >>/tmp/rounds
}

for r in 1 2 3 4 5; do
	if [ $((r % 2)) = 1 ]; then round on; round off; else round off; round on; fi
done
cat /tmp/rounds
# ns per 4 KiB page from MiB/s: 1e9 / (mibps * 256).
for op in $(awk '{ print $2 }' /tmp/rounds | sort -u); do
	on=$(awk -v op=$op '$1 == "on" && $2 == op { print $3 }' /tmp/rounds | sort -n | sed -n 3p)
	off=$(awk -v op=$op '$1 == "off" && $2 == op { print $3 }' /tmp/rounds | sort -n | sed -n 3p)
	awk -v op=$op -v on=$on -v off=$off 'BEGIN {
		ns_on = 1e9 / (on * 256); ns_off = 1e9 / (off * 256)
		printf "LATENCY-COST %s: on %.1f MiB/s (%.0f ns/page), off %.1f MiB/s (%.0f ns/page), difference %+.0f ns/page (%+.1f%%)\n",
			op, on, ns_on, off, ns_off, ns_on - ns_off, (ns_on - ns_off) * 100 / ns_off }'
done
