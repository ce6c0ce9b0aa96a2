# vm: --mem 384 --program /usr/bin/promtool
# vm-zram: no stock zram has no latency_stat
# Latency histograms and the Prometheus output after a known workload:
# nothing is timed while latency_stats is off, its default; once it is on,
# the write and read histograms of latency_stat count exactly the pages written
# and read, the ring's counts every page the agent had (none without it),
# each line's buckets sum to its count, netlink (ozramctl latency -j) says
# what sysfs says, and promtool accepts "ozramctl stats --format prometheus"
# and the file "ozramctl export --textfile" writes.

command -v ozramctl >/dev/null ||
	fail "ozramctl is not in the image: build it (make userspace) before tests/vm/run"
command -v promtool >/dev/null || fail "promtool is not in the VM (tests/vm/run --program)"

S=$(sysdir 0)
D=$(dev 0)
WRITES=300
READS=200

# lat OP FIELD: field 2 (count), 3 (sum_ns) or 4.. (buckets) of OP's line.
lat() { awk -v op="$1" -v f="$2" '$1 == op { print $f }' $S/latency_stat; }

# buckets_sum OP: the sum of OP's buckets.
buckets_sum() { awk -v op="$1" '$1 == op { s = 0; for (i = 4; i <= NF; i++) s += $i; print s }' $S/latency_stat; }

step "latency_stat's layout"
cat $S/latency_stat
check_eq "$(awk '{ print $1 }' $S/latency_stat | tr '\n' ' ')" "write read ring " "one line per operation"
check_eq "$(awk '{ print NF }' $S/latency_stat | sort -u)" 35 "name, count, sum_ns and 32 buckets"

dev_setup 0 64M
P=/sys/module/ozram/parameters/latency_stats

step "latency_stats off, its default: nothing is timed"
check_eq "$(cat $P)" N "latency_stats by default"
pagegen --pages 20 --kind text --seed 12 | dd of=$D bs=4096 oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
dd if=$D of=/dev/null bs=4096 count=20 iflag=direct 2>/dev/null || fail "read failed"
check_eq "$(awk '{ print $2 }' $S/latency_stat | tr '\n' ' ')" "0 0 0 " "counts with latency_stats off"
echo 1 >$P
check_eq "$(cat $P)" Y "latency_stats turned on"

w0=$(lat write 2) r0=$(lat read 2) g0=$(lat ring 2)
s0=$(backend_field ring_submitted_total)

step "$WRITES page writes and $READS page reads, one page per request"
pagegen --pages $WRITES --kind text --seed 11 >/tmp/text.bin
dd if=/tmp/text.bin of=$D bs=4096 oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
dd if=$D of=/tmp/back.bin bs=4096 count=$READS iflag=direct 2>/dev/null || fail "read failed"
check_eq "$(md5 /tmp/back.bin)" "$(head -c $((READS * 4096)) /tmp/text.bin | md5sum | cut -d' ' -f1)" \
	"the pages read back"
cat $S/latency_stat

check_eq "$(($(lat write 2) - w0))" $WRITES "write histogram count = pages written"
check_eq "$(($(lat read 2) - r0))" $READS "read histogram count = pages read"
submitted=$(($(backend_field ring_submitted_total) - s0))
check_eq "$(($(lat ring 2) - g0))" $submitted "ring histogram count = pages staged (ring_submitted_total)"
if [ "${AGENT:-none}" = cpu ]; then
	check_eq "$submitted" $WRITES "every page written went through the ring"
	check_eq "$(backend_field ring_stale_total)" 0 "no stale completion (nothing overwritten)"
else
	check_eq "$submitted" 0 "no ring without an agent"
fi
for op in write read ring; do
	check_eq "$(buckets_sum $op)" "$(lat $op 2)" "$op: the buckets sum to the count"
done
check_cmp "$(lat write 3)" -gt 0 "write sum_ns"
check_cmp "$(lat read 3)" -gt 0 "read sum_ns"

step "netlink says what sysfs says"
ozramctl latency ozram0
ozramctl latency -j ozram0 >/tmp/l.json
cat /tmp/l.json
for op in write read ring; do
	n=$(sed -n "s/.*\"$op\":{\"count\":\([0-9]*\),\"sum_ns\":\([0-9]*\).*/\1 \2/p" /tmp/l.json)
	check_eq "$n" "$(lat $op 2) $(lat $op 3)" "ozramctl latency: $op count and sum_ns"
done

step "reset-stats clears the histograms"
ozramctl reset-stats ozram0
check_eq "$(awk '{ print $2 }' $S/latency_stat | tr '\n' ' ')" "0 0 0 " "counts after reset-stats"
dd if=$D of=/dev/null bs=4096 count=10 iflag=direct 2>/dev/null
check_eq "$(lat read 2)" 10 "read count after 10 more reads"

step "promtool accepts the Prometheus output"
ozramctl stats --format prometheus >/tmp/metrics.prom
grep -c '' /tmp/metrics.prom
promtool check metrics </tmp/metrics.prom >/tmp/promtool.out 2>&1 || {
	cat /tmp/promtool.out
	fail "promtool check metrics refused ozramctl stats --format prometheus"
}
check_eq "$(cat /tmp/promtool.out)" "" "promtool's complaints"
check_eq "$(sed -n 's/^ozram_io_latency_seconds_count{device="ozram0",op="read"} //p' /tmp/metrics.prom)" 10 \
	"ozram_io_latency_seconds_count of reads"
check_eq "$(sed -n 's/^ozram_disksize_bytes{device="ozram0"} //p' /tmp/metrics.prom)" "$(cat $S/disksize)" \
	"ozram_disksize_bytes"

step "ozramctl export writes the file for node_exporter"
mkdir -p /tmp/textfile
ozramctl export --textfile /tmp/textfile
ls -la /tmp/textfile
check_eq "$(ls -A /tmp/textfile)" ozram.prom "only ozram.prom in the directory"
promtool check metrics </tmp/textfile/ozram.prom >/tmp/promtool.out 2>&1 ||
	fail "promtool refused the textfile: $(cat /tmp/promtool.out)"
check_eq "$(stat -c %a /tmp/textfile/ozram.prom)" 644 "the file's mode"

step "ozramctl export --interval: a failed write withdraws the file, a later one brings it back"
mkdir -p /tmp/full
mount -t tmpfs -o size=1m tmpfs /tmp/full || fail "cannot mount a tmpfs"
ozramctl export --textfile /tmp/full --interval 2 2>/tmp/export.err &
exporter=$!
wait_until "the first write did not come" '[ -e /tmp/full/ozram.prom ]'
# Fill the filesystem: the next write fails with ENOSPC.
dd if=/dev/zero of=/tmp/full/filler bs=4k 2>/dev/null || true
wait_until "no error reported for the full directory" \
	"grep -q '^ozramctl: export: .*; the file is removed until a write succeeds' /tmp/export.err"
# The round after the error comes 2 s later: until then the file is gone.
[ ! -e /tmp/full/ozram.prom ] || fail "the file stayed after a failed write"
rm /tmp/full/filler
wait_until "the file did not come back" '[ -e /tmp/full/ozram.prom ]'
pid_alive $exporter || fail "the exporter ended: $(cat /tmp/export.err)"
kill -TERM $exporter
wait $exporter || fail "the exporter's exit status after SIGTERM: $?"
# Nobody writes the figures any more: they are withdrawn.
[ ! -e /tmp/full/ozram.prom ] || fail "the file stayed after SIGTERM"
note "$(cat /tmp/export.err)"
umount /tmp/full
