# The soak, run inside the VM by tests/vm/soak: every load and every fault
# at once for SOAK_DURATION seconds, then every device and file read back
# against what was written, and a summary that counts each fault.
#
#   ozram0, ozram1  fio, libaio, verify=crc32c          (soak-load.sh)
#   ozram2          ext4: stress-ng --hdd --verify and files of known bytes
#   ozram3          swap under memhog, which checks every byte it wrote
#   ozram4...       hot-added idle devices that the faults reset and remove
#
# The faults (soak-faults.sh) run in three groups at once, each on a schedule
# drawn from the seed.  Every random choice comes from SOAK_SEED: each process draws
# from its own stream of it, so that what it chooses does not depend on how
# the processes happen to interleave; the interleaving itself does differ
# from run to run.
#
# Settings (tests/vm/soak passes them with run --env): SOAK_SEED,
# SOAK_DURATION (seconds), SOAK_RING_TIMEOUT_MS (empty: the module's).

SEED=${SOAK_SEED:?tests/vm/soak sets SOAK_SEED}
DURATION=${SOAK_DURATION:-600}
W=/tmp/soak
mkdir -p $W/count
: >$W/failures
. /opt/ozram-test/soak-rng.sh
. /opt/ozram-test/soak-load.sh
. /opt/ozram-test/soak-faults.sh

[ "$DEV" = ozram ] || fail "the soak needs ozram (backend_stat, the ring): DEV=$DEV"

# count NAME [N]: N more (default 1) of NAME, for the summary; any process.
count() { echo "${2:-1}" >>$W/count/$1; }
counted() { awk '{ s += $1 } END { print s + 0 }' $W/count/$1 2>/dev/null || echo 0; }

# soak_fail WHAT: a failed check; the soak goes on, and fails at the end.
soak_fail() {
	echo "SOAK-FAIL: $*"
	echo "$*" >>$W/failures
}

# differ N UNIT WHAT: N UNITs of WHAT read back wrong; UNIT is one of
# bytes (files and devices compared with what was written), fio-blocks
# (blocks that failed fio's crc32c), memhog-pages, stress-ng (verify errors).
differ() {
	count differ-$2 "$1"
	soak_fail "$3: $1 $2 differ"
}

stopping() { [ -e $W/stop ]; }

# now: seconds since boot in $NOW, without a fork.
now() {
	read -r NOW _ </proc/uptime
	NOW=${NOW%.*}
}

step "soak: seed $SEED, $DURATION s, agent ${AGENT:-none}, ring_timeout_ms ${SOAK_RING_TIMEOUT_MS:-default}"
note "kernel command line: $(cat /proc/cmdline)"
note "hung tasks reported after $(cat /proc/sys/kernel/hung_task_timeout_secs) s;" \
	"$(dmesg | grep -m 1 -E 'mem auto-init|page_poison' || echo 'no page poisoning')"
if [ -n "${SOAK_RING_TIMEOUT_MS:-}" ]; then
	sysfs_set /sys/module/ozram/parameters/ring_timeout_ms "$SOAK_RING_TIMEOUT_MS"
fi
# A hog may be killed when memory runs out; never the load that checks a
# device, nor the agent.
echo -1000 >/proc/self/oom_score_adj
[ -z "$(agent_pid)" ] || echo -1000 >"/proc/$(agent_pid)/oom_score_adj"

load_setup
# From here on every check says what failed (soak_fail) and the soak goes
# on: one failure must not hide the others.
set +e
step "the load starts: fio on $(dev 0) and $(dev 1), ext4 on $(dev 2), swap on $(dev 3)"
now
START=$NOW
END=$((START + DURATION))
load_start

faults_start
now
[ $NOW -ge $END ] || sleep $((END - NOW))

step "time is up: the load finishes its round, the faults their last one"
touch $W/stop
faults_wait
load_wait
faults_settle

step "every device and file read back"
load_verify
faults_verify
for d in $(faults_devices); do
	ring_settle "$d"
	f=$(stat_field "$(sysdir "$d")/io_stat" failed_reads)
	[ "$f" = 0 ] || soak_fail "$(dev "$d"): $f failed reads"
	f=$(stat_field "$(sysdir "$d")/io_stat" failed_writes)
	[ "$f" = 0 ] || soak_fail "$(dev "$d"): $f failed writes"
done
load_teardown

step "summary"
problems=$(dmesg | grep -c -E "$KERNEL_PROBLEM_PATTERN" || true)
[ "$problems" = 0 ] || soak_fail "the kernel log has $problems problem lines (WARNING, BUG, hung task, ...)"
missing=''
for f in $FAULTS; do
	[ "$(counted fault-$f)" -gt 0 ] || missing="$missing $f"
done
[ -z "$missing" ] || soak_fail "faults never injected (too short a soak?):$missing"
{
	echo "seed $SEED, $DURATION s, agent ${AGENT:-none}, ring_timeout_ms $(cat /sys/module/ozram/parameters/ring_timeout_ms)," \
		"debug boot $(grep -q slub_debug /proc/cmdline && echo yes || echo no)"
	line="faults:"
	for f in $FAULTS; do line="$line $f=$(counted fault-$f)"; done
	echo "$line"
	echo "load: fio $(counted fio-rounds) rounds ($(counted fio-mib) MiB written and verified)," \
		"stress-ng $(counted stress-runs) runs, files $(counted files-written) written," \
		"memhog $(counted memhog-rounds) rounds ($(counted memhog-mib) MiB), $(counted memhog-oom) killed by the OOM killer"
	echo "swap: $(dev 3) held up to $(($(stat_field "$(sysdir 3)/mm_stat" mem_used_max) / 1048576)) MiB of memory"
	echo "read back: fio $(counted fio-final-mib) MiB," \
		"files $(counted files-final) ($(($(counted files-final-bytes) / 1048576)) MiB)," \
		"hot-added devices $(counted scratch-final) ($(($(counted scratch-final-bytes) / 1048576)) MiB)"
	echo "differ: $(counted differ-bytes) bytes, $(counted differ-fio-blocks) fio blocks," \
		"$(counted differ-memhog-pages) memhog pages, $(counted differ-stress-ng) stress-ng verify errors"
	echo "ring: submitted $(backend_field ring_submitted_total), completed $(backend_field ring_completed_total)," \
		"timeouts $(backend_field ring_timeouts_total), drained $(backend_field ring_drained_total)," \
		"inline $(backend_field ring_inline_fallbacks_total), rejected $(backend_field ring_rejected_total)," \
		"stale $(backend_field ring_stale_total), verify failures $(backend_field ring_verify_failures_total)"
	echo "kernel log: $problems problem lines"
	if [ -s $W/failures ]; then
		echo "result: FAIL, $(wc -l <$W/failures) failed checks:"
		sed 's/^/  /' $W/failures
	else
		echo "result: PASS"
	fi
} | sed 's/^/SOAK /'
[ ! -s $W/failures ] || exit 1
