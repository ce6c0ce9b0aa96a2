# vm: --mem 384 --agent none
# algorithm_params, zram's file of Linux 6.12 on (absent before, as in
# zram): a level per algorithm.  The kernel compresses at the level, and
# hands it with each page to an agent that asked for levels.  A frame the
# agent makes at another level still decodes to the page: the kernel
# accepts it.  A frame of other bytes at the right level does not: the
# kernel rejects it and compresses the page itself.  Either way every page
# reads back as written.  The agent is progs/level-agent.c; stock zram
# (DEV=zram) runs the sysfs part, which checks it against zram itself.

S=$(sysdir 0)
D=$(dev 0)
major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)

if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 12 ]; }; then
	step "no algorithm_params before Linux 6.12"
	[ ! -e $S/algorithm_params ] || fail "$S/algorithm_params exists on $(uname -r)"
	note "ok: $S/algorithm_params absent on $(uname -r), as in zram"
	exit 0
fi

step "algorithm_params: parsing and errnos"
[ -e $S/algorithm_params ] || fail "$S/algorithm_params missing on $(uname -r)"
sysfs_set $S/comp_algorithm zstd
sysfs_set $S/algorithm_params "level=5"
sysfs_set $S/algorithm_params "algo=zstd level=-3"
sysfs_set $S/algorithm_params "priority=0 level=22"
sysfs_set $S/algorithm_params "level=7 unknown=ignored"
expect_errno EINVAL sysfs-write $S/algorithm_params "level="
expect_errno EINVAL sysfs-write $S/algorithm_params "level"
expect_errno EINVAL sysfs-write $S/algorithm_params "level=abc"
expect_errno ERANGE sysfs-write $S/algorithm_params "level=99999999999"
expect_errno EINVAL sysfs-write $S/algorithm_params "priority=4 level=1"
expect_errno EINVAL sysfs-write $S/algorithm_params "priority=-1 level=1"
expect_errno EINVAL sysfs-write $S/algorithm_params "algo=lz4hc level=1"
expect_errno EINVAL sysfs-write $S/algorithm_params "dict=/no/such/dictionary"
expect_errno EINVAL sysfs-write $S/algorithm_params "algo=zstd dict=/no/such/dictionary"

# compressed_at [LEVEL]: sets $size to the compressed size of the text
# pages at LEVEL (none: the default), written and read back.  512 pages: at
# level 19, zstd takes seconds per MiB under emulation.
PAGES=512
pagegen --pages $PAGES --kind text --seed 7 >/tmp/text.bin
compressed_at() {
	if [ -n "${1:-}" ]; then
		sysfs_set $S/algorithm_params "algo=zstd level=$1"
	fi
	sysfs_set $S/disksize 32M
	dd if=/tmp/text.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write at level ${1:-default} failed"
	check_eq "$(dd if=$D bs=4k count=$PAGES iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5sum </tmp/text.bin | cut -d' ' -f1)" "pages at level ${1:-default} read back"
	size=$(stat_field $S/mm_stat compr_data_size)
	# As zram 6.12: a reset forgets every algorithm's parameters.
	sysfs_set $S/reset 1
	sysfs_set $S/comp_algorithm zstd
}

step "the kernel compresses at the level"
compressed_at -50
fast=$size
compressed_at
default=$size
compressed_at 19
best=$size
note "compr_data_size of $PAGES text pages: level -50 $fast, default $default, level 19 $best"
check_cmp "$fast" -gt "$default" "level -50 compresses less than the default"
check_cmp "$best" -lt "$default" "level 19 compresses more than the default"

if [ "$DEV" = zram ]; then
	note "SKIPPED: the offload ring is ozram's own (DEV=$DEV)"
	exit 0
fi

# Answers come at TCG's pace: no page is taken back from the agent meanwhile.
echo 10000 >/sys/module/ozram/parameters/ring_timeout_ms

# agent_round MODE: writes pages while level-agent answers them in MODE,
# and stops it (SIGTERM) once nothing is staged: it answered what it was
# given.
agent_round() {
	sysfs_set $S/algorithm_params "algo=zstd level=19"
	sysfs_set $S/disksize 32M
	level-agent --expect-level 19 --mode "$1" --seconds 120 >/tmp/level-agent.log 2>&1 &
	agent=$!
	wait_attached "level-agent"
	# Attached when it opens the ring; ready once it declared zstd.
	wait_until "level-agent did not declare zstd" "grep -q 'answering zstd pages' /tmp/level-agent.log"
	dd if=/tmp/text.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write with the agent ($1) failed"
	ring_settle 0
	# (It may have ended already: wait says how.)
	kill -TERM $agent 2>/dev/null || true
	wait $agent || { cat /tmp/level-agent.log; fail "level-agent ($1) failed"; }
	cat /tmp/level-agent.log
	wait_detached
	# What the agent left, rejected or never answered, the kernel stores:
	# counted once nothing is staged or parked.
	ring_settle 0
	check_eq "$(dd if=$D bs=4k count=$PAGES iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(md5sum </tmp/text.bin | cut -d' ' -f1)" "pages answered by level-agent ($1) read back"
}

step "a frame at another level decodes to the page: accepted"
agent_round other-level
check_cmp "$(sed -n 's/.*compressed \([0-9]*\).*/\1/p' /tmp/level-agent.log)" -gt 0 "frames the agent sent"
check_cmp "$(backend_field agent_cpu_pages)" -gt 0 "pages stored from the agent's frames"
check_eq "$(backend_field ring_verify_failures_total)" 0 "ring_verify_failures_total"
sysfs_set $S/reset 1
sysfs_set $S/comp_algorithm zstd

step "a frame of other bytes: rejected, nothing lost"
agent_round wrong-page
check_cmp "$(backend_field ring_verify_failures_total)" -gt 0 "ring_verify_failures_total"
check_eq "$(backend_field agent_cpu_pages)" 0 "no page stored from a wrong frame"
check_eq "$(backend_field kernel_pages)" $PAGES "every page compressed by the kernel"
sysfs_set $S/reset 1
