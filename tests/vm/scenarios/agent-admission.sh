# vm: --mem 512 --agent cpu --timeout 600
# Admission: while the agent does not drain the ring (SIGSTOP), written pages
# are not offered to it (parked or compressed in the kernel at once, see
# agent-park.sh) and are counted in ring_admission_inline,
# without staging attempts: ring_submitted and ring_inline_fallbacks grow
# only by what fills the ring and by the probes (one per 50 ms).  After
# SIGCONT the agent drains, admission opens again and pages are staged at
# more than the probes' rate.  Every byte reads back.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)
PAGES=8192 # 32 MiB per region
MB=$((PAGES / 256))
cap=$(cat /sys/module/ozram/parameters/ring_slots)

dev_setup 0 128M
echo 300 >/sys/module/ozram/parameters/ring_timeout_ms
for seed in 1 2 3; do
	pagegen --pages $PAGES --seed $((20 + seed)) --kind text >/tmp/r$seed.bin
done

# counters: "submitted fallbacks admission" now
counters() {
	echo "$(backend_field ring_submitted) $(backend_field ring_inline_fallbacks) $(backend_field ring_admission_inline)"
}
# write_region N: writes /tmp/rN.bin to region N, leaves the seconds it took
# (rounded up) in $secs.
write_region() {
	t0=$(uptime_cs)
	dd if=/tmp/r$1.bin of=$D bs=1M seek=$(($1 * MB)) oflag=direct 2>/dev/null ||
		fail "write of region $1 failed"
	secs=$((($(uptime_cs) - t0) / 100 + 1))
}

step "agent running: pages go through the ring"
set -- $(counters)
write_region 1
ring_settle 0
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$(($(backend_field ring_submitted) - $1))" -gt 0 "pages staged with the agent running"

step "agent stopped: no staging attempts"
ring_settle 0
kill -STOP "$(agent_pid)"
set -- $(counters)
write_region 2
sub=$(($(backend_field ring_submitted) - $1))
fb=$(($(backend_field ring_inline_fallbacks) - $2))
adm=$(($(backend_field ring_admission_inline) - $3))
probes=$((secs * 20 + 1))
note "in $secs s: $sub staged, $fb staging attempts found the ring full, $adm inline by admission (ring of $cap slots, at most $probes probes)"
note "while stopped: $(tr '\n' ' ' <$S/backend_stat)"
check_cmp "$adm" -ge $((PAGES - 2 * cap - probes)) "pages kept from the ring by admission"
# Without admission every page past the full ring tries the ring first.
check_cmp "$((sub + fb))" -le $((2 * cap + probes)) "staging attempts while the agent is stopped"

step "agent continued: staging resumes"
kill -CONT "$(agent_pid)"
ring_settle 0
set -- $(counters)
write_region 3
sub=$(($(backend_field ring_submitted) - $1))
note "in $secs s: $sub staged, $(($(backend_field ring_admission_inline) - $3)) inline by admission"
check_cmp "$sub" -ge $((cap / 2)) "pages staged after SIGCONT"
check_cmp "$sub" -gt $((secs * 20 + 1)) "pages staged beyond the probes' rate"

step "every byte reads back"
for seed in 1 2 3; do
	check_eq "$(dd if=$D bs=1M skip=$((seed * MB)) count=$MB iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5 /tmp/r$seed.bin)" "region $seed, right after the writes"
done
ring_settle 0
for seed in 1 2 3; do
	check_eq "$(dd if=$D bs=1M skip=$((seed * MB)) count=$MB iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5 /tmp/r$seed.bin)" "region $seed, once the agent has finished"
done
note "backend_stat: $(tr '\n' ' ' <$S/backend_stat)"
check_eq "$(backend_field ring_rejected)" 0 "ring_rejected"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"
echo 1000 >/sys/module/ozram/parameters/ring_timeout_ms
dev_reset 0
