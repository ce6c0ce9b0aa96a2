# vm: --mem 320 --agent cpu --timeout 560
# The agent dies or hangs in the middle of a swap-heavy run: kill -9 (the
# module drains what was staged when the ring file closes), a restarted
# agent stopped with SIGSTOP while a second hog swaps (the module's
# time-out takes its pages back), then SIGCONT and a clean restart.  Both
# memhogs verify every byte they wrote,
# and the ring counters show the drains and the time-outs.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)
ram_mb=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024))
hog_mb=$((ram_mb * 3 / 2))

dev_setup 0 512M
mkswap $D >/dev/null || fail "mkswap failed"
swapon $D || fail "swapon failed"
echo 300 >/sys/module/ozram/parameters/ring_timeout_ms

step "memhog: $hog_mb MiB in a VM with $ram_mb MiB, agent attached"
memhog --mb $hog_mb --seed 12 >/tmp/memhog.log 2>&1 &
hog=$!
# Wait until the swap traffic goes through the agent.
i=0
while [ "$(backend_field ring_submitted)" -lt 2000 ]; do
	i=$((i + 1))
	[ $i -le 240 ] || fail "less than 2000 pages reached the ring in 120 s"
	sleep 0.5
done
note "ozramd: $(grep -E 'VmRSS|VmLck' /proc/$(agent_pid)/status | tr -s ' \t\n' ' ')"
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"

step "kill -9 of the agent (ring occupancy $(backend_field ring_occupancy))"
kill -KILL "$(agent_pid)"
wait_detached
rm -f $OZRAMD_PIDFILE
note "after the kill: $(tr '\n' ' ' <$S/backend_stat)"
sleep 3

step "restart, then kill -STOP: the time-out takes the pages back"
start_agent || fail "cannot restart ozramd"
sleep 3
kill -STOP "$(agent_pid)"
# The first hog may be past its swapping by now: a second one, of the
# VM's memory, swaps while the agent is stopped.
memhog --mb $ram_mb --seed 13 >/tmp/memhog2.log 2>&1 &
hog2=$!
i=0
while [ "$(backend_field ring_timeouts)" = 0 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_eq "$(backend_field agent)" attached "a stopped agent stays attached"
note "while stopped: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(backend_field ring_timeouts)" -gt 0 "ring_timeouts while the agent is stopped"

step "kill -CONT, then a clean restart"
kill -CONT "$(agent_pid)"
sleep 3
stop_agent
start_agent || fail "cannot restart ozramd"

step "both memhogs verify every byte"
for h in "$hog /tmp/memhog.log" "$hog2 /tmp/memhog2.log"; do
	set -- $h
	wait $1 || {
		cat $2
		fail "memhog reported corrupted pages (or could not run): $2"
	}
	tail -n 3 $2
done
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(backend_field ring_submitted)" -gt 0 "ring_submitted"
check_cmp "$(backend_field agent_cpu)" -ge 0 "agent_cpu"
check_cmp "$(backend_field ring_completed)" -gt 0 "ring_completed"
check_cmp "$(backend_field ring_timeouts)" -gt 0 "ring_timeouts"
check_cmp "$(( $(backend_field ring_drained) + $(backend_field ring_timeouts) ))" -gt 0 "pages taken back"
check_eq "$(backend_field ring_rejected)" 0 "ring_rejected"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
swapoff $D || fail "swapoff failed"
dev_reset 0
