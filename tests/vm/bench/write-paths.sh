# vm: --mem 768 --agent cpu --timeout 1500
# Where ozram's write latency comes from, path by path, with the agent at
# its default settings: blkbench's 4 KiB O_DIRECT writes on ozram0 and on
# zram0 (lz4), traced in the guest's tracefs.  Each write bio's time runs
# from block:block_bio_queue to block:block_bio_complete; on ozram it is
# put in the class of what the module did with its page:
#   staged      an ozram_stage event: copied into the ring for the agent
#   parked      an ozram_park event: held raw until the agent can take it
#               (after a staging attempt that found the ring full, or
#               without one while admission is closed)
#   fallback    an ozram_fallback event and no park: staging refused (ring
#               full, ...), compressed in the writer after the attempt
#   not offered none of these: a same-filled page, or one admission sent
#               straight to the kernel's compressor (past the parking
#               limit; and the pages of a write with no agent)
# Prints each class's count and p50, p99 and p99.9 in microseconds, and
# zram's.  Tracing adds its cost to every write alike; compare within a run.
# Run: tests/vm/run --mem 768 --agent cpu --timeout 1500 --script tests/vm/bench/write-paths.sh
MB=32
REPEATS=3
T=/sys/kernel/tracing

modprobe lz4 || fail "cannot load the crypto lz4 module"
modprobe zram num_devices=1 || fail "cannot load zram"
sysfs_set /sys/block/zram0/comp_algorithm lz4
sysfs_set /sys/block/zram0/disksize $((MB * 2))M
dev_setup 0 $((MB * 2))M
[ -d $T/events ] || mount -t tracefs nodev $T || fail "cannot mount tracefs"

OZ=$(cat /sys/block/ozram0/dev | tr : ,)
ZR=$(cat /sys/block/zram0/dev | tr : ,)
echo 0 >$T/tracing_on
echo >$T/trace
echo 32768 >$T/buffer_size_kb
for e in block/block_bio_queue block/block_bio_complete; do
	echo 'rwbs ~ "W*"' >$T/events/$e/filter || fail "cannot filter $e"
	echo 1 >$T/events/$e/enable
done
echo 1 >$T/events/ozram/ozram_stage/enable
echo 1 >$T/events/ozram/ozram_fallback/enable
echo 1 >$T/events/ozram/ozram_park/enable

echo 1 >$T/tracing_on
blkbench --mb $MB --repeats $REPEATS /dev/ozram0 /dev/zram0 >/tmp/blkbench.txt ||
	fail "blkbench failed: $(tail -n 3 /tmp/blkbench.txt)"
echo 0 >$T/tracing_on
grep -E '^(RESULT|LATENCY)' /tmp/blkbench.txt | grep write
[ "$(cat $T/per_cpu/cpu*/stats | awk '/^overrun/ { n += $2 } END { print n + 0 }')" = 0 ] ||
	fail "the trace buffer overran: the classes would miss writes"

# One line per write bio: CLASS MICROSECONDS.
awk -v oz="$OZ" -v zr="$ZR" '
function key(dev, sector) { return dev " " sector }
{
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1) * 1e6; ev = $(i + 1); f = i + 2; break }
}
ev == "block_bio_queue:" { start[key($f, $(f + 2))] = ts; path[key($f, $(f + 2))] = ""; next }
ev == "ozram_stage:" || ev == "ozram_fallback:" {
	split($(f + 1), kv, "=")
	k = key(oz, kv[2] * 8)
	if (k in start && path[k] == "") path[k] = (ev == "ozram_stage:" ? "staged" : "fallback")
	next
}
# A page parked after its staging attempt failed is parked, not a fallback.
ev == "ozram_park:" {
	split($(f + 1), kv, "=")
	k = key(oz, kv[2] * 8)
	if (k in start) path[k] = "parked"
	next
}
ev == "block_bio_complete:" {
	k = key($f, $(f + 2))
	if (!(k in start)) next
	if ($f == zr) c = "zram"
	else if ($f == oz) c = (path[k] == "" ? "not_offered" : path[k])
	else c = ""
	if (c != "") print c, ts - start[k]
	delete start[k]; delete path[k]
}' $T/trace >/tmp/writes.txt
[ -s /tmp/writes.txt ] || fail "no write was traced"

echo "WRITE-PATHS class count p50_us p99_us p999_us"
for c in staged parked fallback not_offered zram; do
	awk -v c=$c '$1 == c { print $2 }' /tmp/writes.txt | sort -n >/tmp/class.txt
	n=$(wc -l </tmp/class.txt)
	if [ "$n" = 0 ]; then
		echo "WRITE-PATHS $c 0"
		continue
	fi
	pct() { sed -n "$(( ($1 * n + 999) / 1000 ))p" /tmp/class.txt; }
	echo "WRITE-PATHS $c $n $(pct 500) $(pct 990) $(pct 999)"
done
all=$(awk '$1 != "zram"' /tmp/writes.txt | wc -l)
zw=$(awk '$1 == "zram"' /tmp/writes.txt | wc -l)
check_eq "$zw" $((MB * 256 * 2 * REPEATS)) "zram's write bios traced"
check_eq "$all" $((MB * 256 * 2 * REPEATS)) "ozram's write bios traced"
awk '$1 != "zram" { print $2 }' /tmp/writes.txt | sort -n >/tmp/class.txt
n=$all
pct() { sed -n "$(( ($1 * n + 999) / 1000 ))p" /tmp/class.txt; }
echo "WRITE-PATHS ozram_all $n $(pct 500) $(pct 990) $(pct 999)"
# Of ozram's slowest 1 %, how many went each way.
awk '$1 != "zram"' /tmp/writes.txt | sort -k2 -n | tail -n $((all / 100)) |
	awk '{ n[$1]++ } END { for (c in n) print "WRITE-PATHS slowest_1pct", c, n[c] }'
