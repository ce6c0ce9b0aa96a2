# vm: --mem 1024 --agent cpu --timeout 1500
# Kernel CPU per stored page: 4 x 64 MiB of compressible text written with
# O_DIRECT to stock zram (lz4), to ozram without an agent, to ozram with the
# agent at its default nice value (19 without a GPU) and with the agent at
# nice 0, the value it takes with a GPU, at verify=1 (the default, checked),
# five rounds of each, the order rotating per round.  The cost of a round
# is the system, irq and softirq time of all CPUs (/proc/stat) from the
# first write until the device holds every page (no page left staged or
# parked), divided by the pages written, less the system time of the
# agent's own process (/proc/PID/stat) but for its doorbell thread's
# (ozramd-doorbell, /proc/PID/task/TID/stat): the module checks and stores
# the agent's results inside the agent's OZRAM_RING_IOC_COMPLETE, which
# that thread makes, and which counts as the agent's system time.  The
# headline counts that check and store in: what the host pays in the kernel
# when the agent's compression runs elsewhere, as on a GPU.  Beside it, the
# figure without the doorbell, the agent's whole system time counted in (an
# upper bound), and the agent's own system and user time per page; and the
# kernel's cost of one page through the ring, estimated from the pages that
# went inline at the rate without an agent.  The figure stands for what a
# GPU agent saves the host, so the agent at nice 0 is the one that runs as
# a GPU agent would; at nice 19 it yields the CPU to the writer and fewer
# pages reach the ring.  Every round reads every byte back.  Prints medians
# and ratios to zram; the target (issue "the kernel's price per offloaded
# page") is ozram with the agent, counting the doorbell, <= 0.6x zram.
# Run: tests/vm/run --mem 1024 --agent cpu --timeout 1500 \
#          --script tests/vm/bench/kernel-cpu.sh
FILES=4
PAGES=16384 # per file: 64 MiB
ROUNDS=5

load_module lz4
load_module zram num_devices=1
sums=$(text_files $FILES)

[ "$(cat /sys/module/ozram/parameters/verify)" = Y ] || fail "verify is not 1"
echo "KERNEL-CPU verify=1"

# kernel_ticks: system + irq + softirq of all CPUs, in USER_HZ ticks.
kernel_ticks() { awk '$1 == "cpu" { print $4 + $7 + $8 }' /proc/stat; }
# agent_ticks FIELD: the agent's utime (14) or stime (15), 0 without one.
agent_ticks() {
	pid=$(agent_pid)
	if [ -n "$pid" ]; then awk -v f="$1" '{ print $f }' "/proc/$pid/stat"; else echo 0; fi
}

# doorbell_ticks: the system time of the agent's doorbell thread, 0 without
# an agent.  The names are read with the shell's own read: no fork.
doorbell_ticks() {
	pid=$(agent_pid)
	if [ -n "$pid" ]; then
		for t in /proc/$pid/task/*; do
			read -r name <"$t/comm" || continue
			if [ "$name" = ozramd-doorbell ]; then
				awk '{ print $15 }' "$t/stat"
				return
			fi
		done
		fail "no ozramd-doorbell thread in ozramd $pid"
	fi
	echo 0
}

# settled: waits until ozram0 holds no staged or parked page.  Reads backend_stat
# with the shell's own read, polling every 0.2 s: a forked poller would add
# its own system time to the measurement.
settled() {
	while :; do
		staged= parked=
		while read -r name value; do
			[ "$name" = staged_pages: ] && staged=$value
			[ "$name" = parked_pages: ] && parked=$value
		done </sys/block/ozram0/backend_stat
		[ "$staged" = 0 ] && [ "$parked" = 0 ] && return 0
		sleep 0.2
	done
}

# round zram|ozram|agent|agent-nice0: one measured round; appends
# "WHO KERNEL_US_PER_PAGE AGENT_SYS_US AGENT_USER_US RING_PAGES DOORBELL_US
# WITH_DOORBELL_US".
round() {
	who=$1
	case $who in
	zram) d=zram0 && stop_agent ;;
	ozram) d=ozram0 && stop_agent ;;
	agent) d=ozram0 && stop_agent && { start_agent >/dev/null || fail "no agent"; } ;;
	agent-nice0) d=ozram0 && stop_agent && { start_agent --nice 0 >/dev/null || fail "no agent"; } ;;
	esac
	[ $who = zram ] && sysfs_set /sys/block/zram0/comp_algorithm lz4
	sysfs_set /sys/block/$d/disksize $((FILES * 64 + 16))M
	submitted=0
	[ $d = ozram0 ] && submitted=$(backend_field ring_submitted_total)
	sync
	k0=$(kernel_ticks) s0=$(agent_ticks 15) u0=$(agent_ticks 14) b0=$(doorbell_ticks)
	write_text_files $d
	[ $d = ozram0 ] && settled
	k1=$(kernel_ticks) s1=$(agent_ticks 15) u1=$(agent_ticks 14) b1=$(doorbell_ticks)
	ring=0
	[ $d = ozram0 ] && ring=$(($(backend_field ring_submitted_total) - submitted))
	check_eq "$(dd if=/dev/$d bs=1M count=$((FILES * 64)) iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$sums" "every byte on $d ($who)"
	pages=$((FILES * PAGES))
	# One tick is 10 ms: 10000 us.
	us() { awk -v t="$1" -v p=$pages 'BEGIN { printf "%.2f", t * 10000 / p }'; }
	kernel=$(us $((k1 - k0 - (s1 - s0))))
	doorbell=$(us $((b1 - b0)))
	with=$(us $((k1 - k0 - (s1 - s0) + (b1 - b0))))
	echo "KERNEL-CPU $who: $with us/page in the kernel with the doorbell's $doorbell," \
		"agent $(us $((s1 - s0))) us/page system + $(us $((u1 - u0))) us/page user," \
		"$ring of $pages pages through the ring"
	echo "$who $kernel $(us $((s1 - s0))) $(us $((u1 - u0))) $ring $doorbell $with" >>/tmp/rounds
	sysfs_set /sys/block/$d/reset 1
}

start_agent >/dev/null || fail "no agent" # it calibrates once, outside the rounds
for r in $(seq 1 $ROUNDS); do
	case $((r % 4)) in
	1) round zram && round ozram && round agent && round agent-nice0 ;;
	2) round ozram && round agent && round agent-nice0 && round zram ;;
	3) round agent && round agent-nice0 && round zram && round ozram ;;
	0) round agent-nice0 && round zram && round ozram && round agent ;;
	esac
done

# median WHO COLUMN
median() {
	awk -v w="$1" -v c="$2" '$1 == w { print $c }' /tmp/rounds | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
z=$(median zram 7)
o=$(median ozram 7)
echo "KERNEL-CPU median us/page, the doorbell's check and store counted in (verify=1):" \
	"zram $z, ozram $o ($(ratio $o $z)x)," \
	"ozram with the agent at its default nice $(median agent 7) ($(ratio $(median agent 7) $z)x)," \
	"at nice 0 $(median agent-nice0 7) ($(ratio $(median agent-nice0 7) $z)x)"
# report WHO LABEL: the medians of one agent's rounds.
report() {
	with=$(median $1 7)
	a=$(median $1 2)
	sys=$(median $1 3)
	upper=$(awk -v a=$a -v s=$sys 'BEGIN { printf "%.2f", a + s }')
	echo "KERNEL-CPU median us/page, $2: $with with the doorbell ($(ratio $with $z)x)," \
		"without it $a ($(ratio $a $z)x), the doorbell $(median $1 6)," \
		"with the agent's whole system time $upper ($(ratio $upper $z)x)"
	ring=$(median $1 5)
	# The ring pages' own cost: what the agent's rounds cost beyond the pages
	# compressed inline, at the no-agent rate.
	ring_cost=$(awk -v a=$with -v o=$o -v n=$((FILES * PAGES)) -v r=$ring \
		'BEGIN { if (r > 0) printf "%.2f", (a * n - (n - r) * o) / r; else print "-" }')
	echo "KERNEL-CPU $2, agent median us/page: system $sys, user $(median $1 4);" \
		"ring pages $ring of $((FILES * PAGES)), each costing the kernel about $ring_cost us" \
		"with the doorbell"
}
report agent "agent at its default nice"
report agent-nice0 "agent at nice 0 (as with a GPU)"
