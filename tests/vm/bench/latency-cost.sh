# vm: --mem 512 --timeout 1200
# What the latency histograms cost per page I/O: blkbench's 4 KiB O_DIRECT
# writes and reads on ozram0 and on stock zram0 (lz4), back to back per
# operation, with the module parameter latency_stats on and off,
# alternately, six rounds each (the first one alternating), in one VM.
# Each round gives a paired ratio ozram/zram per operation, which the
# host's drift between rounds moves less than the rates themselves; prints
# the median ratio of each setting per operation, and the median rates.
# Run: tests/vm/run --mem 512 --timeout 1200 --script tests/vm/bench/latency-cost.sh
P=/sys/module/ozram/parameters/latency_stats
S=$(sysdir 0)
MB=32
load_module lz4
load_module zram num_devices=1
echo lz4 >/sys/block/zram0/comp_algorithm
sysfs_set /sys/block/zram0/disksize 128M
dev_setup 0 128M

# round on|off: one blkbench run; appends "SETTING OP OZRAM_MIBPS ZRAM_MIBPS".
round() {
	if [ "$1" = on ]; then echo 1 >$P; else echo 0 >$P; fi
	before=$(awk '{ print $2 }' $S/latency_stat | tr '\n' ' ')
	blkbench --mb $MB --repeats 1 /dev/ozram0 /dev/zram0 >/tmp/round.txt || fail "blkbench failed"
	after=$(awk '{ print $2 }' $S/latency_stat | tr '\n' ' ')
	# Off, the histograms must not move; on, they must.
	if [ "$1" = off ]; then
		check_eq "$after" "$before" "latency_stat unchanged with latency_stats=0"
	else
		[ "$after" != "$before" ] || fail "latency_stat did not count with latency_stats=1"
	fi
	awk -v s="$1" '$1 == "RESULT" {
		split($2, d, "="); split($3, o, "="); split($4, m, "=")
		v[o[2], d[2]] = m[2]; ops[o[2]] = 1 }
		END { for (op in ops) print s, op, v[op, "/dev/ozram0"], v[op, "/dev/zram0"] }' \
		/tmp/round.txt >>/tmp/rounds
}

for r in 1 2 3 4 5 6; do
	if [ $((r % 2)) = 1 ]; then round on; round off; else round off; round on; fi
done
cat /tmp/rounds
# median FILTER COLUMN-EXPRESSION: the median over the rounds that match.
median() {
	awk "$1 { print $2 }" /tmp/rounds | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.3f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for op in $(awk '{ print $2 }' /tmp/rounds | sort -u); do
	for s in on off; do
		f="\$1 == \"$s\" && \$2 == \"$op\""
		echo "LATENCY-COST $op, latency_stats $s: ozram $(median "$f" '$3') MiB/s," \
			"zram $(median "$f" '$4') MiB/s, paired ratio $(median "$f" '$3 / $4')x"
	done
done
