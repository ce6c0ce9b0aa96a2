# vm: --mem 320 --agent cpu --timeout 560
# The agent dies or hangs in the middle of a swap-heavy run: kill -9 during
# a memhog (the module drains what was staged when the ring file closes);
# a restarted agent stopped with SIGSTOP during a second memhog (the
# module's time-out takes its pages back), then SIGCONT and a clean
# restart.  Each memhog verifies every byte it wrote, and the ring
# counters show the drains and the time-outs.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)
ram_mb=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024))
# A third over the RAM: the agent's restart mlocks its memory in the middle
# of the swapping, and at half over, 6.12 once ran out of memory there.
hog_mb=$((ram_mb * 4 / 3))

dev_setup 0 512M
mkswap $D >/dev/null || fail "mkswap failed"
swapon $D || fail "swapon failed"
echo 300 >/sys/module/ozram/parameters/ring_timeout_ms

step "memhog: $hog_mb MiB in a VM with $ram_mb MiB, agent attached"
memhog --mb $hog_mb --seed 12 >/tmp/memhog.log 2>&1 &
hog=$!
# Wait until the swap traffic goes through the agent.
i=0
while [ "$(backend_field ring_submitted_total)" -lt 2000 ]; do
	i=$((i + 1))
	[ $i -le 240 ] || fail "less than 2000 pages reached the ring in 120 s"
	sleep 0.5
done
note "ozramd: $(grep -E 'VmRSS|VmLck' /proc/$(agent_pid)/status | tr -s ' \t\n' ' ')"
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"

step "kill -9 of the agent (ring occupancy $(backend_field ring_slots_used))"
kill -KILL "$(agent_pid)"
wait_detached
rm -f $OZRAMD_PIDFILE
note "after the kill: $(tr '\n' ' ' <$S/backend_stat)"
sleep 3

step "restart; the first memhog verifies every byte"
start_agent || fail "cannot restart ozramd"
wait $hog || {
	cat /tmp/memhog.log
	fail "memhog reported corrupted pages (or could not run)"
}
tail -n 3 /tmp/memhog.log

step "a second memhog, then kill -STOP: the time-out takes the pages back"
# One hog at a time: two would need more memory than the VM and its swap.
memhog --mb $hog_mb --seed 13 >/tmp/memhog2.log 2>&1 &
hog2=$!
i=0
while [ "$(backend_field ring_slots_used)" = 0 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -STOP "$(agent_pid)"
i=0
while [ "$(backend_field ring_timeouts_total)" = 0 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_eq "$(backend_field agent)" attached "a stopped agent stays attached"
note "while stopped: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(backend_field ring_timeouts_total)" -gt 0 "ring_timeouts_total while the agent is stopped"

step "kill -CONT, then a clean restart"
kill -CONT "$(agent_pid)"
sleep 3
stop_agent
start_agent || fail "cannot restart ozramd"

step "the second memhog verifies every byte"
wait $hog2 || {
	cat /tmp/memhog2.log
	fail "memhog reported corrupted pages (or could not run)"
}
tail -n 3 /tmp/memhog2.log
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(backend_field ring_submitted_total)" -gt 0 "ring_submitted_total"
check_cmp "$(backend_field agent_cpu_pages)" -ge 0 "agent_cpu"
check_cmp "$(backend_field ring_completed_total)" -gt 0 "ring_completed_total"
check_cmp "$(backend_field ring_timeouts_total)" -gt 0 "ring_timeouts_total"
check_cmp "$(( $(backend_field ring_drained_total) + $(backend_field ring_timeouts_total) ))" -gt 0 "pages taken back"
check_eq "$(backend_field ring_rejected_total)" 0 "ring_rejected_total"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
swapoff $D || fail "swapoff failed"
dev_reset 0
