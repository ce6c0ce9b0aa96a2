# vm: --mem 384 --agent cpu --program /usr/bin/perf
# vm-zram: no stock zram has no ozram tracepoints
# The ozram tracepoints, recorded with perf in the guest over a workload that
# makes each of them fire: pages staged for ozramd, its completions and
# stores; pages parked while the agent is stopped; the agent stopped until
# its pages time out and are taken back; stopped again and killed with pages
# in flight (drain); writes with no agent (fallback); a rogue agent's wrong
# answers (verify failure).  Every event must appear, with the fields that
# tell why, and the stage, park and verify-failure events must number
# exactly what backend_stat counted.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"
command -v perf >/dev/null || fail "perf is not in the VM (tests/vm/run --program)"

S=$(sysdir 0)
D=$(dev 0)
EVENTS="ozram_stage ozram_park ozram_complete ozram_fallback ozram_verify_failure ozram_take_back ozram_drain ozram_store"

step "the events in tracefs"
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T || fail "cannot mount tracefs"
ls $T/events/ozram
for e in $EVENTS; do
	[ -r $T/events/ozram/$e/format ] || fail "no tracepoint ozram:$e"
done
check_eq "$(ls $T/events/ozram | grep -c '^ozram_')" 8 "ozram's tracepoints"

# The ages of ozram_store and ozram_take_back are timed with the histograms.
echo 1 >/sys/module/ozram/parameters/latency_stats
dev_setup 0 64M
pagegen --pages 1500 --kind text --seed 5 >/tmp/pages.bin
submitted0=$(backend_field ring_submitted_total)
verify0=$(backend_field ring_verify_failures_total)
parked0=$(backend_field pages_parked_total)

# The workload perf records: one phase per event.
cat >/tmp/workload.sh <<WORKLOAD
set -e
w() { dd if=/tmp/pages.bin of=$D bs=4096 seek=\$1 skip=\$1 count=\$2 oflag=direct 2>/dev/null; }
settle() {
	while [ "\$(sed -n -e 's/^staged_pages: //p' -e 's/^parked_pages: //p' $S/backend_stat | sort -u)" != 0 ]; do
		sleep 0.05
	done
}
# Staged, completed and stored by the agent.
w 0 100
settle
# The agent stopped and more pages written than the ring holds: the rest
# are parked, and staged once it runs again.
echo 60000 >/sys/module/ozram/parameters/ring_timeout_ms
kill -STOP $(agent_pid)
w 350 1150
kill -CONT $(agent_pid)
settle
# The agent stopped: its pages time out and the kernel takes them back.
echo 300 >/sys/module/ozram/parameters/ring_timeout_ms
kill -STOP $(agent_pid)
w 100 50
settle
# Stopped again with pages in flight, then killed: the detach drains them.
echo 60000 >/sys/module/ozram/parameters/ring_timeout_ms
w 150 50
kill -KILL $(agent_pid)
settle
# No agent: the kernel compresses at once.
w 200 50
# A rogue agent whose LZ4 answers decode to other bytes.
rogue-agent --seconds 2 --no-jump --kind wrong_lz4 >/tmp/rogue.log 2>&1 &
while ! grep -q '^agent: attached' $S/backend_stat; do sleep 0.05; done
w 250 100
wait \$!
settle
WORKLOAD

step "perf record -e 'ozram:*' over the workload"
perf record -q -a -e 'ozram:*' -o /tmp/perf.data -- sh /tmp/workload.sh ||
	fail "perf record or the workload failed"
rm -f $OZRAMD_PIDFILE
cat /tmp/rogue.log
check_eq "$(dd if=$D bs=4096 count=1500 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5sum </tmp/pages.bin | cut -d' ' -f1)" "every page written reads back"

perf script -i /tmp/perf.data >/tmp/trace.txt 2>/tmp/perf-script.err ||
	fail "perf script failed: $(cat /tmp/perf-script.err)"
for e in $EVENTS; do
	note "$e: $(grep -c "ozram:$e:" /tmp/trace.txt) events, e.g. $(grep -m 1 "ozram:$e:" /tmp/trace.txt | sed 's/.*ozram:/ozram:/')"
done

step "each event appeared, saying why"
# has PATTERN WHAT: some recorded event matches PATTERN.
has() {
	grep -q "$1" /tmp/trace.txt || fail "no event: $2"
	note "ok: $2"
}
has "ozram:ozram_stage: dev=0 index=[0-9]* slot=[0-9]* generation=[0-9]* recompress=0" "stage"
has "ozram:ozram_complete: .* verdict=ok status=0 encoding=1 " "a completion with an LZ4 result"
has "ozram:ozram_park: dev=0 index=[0-9]*$" "a parked page"
has "ozram:ozram_store: dev=0 .* by=agent age_ns=[1-9]" "a store of the agent's result, with its age"
has "ozram:ozram_take_back: dev=0 .* reason=timeout age_ns=[1-9]" "a take-back at the timeout, with its age"
has "ozram:ozram_take_back: dev=0 .* reason=drained age_ns=[1-9]" "a take-back at the detach"
has "ozram:ozram_drain: pages=[1-9]" "a drain with pages in flight"
has "ozram:ozram_store: dev=0 .* by=kernel age_ns=[1-9]" "a staged page stored by the kernel"
has "ozram:ozram_fallback: dev=0 index=2[0-4][0-9] reason=no_agent" "a fallback without an agent"
has "ozram:ozram_complete: .* verdict=ok status=0 encoding=1 " "the rogue's LZ4 answers"
has "ozram:ozram_verify_failure: dev=0 index=[0-9]* slot=[0-9]* encoding=1 length=[1-9]" "a verify failure"

step "the events number what backend_stat counted"
check_eq "$(grep -c 'ozram:ozram_stage:' /tmp/trace.txt)" \
	"$(($(backend_field ring_submitted_total) - submitted0))" "stage events = ring_submitted_total"
check_eq "$(grep -c 'ozram:ozram_park:' /tmp/trace.txt)" \
	"$(($(backend_field pages_parked_total) - parked0))" "park events = parked_total"
check_eq "$(grep -c 'ozram:ozram_verify_failure:' /tmp/trace.txt)" \
	"$(($(backend_field ring_verify_failures_total) - verify0))" "verify_failure events = ring_verify_failures_total"
check_eq "$(grep -c 'ozram:ozram_fallback: dev=0 index=2[0-4][0-9] reason=no_agent' /tmp/trace.txt)" 50 \
	"no_agent fallback events = pages written without an agent"
