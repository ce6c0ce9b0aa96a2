# vm: --mem 512 --agent cpu --no-module --timeout 1800
# Where the time of a recompression goes: the kernel's own loop against
# the agent's batches, with verify=1 (the default) and with verify=0, and
# the cost of decoding each format, in one VM.
#
# Each round fills a fresh device with 64 MiB of idle LZ4 text pages
# (16,384 pages, as recompress.sh), times one O_DIRECT read of every page
# (an LZ4 decode per page), times one recompress type=idle with zstd, then
# times one O_DIRECT read of every page again (a zstd decode per page) and
# checks every byte.  For each timed step it records the wall time, the
# busy time of both CPUs (/proc/stat: everything but idle and iowait) and,
# with an agent, the agent's user and system time (/proc/PID/stat); the
# module checks and stores the agent's results inside the agent's
# completion ioctl, so that check is in the agent's system time.
#
# Rounds: the kernel's loop (no agent) and the agent, alternating, three of
# each with the module loaded verify=1, then three agent rounds with the
# module reloaded verify=0.  Prints each round, then medians per page.
# Run: tests/vm/run --mem 512 --agent cpu --no-module --timeout 1800 \
#          --script tests/vm/bench/recompress-profile.sh
PAGES=16384
S=/sys/block/ozram0
D=/dev/ozram0
pagegen --pages $PAGES --kind text --seed 91 >/tmp/text.bin
sum=$(md5 /tmp/text.bin)

# busy_ticks: USER_HZ ticks of all CPUs not idle and not waiting for I/O.
busy_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
# agent_ticks FIELD: the agent's utime (14) or stime (15), 0 without one.
agent_ticks() {
	pid=$(agent_pid)
	if [ -n "$pid" ]; then awk -v f="$1" '{ print $f }' "/proc/$pid/stat"; else echo 0; fi
}

# timed NAME CMD...: runs CMD, appends "NAME WALL_CS BUSY AGENT_USER
# AGENT_SYS" (ticks) to the round's line.
timed() {
	name=$1
	shift
	b0=$(busy_ticks) u0=$(agent_ticks 14) s0=$(agent_ticks 15) t0=$(uptime_cs)
	"$@"
	t1=$(uptime_cs) b1=$(busy_ticks) u1=$(agent_ticks 14) s1=$(agent_ticks 15)
	line="$line $name $((t1 - t0)) $((b1 - b0)) $((u1 - u0)) $((s1 - s0))"
}

read_all() {
	got=$(dd if=$D bs=1M count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
}

# round WHO VERIFY: appends one line to /tmp/rounds.
round() {
	if [ "$1" = kernel ]; then stop_agent; else start_agent >/dev/null || fail "no agent"; fi
	fill_idle lz4 zstd /tmp/text.bin
	line="$1 verify=$2"
	timed read-lz4 read_all
	check_eq "$got" "$sum" "every byte before the $1's recompression"
	sysfs_set $S/idle all
	timed recompress sysfs_set $S/recompress type=idle
	check_eq "$(backend_field recompressed_pages)" $PAGES \
		"pages the $1 recompressed"
	timed read-zstd read_all
	check_eq "$got" "$sum" "every byte after the $1's recompression"
	echo "RECOMPRESS-PROFILE $line"
	echo "$line" >>/tmp/rounds
	sysfs_set $S/reset 1
}

load_ozram num_devices=1 verify=1
start_agent >/dev/null || fail "no agent" # calibrates once, outside the rounds
for r in 1 2 3; do
	if [ $((r % 2)) = 1 ]; then round kernel 1; round agent 1; else round agent 1; round kernel 1; fi
done
unload_ozram
load_ozram num_devices=1 verify=0
for r in 1 2 3; do
	round agent 0
done
unload_ozram

# For each kind of round and each step, the medians per page in µs (a
# tick is 10 ms): wall, busy CPU, the agent's user and system time.
awk -v pages=$PAGES '
{
	who = $1 " " $2
	for (i = 3; i + 4 <= NF; i += 5) {
		k = who " " $i
		n[k]++
		for (j = 1; j <= 4; j++)
			v[k, j, n[k]] = $(i + j)
	}
}
function median(k, j,   m, a, x, y, t) {
	m = n[k]
	for (x = 1; x <= m; x++)
		a[x] = v[k, j, x]
	for (x = 1; x <= m; x++)
		for (y = x + 1; y <= m; y++)
			if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
	return a[int((m + 1) / 2)] * 10000 / pages
}
END {
	for (k in n)
		printf "RECOMPRESS-PROFILE median %s: wall %.1f us/page, busy %.1f, agent user %.1f, agent sys %.1f\n",
			k, median(k, 1), median(k, 2), median(k, 3), median(k, 4)
}' /tmp/rounds | sort
