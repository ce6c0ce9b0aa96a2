# The soak's faults (sourced by soak.sh), in three groups that run at the
# same time, each one fault after another: the agent's (killed, stopped,
# restarted, replaced once by the rogue agent, killed in the middle of a
# recompression), hotplug on hot-added devices (hot_add, hot_remove, reset
# of idle ones; park_mem_limit, a device of its own written at its
# mem_limit while the agent is stopped), and maintenance of the busy
# devices 0 to 3 (compact, mem_limit, idle, recompress, writeback,
# drop_caches).  So the agent can die while a device is reset and another
# compacted, as on a real machine.
#
# Each group has a schedule drawn from the seed: every fault of the group
# once, in a random order, 1 to 3 s apart, then random ones (the rogue
# agent excepted: it runs once) until the time is up, 2 to 6 s apart (the
# agent's 4 to 12 s).  A fault that comes late (the one before took long)
# runs at once.  One function fault_NAME per fault.
#
# A new fault is a function fault_NAME here and its name in a group below;
# the schedule, the counts and the summary follow.
# shellcheck shell=sh

FAULTS_AGENT=''
FAULTS_HOTPLUG="hot_add hot_remove reset"
if [ "${AGENT:-none}" = cpu ]; then
	FAULTS_AGENT="agent_kill agent_stop agent_term rogue_agent recompress_kill"
	# Pages park only while an agent is attached.
	FAULTS_HOTPLUG="$FAULTS_HOTPLUG park_mem_limit"
fi
FAULTS_MAINTENANCE="compact mem_limit idle recompress writeback drop_caches"
# Every fault, for soak.sh's summary.
# shellcheck disable=SC2034
FAULTS="$FAULTS_AGENT $FAULTS_HOTPLUG $FAULTS_MAINTENANCE"
# Faults that run once only.
FAULTS_ONCE="rogue_agent"

# --- hot-added devices: the idle ones that reset and hot_remove may take.
# $W/scratch has a line "ID SEED PAGES KIND" for each, what it holds.
scratch_ids() { cut -d' ' -f1 $W/scratch 2>/dev/null; }

# faults_devices: every initialised device.
# shellcheck disable=SC2046
faults_devices() { echo 0 1 2 3 $(scratch_ids); }

# The busy devices, which maintenance acts on while the load runs.
BUSY_DEVICES="0 1 2 3"

# scratch_fill ID: size the device and write generated pages to it.
scratch_fill() {
	rand 3
	mb=$((4 << R))
	rand $((mb * 256))
	pages=$((R + 1))
	pick mixed mixed text random
	kind=$R
	rand 2147483647
	seed=$R
	r=$(sysfs-write "$(sysdir "$1")/disksize" ${mb}M)
	[ "$r" = OK ] || { soak_fail "disksize of $(dev "$1"): $r"; return 1; }
	pagegen --pages $pages --seed $seed --kind $kind |
		dd of="$(dev "$1")" bs=4096 oflag=direct 2>/dev/null ||
		{ soak_fail "cannot write $(dev "$1")"; return 1; }
	echo "$1 $seed $pages $kind" >>$W/scratch
	FAULT_NOTE="$FAULT_NOTE, $(dev "$1") $mb MiB with $pages $kind pages"
}

# scratch_check ID: the device holds what scratch_fill wrote.
scratch_check() {
	# shellcheck disable=SC2046
	set -- $(grep "^$1 " $W/scratch)
	pagegen --pages "$3" --seed "$2" --kind "$4" >$W/expected
	dd if="$(dev "$1")" bs=4096 count="$3" iflag=direct 2>/dev/null >$W/actual
	cmp -s $W/actual $W/expected && return 0
	n=$(cmp -l $W/actual $W/expected 2>/dev/null | wc -l)
	differ "$n" bytes "hot-added $(dev "$1")"
	return 1
}

scratch_forget() { sed -i "/^$1 /d" $W/scratch; }

# scratch_pick: a random idle device in $R, hot-adding one if there is none.
scratch_pick() {
	if [ -z "$(scratch_ids)" ]; then
		fault_hot_add || return 1
		count fault-hot_add
	fi
	# shellcheck disable=SC2046
	pick $(scratch_ids)
}

# --- the agent
wait_detached() {
	i=0
	while agent_attached; do
		i=$((i + 1))
		[ $i -le 300 ] || return 1
		sleep 0.1
	done
}

agent_restart() {
	start_agent >$W/agent-start.log 2>&1 || {
		cat $W/agent-start.log
		soak_fail "cannot restart ozramd"
		return 1
	}
	echo -1000 >/proc/"$(agent_pid)"/oom_score_adj
}

fault_agent_kill() {
	pid=$(agent_pid)
	[ -n "$pid" ] || { soak_fail "agent-kill: no agent to kill"; return 1; }
	kill -KILL "$pid"
	rm -f $OZRAMD_PIDFILE
	wait_detached || { soak_fail "the ring stayed attached 30 s after kill -9"; return 1; }
	rand 5
	FAULT_NOTE="ozramd $pid killed, restarted $((R + 1)) s later"
	sleep $((R + 1))
	agent_restart
}

fault_agent_stop() {
	rand 6
	FAULT_NOTE="ozramd stopped for $((R + 1)) s"
	kill -STOP "$(agent_pid)"
	sleep $((R + 1))
	kill -CONT "$(agent_pid)"
}

fault_agent_term() {
	stop_agent
	wait_detached || { soak_fail "the ring stayed attached 30 s after SIGTERM"; return 1; }
	rand 3
	FAULT_NOTE="ozramd stopped with SIGTERM, restarted $R s later"
	sleep "$R"
	agent_restart
}

# The rogue agent answers with wrong completions; the kernel must refuse
# them and keep every byte.  Its own checks (second open, poll at the
# detach) are ring-rogue's business: its status is noted, not judged.
fault_rogue_agent() {
	stop_agent
	wait_detached || { soak_fail "the ring stayed attached 30 s after SIGTERM"; return 1; }
	rand 11
	rogue-agent --seconds $((5 + R)) >$W/rogue.log 2>&1
	rc=$?
	FAULT_NOTE="rogue-agent for $((5 + R)) s, status $rc: $(grep -m 1 'sent ' $W/rogue.log)"
	wait_detached || { soak_fail "the ring stayed attached after the rogue agent"; return 1; }
	agent_restart
}

# A hot-added device of its own (the hotplug faults never see it), filled
# with text pages that every recompression algorithm shrinks, marked idle
# and recompressed, with every algorithm in turn or with zstd or lz4hc
# alone (which the agent does), while the agent is killed 0 to 0.9 s into
# the pass and restarted as it goes on:
# the pages the agent held come back to the kernel.  The pass answers OK,
# every byte reads back as written, and the device goes.
fault_recompress_kill() {
	rk_id=$(cat $CONTROL/hot_add) || { soak_fail "recompress_kill: hot_add failed"; return 1; }
	rk_dev=$(dev "$rk_id")
	rk_sys=$(sysdir "$rk_id")
	prio=1
	for a in $RECOMP_ALGORITHMS; do
		r=$(sysfs-write "$rk_sys/recomp_algorithm" "algo=$a priority=$prio")
		[ "$r" = OK ] || soak_fail "recomp_algorithm $a of $rk_dev: $r"
		prio=$((prio + 1))
	done
	r=$(sysfs-write "$rk_sys/disksize" 8M)
	[ "$r" = OK ] || { soak_fail "disksize of $rk_dev: $r"; return 1; }
	rand 2147483647
	pagegen --pages 2048 --seed "$R" --kind text >$W/recompress.bin
	dd if=$W/recompress.bin of="$rk_dev" bs=1M oflag=direct 2>/dev/null ||
		soak_fail "cannot fill $rk_dev"
	ring_settle "$rk_id"
	# Every algorithm in turn (the kernel's deflate last, for what the
	# agent's did not shrink), or one the agent does.
	pick all zstd lz4hc
	params=type=idle
	[ "$R" = all ] || params="$params algo=$R"
	r=$(sysfs-write "$rk_sys/idle" all)
	[ "$r" = OK ] || soak_fail "idle of $rk_dev: $r"
	sysfs-write "$rk_sys/recompress" "$params" >$W/recompress-kill.out 2>&1 &
	recompress=$!
	rand 10
	sleep "0.$R"
	pid=$(agent_pid)
	if [ -n "$pid" ]; then
		kill -KILL "$pid"
		rm -f $OZRAMD_PIDFILE
		FAULT_NOTE="$rk_dev $params, ozramd $pid killed 0.$R s in"
		wait_detached || soak_fail "the ring stayed attached 30 s after kill -9"
		agent_restart
	else
		soak_fail "recompress_kill: no agent to kill"
	fi
	wait "$recompress"
	r=$(cat $W/recompress-kill.out)
	[ "$r" = OK ] || soak_fail "recompress $params of $rk_dev while ozramd was killed: $r"
	ring_settle "$rk_id"
	FAULT_NOTE="$FAULT_NOTE; recompressed_pages $(backend_field recompressed_pages "$rk_id") of 2048"
	dd if="$rk_dev" bs=1M iflag=direct 2>/dev/null | cmp -s - $W/recompress.bin ||
		differ "$(dd if="$rk_dev" bs=1M iflag=direct 2>/dev/null | cmp -l - $W/recompress.bin | wc -l)" \
			bytes "$rk_dev recompressed ($params) while ozramd was killed"
	r=$(sysfs-write $CONTROL/hot_remove "$rk_id")
	[ "$r" = OK ] || soak_fail "hot_remove of $rk_dev: $r"
}

# --- the devices
fault_compact() {
	# shellcheck disable=SC2086
	pick $BUSY_DEVICES
	FAULT_NOTE=$(dev "$R")
	r=$(sysfs-write "$(sysdir "$R")/compact" 1)
	[ "$r" = OK ] || soak_fail "compact of $(dev "$R"): $r"
}

# A limit of 0 (none) or of 3 to 5 times the device's size: the store path
# and the ring's retry of held pages run at every write, and no write may
# fail for it (zsmalloc's overhead stays well below the size).
fault_mem_limit() {
	# shellcheck disable=SC2086
	pick $BUSY_DEVICES
	d=$R
	rand 4
	if [ $R = 0 ]; then
		limit=0
	else
		limit=$(($(cat "$(sysdir "$d")/disksize") * (2 + R)))
	fi
	FAULT_NOTE="$(dev "$d") mem_limit $limit"
	r=$(sysfs-write "$(sysdir "$d")/mem_limit" $limit)
	[ "$r" = OK ] || soak_fail "mem_limit $limit of $(dev "$d"): $r"
}

# At most four idle devices: with more, the oldest goes first.
fault_hot_add() {
	FAULT_NOTE=''
	if [ "$(scratch_ids | wc -l)" -ge 4 ]; then
		old=$(scratch_ids | head -n 1)
		scratch_check "$old"
		r=$(sysfs-write $CONTROL/hot_remove "$old")
		[ "$r" = OK ] || soak_fail "hot_remove of idle $(dev "$old"): $r"
		scratch_forget "$old"
		count fault-hot_remove
		FAULT_NOTE="$(dev "$old") removed first, "
	fi
	id=$(cat $CONTROL/hot_add) || { soak_fail "hot_add failed"; return 1; }
	FAULT_NOTE="$FAULT_NOTE$(dev "$id")"
	scratch_fill "$id"
}

# A hot-added device of its own (not a scratch device: the other hotplug
# faults never see it), filled, its mem_limit set 64 to 512 KiB above what
# it uses, then its pages rewritten with the same bytes while the agent is
# stopped: the writes park pages until the limit, then compress in the
# writer or fail with ENOMEM, which keeps the old bytes.  Every byte reads
# back the same while the agent is stopped, after it goes on (what it
# compressed over the limit stays staged), and once the limit is lifted
# (which stores those); then the device goes.  The agent's faults run
# meanwhile: when one has the agent gone, or goes on with it, the writes
# take whatever path that leaves.
fault_park_mem_limit() {
	pk_id=$(cat $CONTROL/hot_add) || { soak_fail "park_mem_limit: hot_add failed"; return 1; }
	pk_dev=$(dev "$pk_id")
	pk_sys=$(sysdir "$pk_id")
	r=$(sysfs-write "$pk_sys/disksize" 8M)
	[ "$r" = OK ] || { soak_fail "disksize of $pk_dev: $r"; return 1; }
	rand 2147483647
	pagegen --pages 2048 --seed "$R" --kind text >$W/park.bin
	dd if=$W/park.bin of="$pk_dev" bs=1M oflag=direct 2>/dev/null || soak_fail "cannot fill $pk_dev"
	ring_settle "$pk_id"
	rand 8
	pk_limit=$(($(stat_field "$pk_sys/mm_stat" mem_used_total) + (R + 1) * 65536))
	r=$(sysfs-write "$pk_sys/mem_limit" $pk_limit)
	[ "$r" = OK ] || soak_fail "mem_limit $pk_limit of $pk_dev: $r"
	# The fill may have parked pages of its own: the most used from now on.
	r=$(sysfs-write "$pk_sys/mem_used_max" 0)
	[ "$r" = OK ] || soak_fail "mem_used_max 0 of $pk_dev: $r"
	pk_parked=$(backend_field pages_parked_total "$pk_id")
	pk_agent=$(agent_pid)
	[ -n "$pk_agent" ] && kill -STOP "$pk_agent" 2>/dev/null || pk_agent=
	# 64 pages a write, so that a failed write stops only its own.
	pk_failed=0
	pk_c=0
	while [ $pk_c -lt 32 ]; do
		dd if=$W/park.bin of="$pk_dev" bs=4096 skip=$((pk_c * 64)) seek=$((pk_c * 64)) count=64 \
			oflag=direct conv=notrunc 2>/dev/null || pk_failed=$((pk_failed + 1))
		pk_c=$((pk_c + 1))
	done
	pk_held=$(backend_field parked_pages "$pk_id")
	dd if="$pk_dev" bs=1M iflag=direct 2>/dev/null | cmp -s - $W/park.bin ||
		differ "$(dd if="$pk_dev" bs=1M iflag=direct 2>/dev/null | cmp -l - $W/park.bin | wc -l)" bytes \
			"$pk_dev at mem_limit $pk_limit, the agent stopped"
	rand 3
	sleep "$R"
	[ -z "$pk_agent" ] || kill -CONT "$pk_agent" 2>/dev/null
	# Pages the agent compressed over the limit stay staged until the
	# limit goes: steady, not settled.
	ring_steady "$pk_id"
	pk_staged=$RING_STAGED
	dd if="$pk_dev" bs=1M iflag=direct 2>/dev/null | cmp -s - $W/park.bin ||
		differ "$(dd if="$pk_dev" bs=1M iflag=direct 2>/dev/null | cmp -l - $W/park.bin | wc -l)" bytes \
			"$pk_dev at mem_limit $pk_limit, the agent going on"
	pk_used_max=$(stat_field "$pk_sys/mm_stat" mem_used_max)
	r=$(sysfs-write "$pk_sys/mem_limit" 0)
	[ "$r" = OK ] || soak_fail "mem_limit 0 of $pk_dev: $r"
	ring_settle "$pk_id"
	dd if="$pk_dev" bs=1M iflag=direct 2>/dev/null | cmp -s - $W/park.bin ||
		differ "$(dd if="$pk_dev" bs=1M iflag=direct 2>/dev/null | cmp -l - $W/park.bin | wc -l)" bytes \
			"$pk_dev once its mem_limit was lifted"
	pk_parked=$(($(backend_field pages_parked_total "$pk_id") - pk_parked))
	FAULT_NOTE="$pk_dev mem_limit $pk_limit: $pk_parked pages parked ($pk_held held after the writes),"
	FAULT_NOTE="$FAULT_NOTE mem_used_max $pk_used_max, $pk_staged staged at the limit,"
	FAULT_NOTE="$FAULT_NOTE $pk_failed of 32 writes failed (ENOMEM),"
	if [ -n "$pk_agent" ]; then
		FAULT_NOTE="$FAULT_NOTE the agent stopped $R s more"
	else
		FAULT_NOTE="$FAULT_NOTE no agent to stop"
	fi
	r=$(sysfs-write $CONTROL/hot_remove "$pk_id")
	[ "$r" = OK ] || soak_fail "hot_remove of $pk_dev: $r"
}

fault_hot_remove() {
	scratch_pick || return 1
	id=$R
	FAULT_NOTE="$(dev "$id")"
	scratch_check "$id"
	r=$(sysfs-write $CONTROL/hot_remove "$id")
	[ "$r" = OK ] || soak_fail "hot_remove of idle $(dev "$id"): $r"
	scratch_forget "$id"
}

fault_reset() {
	scratch_pick || return 1
	id=$R
	FAULT_NOTE="$(dev "$id")"
	scratch_check "$id"
	r=$(sysfs-write "$(sysdir "$id")/reset" 1)
	[ "$r" = OK ] || { soak_fail "reset of idle $(dev "$id"): $r"; return 1; }
	scratch_forget "$id"
	used=$(stat_field "$(sysdir "$id")/mm_stat" mem_used_total)
	[ "$used" = 0 ] || soak_fail "$(dev "$id") holds $used bytes after reset"
	scratch_fill "$id"
}

fault_idle() {
	# shellcheck disable=SC2086
	pick $BUSY_DEVICES
	FAULT_NOTE=$(dev "$R")
	r=$(sysfs-write "$(sysdir "$R")/idle" all)
	[ "$r" = OK ] || soak_fail "idle of $(dev "$R"): $r"
}

# Recompresses the idle pages (one time in three the huge ones) of a busy
# device, with every recompression algorithm in turn (zstd, lz4hc, deflate)
# or with one of them, while the load writes to it and the agent may die.
fault_recompress() {
	# shellcheck disable=SC2086
	pick $BUSY_DEVICES
	d=$R
	pick idle idle huge
	params="type=$R"
	pick all all $RECOMP_ALGORITHMS
	[ "$R" = all ] || params="$params algo=$R"
	before=$(backend_field recompressed_pages "$d")
	r=$(sysfs-write "$(sysdir "$d")/recompress" "$params")
	[ "$r" = OK ] || soak_fail "recompress $params of $(dev "$d"): $r"
	after=$(backend_field recompressed_pages "$d")
	FAULT_NOTE="$(dev "$d") $params, recompressed_pages $before -> $after"
}

# Writes back the pages of a device that has a backing device (soak-load.sh
# gives the devices of fio and ext4 one, whose writes fail now and then):
# its idle pages, all marked idle first, or its huge ones, while the load
# rewrites them, the agent may die and the device may be compacted or
# recompressed.  A full backing device (ENOSPC) and a failed write (EIO,
# the pages stay in memory) are answers, not failures; the final read-back
# checks every byte, some of them from the backing device.
fault_writeback() {
	# shellcheck disable=SC2086
	pick $WRITEBACK_DEVICES
	d=$R
	pick idle idle huge huge_idle
	type=$R
	# Packed or a block per page: both forms end up side by side.
	pick 1 0
	form=$R
	r=$(sysfs-write "$(sysdir "$d")/compressed_writeback" $form)
	[ "$r" = OK ] || soak_fail "compressed_writeback of $(dev "$d"): $r"
	# Idle since now: what the load does not rewrite before the pass reaches
	# it goes to the backing device.
	if [ $type != huge ]; then
		r=$(sysfs-write "$(sysdir "$d")/idle" all)
		[ "$r" = OK ] || soak_fail "idle of $(dev "$d"): $r"
	fi
	FAULT_NOTE="$(dev "$d") $type, compressed_writeback $form"
	r=$(sysfs-write "$(sysdir "$d")/writeback" $type)
	case $r in
	OK) ;;
	ENOSPC) FAULT_NOTE="$FAULT_NOTE (backing device full)" ;;
	EIO)
		FAULT_NOTE="$FAULT_NOTE (writes failed: bd_write_failed_pages_total $(backend_field bd_write_failed_pages_total "$d"))"
		count writeback-eio
		;;
	*) soak_fail "writeback $type of $(dev "$d"): $r" ;;
	esac
	FAULT_NOTE="$FAULT_NOTE, bd_stat $(tr -s ' ' <"$(sysdir "$d")/bd_stat")"
}

fault_drop_caches() {
	echo 3 >/proc/sys/vm/drop_caches || soak_fail "drop_caches failed"
}

# --- the schedule
# faults_schedule GROUP STREAM GAP FAULT...: $W/schedule-GROUP, one line
# "SECONDS:FAULT" per fault, SECONDS from the start of the load; after the
# first round, GAP to 3 GAP seconds apart.
faults_schedule() {
	group=$1
	rng_stream "$2"
	gap=$3
	shift 3
	first=''
	rest=$*
	many=''
	for f in "$@"; do
		case " $FAULTS_ONCE " in
		*" $f "*) ;;
		*) many="$many $f" ;;
		esac
	done
	# Every fault once, in a random order, soon: under TCG a fault can take
	# half a minute when swap is busy, and the short soak must see them all...
	while [ -n "$rest" ]; do
		# shellcheck disable=SC2086
		pick $rest
		first="$first $R"
		rest=$(echo " $rest " | sed "s/ $R / /; s/^ *//; s/ *$//")
	done
	t=0
	: >$W/schedule-$group
	for f in $first; do
		rand 3
		t=$((t + 1 + R))
		echo "$t:$f" >>$W/schedule-$group
	done
	# ...then any of them but the ones that run once, until the time is up.
	while [ -n "$many" ] && [ $t -lt "$DURATION" ]; do
		rand $((2 * gap + 1))
		t=$((t + gap + R))
		# shellcheck disable=SC2086
		pick $many
		echo "$t:$R" >>$W/schedule-$group
	done
	note "$group faults ($(wc -l <$W/schedule-$group)): $(head -n 8 $W/schedule-$group | tr '\n' ' ')..."
}

# faults_run GROUP STREAM FIRST: each fault of the group's schedule at its
# time (late when the one before took long), until the time is up; the
# FIRST faults (the first round) run whatever the time.
faults_run() {
	sched_group=$1
	rng_stream "$2"
	# The first round, every fault of the group once, runs to its end even
	# past the time: a fault that took long (an agent slow to restart under
	# swap) must not keep the others of a short soak from running at all.
	sched_first=$3
	# Names of their own: the guest library's functions use i, f and pid.
	sched_n=0
	for sched_e in $(cat $W/schedule-$sched_group); do
		sched_t=${sched_e%%:*}
		sched_f=${sched_e#*:}
		now
		if [ $sched_n -ge "$sched_first" ]; then
			[ $((START + sched_t)) -lt $END ] || break
			[ $NOW -lt $END ] || break
		fi
		[ $NOW -ge $((START + sched_t)) ] || sleep $((START + sched_t - NOW))
		sched_n=$((sched_n + 1))
		FAULT_NOTE=''
		now
		sched_at=$((NOW - START))
		"fault_$sched_f"
		count fault-$sched_f
		now
		echo "   fault $sched_group $sched_n at +$sched_at s (planned +$sched_t s, took $((NOW - START - sched_at)) s):" \
			"$sched_f${FAULT_NOTE:+: $FAULT_NOTE}"
	done
}

# faults_start: the three groups' schedules (streams 1, 3, 5), then each
# group in a process of its own (streams 2, 4, 6 for their choices).
faults_start() {
	FAULT_PIDS=''
	stream=1
	for group in agent hotplug maintenance; do
		# The agent's faults take seconds themselves (a restart, a stop):
		# further apart, so that it also runs undisturbed for a while.
		case $group in
		agent) list=$FAULTS_AGENT gap=4 ;;
		hotplug) list=$FAULTS_HOTPLUG gap=2 ;;
		maintenance) list=$FAULTS_MAINTENANCE gap=2 ;;
		esac
		if [ -n "$list" ]; then
			# shellcheck disable=SC2086
			faults_schedule $group $stream $gap $list
			# shellcheck disable=SC2086
			(faults_run $group $((stream + 1)) "$(echo $list | wc -w)") &
			FAULT_PIDS="$FAULT_PIDS $group:$!"
		fi
		stream=$((stream + 2))
	done
}

faults_wait() {
	for p in $FAULT_PIDS; do
		wait "${p#*:}"
		rc=$?
		[ $rc = 0 ] || soak_fail "the ${p%:*} faults ended with status $rc"
	done
}

# faults_settle: the agent attached again for the read-back.
faults_settle() {
	if [ "${AGENT:-none}" = cpu ] && ! agent_attached; then
		soak_fail "the agent was not attached at the end"
		agent_restart
	fi
}

faults_verify() {
	for id in $(scratch_ids); do
		scratch_check "$id" && count scratch-final &&
			count scratch-final-bytes "$(stat_field "$(sysdir "$id")/mm_stat" orig_data_size)"
	done
}
