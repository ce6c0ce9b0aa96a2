# Test library for scripts run inside the VM (sourced by the init, so every
# test script can use it directly).  Busybox sh.
# shellcheck shell=sh

# The device family under test: ozram, or stock zram (same ABI) as a sanity
# check of the scenarios themselves.
DEV=${DEV:-ozram}
CONTROL=/sys/class/$DEV-control
KVER=$(cat /etc/ozram-kver)
MODDIR=/lib/modules/$KVER
OZRAM_KO=/run/ozram.ko

# What, in the kernel log, makes a run fail: tests/vm/run reads this line
# and applies it to what the kernel printed (never to a program's output).
# Besides panics, oopses, BUG:/WARNING: (lockdep's reports among them) and
# call traces: SLUB's debug reports ("BUG kmalloc-64 (Tainted: ...): Poison
# overwritten", no colon after BUG), page poisoning's, hung tasks and the
# lockdep reports that do not start with WARNING:.  And a program killed by a
# fault it did not handle ("segfault at", "traps:"): ozramd and the test
# programs never crash, and a crash of ozramd is otherwise silent, since the
# module takes its pages back.
KERNEL_PROBLEM_PATTERN='[^ ]+\[[0-9]+\]: segfault at |traps: [^ ]+\[[0-9]+\] |Kernel panic|BUG:|BUG [^ ]+ \(|WARNING:|Oops|general protection fault|Call Trace:|UBSAN:|KASAN:|kmemleak:|list_(add|del) corruption|pagealloc: (memory corruption|single bit error)|INFO: task .+ blocked for more than|INFO: trying to register non-static key|possible (recursive|circular) locking|inconsistent lock state'

# Field names of zram's stat files, in order (as zram 6.1 documents them):
# the files print these and nothing more.  ozram's own numbers are in
# backend_stat (backend_field).
MM_STAT_FIELDS="orig_data_size compr_data_size mem_used_total mem_limit mem_used_max same_pages pages_compacted huge_pages huge_pages_since"
IO_STAT_FIELDS="failed_reads failed_writes invalid_io notify_free"
BD_STAT_FIELDS="bd_count bd_reads bd_writes"

# Busybox sh runs its own applets before searching PATH: use e2fsprogs'
# mke2fs and e2fsck (real ext4 support) by path.
mke2fs() { /usr/sbin/mke2fs "$@"; }
e2fsck() { /usr/sbin/e2fsck "$@"; }

step() { echo "== [$(cut -d" " -f1 /proc/uptime)s] $*"; }
note() { echo "   $*"; }

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# check_eq ACTUAL EXPECTED WHAT
check_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
	note "ok: $3 = '$1'"
}

# check_cmp A OP B WHAT, OP as for test(1): -gt, -ge, -lt, -le, -ne
check_cmp() {
	test "$1" "$2" "$3" || fail "$4: expected $1 $2 $3"
	note "ok: $4 ($1 $2 $3)"
}

# expect_errno ERRNO CMD [ARGS...]: CMD must print ERRNO (or OK) as the last
# line of its output, as sysfs-write does.
#   expect_errno EBUSY sysfs-write /sys/block/ozram0/disksize 1M
expect_errno() {
	want=$1
	shift
	got=$("$@" 2>&1 | tail -n 1)
	[ "$got" = "$want" ] || fail "$*: got '$got', expected $want"
	note "ok: $* -> $want"
}

# sysfs_set FILE VALUE: the write must succeed.
sysfs_set() { expect_errno OK sysfs-write "$1" "$2"; }

dev() { echo "/dev/$DEV$1"; }
sysdir() { echo "/sys/block/$DEV$1"; }

# stat_field FILE NAME: one named field of mm_stat, io_stat or bd_stat
# stat_field "$(sysdir 0)/mm_stat" same_pages
stat_field() {
	case ${1##*/} in
	mm_stat) names=$MM_STAT_FIELDS ;;
	io_stat) names=$IO_STAT_FIELDS ;;
	bd_stat) names=$BD_STAT_FIELDS ;;
	*) fail "stat_field: unknown stat file $1" ;;
	esac
	i=1
	for n in $names; do
		if [ "$n" = "$2" ]; then
			awk -v i=$i '{ print $i }' "$1"
			return 0
		fi
		i=$((i + 1))
	done
	fail "stat_field: no field $2 in $1"
}

# check_zram_stat_files DIR: zram's stat files in DIR (a disk's sysfs
# directory) hold exactly zram 6.1's fields, one line each (debug_stat after
# its version line): scripts that read a fixed number of fields rely on it.
check_zram_stat_files() {
	check_eq "$(wc -l <"$1/mm_stat") $(wc -w <"$1/mm_stat")" "1 $(echo $MM_STAT_FIELDS | wc -w)" \
		"${1##*/}: mm_stat has one line of zram's $(echo $MM_STAT_FIELDS | wc -w) fields"
	check_eq "$(wc -l <"$1/io_stat") $(wc -w <"$1/io_stat")" "1 $(echo $IO_STAT_FIELDS | wc -w)" \
		"${1##*/}: io_stat has one line of zram's $(echo $IO_STAT_FIELDS | wc -w) fields"
	check_eq "$(head -n 1 "$1/debug_stat") $(sed -n 2p "$1/debug_stat" | wc -w) $(wc -l <"$1/debug_stat")" \
		"version: 1 2 2" "${1##*/}: debug_stat is zram's version line and two fields"
	if [ -r "$1/bd_stat" ]; then
		check_eq "$(wc -l <"$1/bd_stat") $(wc -w <"$1/bd_stat")" "1 $(echo $BD_STAT_FIELDS | wc -w)" \
			"${1##*/}: bd_stat has one line of zram's $(echo $BD_STAT_FIELDS | wc -w) fields"
	fi
}

# dev_numbers DIR: the numbers of the device whose sysfs directory is DIR,
# one a line, in the order of their list (shared/ozram_dev_stats.h): the
# fields of zram's files, then backend_stat's lines before the agent's state
# ("name: value").
dev_numbers() {
	for f in mm_stat io_stat bd_stat; do
		[ $f = bd_stat ] && sed -n 2p "$1/debug_stat" | tr -s ' ' '\n' | grep .
		tr -s ' ' '\n' <"$1/$f" | grep .
	done
	sed -n '/^agent: /q; p' "$1/backend_stat"
}

# backend_field NAME [N]: a "name: value" line of ozram's backend_stat.
backend_field() {
	v=$(sed -n "s/^$1: *//p" "$(sysdir "${2:-0}")/backend_stat")
	[ -n "$v" ] || fail "backend_stat of device ${2:-0} has no field $1"
	echo "$v"
}

# dev_setup N SIZE: initialize device N with LZ4 and SIZE bytes (suffixes ok).
# Stock zram needs lz4 chosen first (its default is lzo-rle).
dev_setup() {
	if [ "$DEV" = zram ]; then
		sysfs_set "$(sysdir "$1")/comp_algorithm" lz4
	fi
	sysfs_set "$(sysdir "$1")/disksize" "$2"
}

dev_reset() { sysfs_set "$(sysdir "$1")/reset" 1; }

# fill_idle FROM TO FILE: initialises device 0 (128 MiB) to compress with
# FROM and recompress with TO, writes FILE to it, waits until no page is
# staged, and marks every page idle: what a recompression starts from.
fill_idle() {
	sysfs_set "$(sysdir 0)/comp_algorithm" "$1"
	sysfs_set "$(sysdir 0)/recomp_algorithm" "algo=$2"
	sysfs_set "$(sysdir 0)/disksize" 128M
	dd if="$3" of="$(dev 0)" bs=1M oflag=direct 2>/dev/null || fail "write of $3 failed"
	ring_settle 0
	sysfs_set "$(sysdir 0)/idle" all
}

# The workload whose counters the netlink and ozramctl scenarios compare with
# sysfs, on device DEV (a path): 512 text pages, 100 zero pages, 64 random
# pages, the last 8 of them discarded (notify_free), then all 676 read back.
# Afterwards orig_data_size is 668 pages.
known_workload() {
	pagegen --pages 512 --kind text --seed 7 >/tmp/text.bin
	pagegen --pages 100 --kind zero >/tmp/zero.bin
	pagegen --pages 64 --kind random --seed 3 >/tmp/random.bin
	dd if=/tmp/text.bin of="$1" bs=4096 oflag=direct 2>/dev/null
	dd if=/tmp/zero.bin of="$1" bs=4096 seek=512 oflag=direct 2>/dev/null
	dd if=/tmp/random.bin of="$1" bs=4096 seek=612 oflag=direct 2>/dev/null
	blkdiscard -o $((668 * 4096)) -l $((8 * 4096)) "$1"
	dd if="$1" of=/dev/null bs=4096 count=676 iflag=direct 2>/dev/null
}

md5() { md5sum "$1" | cut -d' ' -f1; }

# uptime_cs: the time since boot in hundredths of a second, for timing.
uptime_cs() { awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime; }

# Loads a module of the base image with its dependencies.
load_module() { modprobe "$@" || fail "cannot load module $1"; }

# Modules every run needs; zram itself is loaded only for DEV=zram.
load_base_modules() {
	for m in zsmalloc lz4_compress crc32c_generic ext4; do
		modprobe $m || {
			echo "cannot load $m"
			return 1
		}
	done
}

# load_ozram [PARAM=VALUE...]: loads the module under test (num_devices=1
# unless given), after the modules it depends on.
load_ozram() {
	[ $# -gt 0 ] || set -- num_devices=1
	if [ "$DEV" = zram ]; then
		# zram reaches LZ4 through the crypto API: crypto/lz4.ko, which the
		# kernel would request by alias; load it directly.
		modprobe lz4 || fail "cannot load the crypto lz4 module"
		modprobe zram "$@" || fail "cannot load zram"
		return 0
	fi
	load_ozram_deps
	insmod $OZRAM_KO "$@" || fail "insmod ozram.ko $* failed"
}

# load_ozram_deps: the modules ozram.ko needs (insmod does not load them),
# for a scenario that insmods it itself to see it refused for its own reason.
load_ozram_deps() {
	[ -r $OZRAM_KO ] || fail "no ozram.ko in this VM (build it with 'make kmod')"
	for d in $(modinfo -F depends $OZRAM_KO | tr ',' ' '); do
		modprobe "$d" || fail "cannot load $d, needed by ozram.ko"
	done
}

# unload_ozram: an attached agent pins the module: stop it first.
unload_ozram() {
	stop_agent
	rmmod "$DEV" || fail "rmmod $DEV failed"
}

# --- agent (ozramd) --------------------------------------------------------
# With AGENT=cpu (tests/vm/run --agent cpu) the static ozramd is in the run's
# archive at $OZRAMD_BIN.  start_agent starts it in the background on the CPU
# backend, its log on the console, and waits until the module reports it
# attached; stop_agent stops it with SIGTERM (it finishes its batch and
# detaches).  Scenarios that load the module themselves call start_agent
# after load_ozram.
OZRAMD_BIN=/run/ozramd
OZRAMD_PIDFILE=/tmp/ozramd.test-pid

# agent_attached: whether the module reports an attached agent (dmesg-free:
# the ring state of any device's backend_stat).
agent_attached() {
	for f in /sys/block/*/backend_stat; do
		[ -r "$f" ] || continue
		grep -q '^agent: attached' "$f" && return 0
		return 1
	done
	return 1
}

# wait_until WHAT CONDITION: evaluates the shell CONDITION every 0.1 s until
# it holds; fails with WHAT after 10 s.
wait_until() {
	i=0
	until eval "$2"; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "$1"
		sleep 0.1
	done
}

# wait_attached [WHAT]: waits until an agent (any program that opened
# /dev/ozram-ring) is attached; wait_detached: until none is.
wait_attached() { wait_until "${1:-the agent} did not attach" agent_attached; }
wait_detached() { wait_until "the module still reports an agent after 10 s" '! agent_attached'; }

# pid_alive PID: running or stopped, not a zombie waiting to be reaped.
pid_alive() {
	[ -n "$1" ] && [ -r "/proc/$1/status" ] &&
		! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# ring_settle [N | SYSFS_DIR]: waits (up to 60 s) until no page of device N
# (default 0; or of the disk whose sysfs directory is given, e.g. a compat=1
# zramN) waits in the offload ring or is parked, so that mm_stat no
# longer changes by itself.  Polls every 50 ms: scenarios time rounds with it.  Without an
# agent, or for stock zram, it returns at once.
ring_settle() {
	case ${1:-0} in
	/*) f=$1/backend_stat ;;
	*) f=$(sysdir "${1:-0}")/backend_stat ;;
	esac
	[ -r "$f" ] || return 0
	i=0
	while [ "$(sed -n -e 's/^staged_pages: //p' -e 's/^parked_pages: //p' "$f" | sort -u)" != 0 ] &&
		grep -q '^staged_pages: ' "$f"; do
		i=$((i + 1))
		[ $i -le 1200 ] || fail "pages still staged or parked after 60 s: $(sed -n -e 's/^staged_pages: //p' -e 's/^parked_pages: //p' "$f" | tr '\n' ' ')"
		sleep 0.05
	done
}

# ring_steady [N]: waits (up to 60 s) until device N (default 0) has no
# page parked and its staged count has not changed for one second: the
# agent has answered, the parked pages are staged or compressed, and the
# module stored what it could, so that mm_stat no longer changes by itself.
# Unlike ring_settle it does not need the ring to empty: pages held at
# mem_limit stay staged.  Leaves the count in $RING_STAGED (0 at once for
# stock zram).
ring_steady() {
	RING_STAGED=0
	[ -r "$(sysdir "${1:-0}")/backend_stat" ] || return 0
	last=-1
	same=0
	i=0
	while [ $same -lt 10 ]; do
		RING_STAGED=$(backend_field staged_pages "${1:-0}")
		parked=$(backend_field parked_pages "${1:-0}")
		if [ "$parked" = 0 ] && [ "$RING_STAGED" = "$last" ]; then
			same=$((same + 1))
		else
			same=0
		fi
		last=$RING_STAGED
		i=$((i + 1))
		[ $i -le 600 ] || fail "not steady after 60 s: $RING_STAGED pages staged, $parked parked"
		sleep 0.1
	done
}

# agent_pid: the pid of the agent this library started, or nothing.
agent_pid() { cat $OZRAMD_PIDFILE 2>/dev/null || true; }

# start_agent [OZRAMD-OPTION...]: starts ozramd (AGENT=cpu only) and waits
# up to 120 s for it to attach.  When the ozramd it started last still runs,
# it returns at once (and fails if options were given: they would not apply).
start_agent() {
	case ${AGENT:-none} in
	none) return 0 ;;
	cpu) ;;
	*)
		echo "unknown agent '$AGENT'"
		return 1
		;;
	esac
	if pid_alive "$(agent_pid)" && [ "$(cat "/proc/$(agent_pid)/comm" 2>/dev/null)" = ozramd ]; then
		[ $# = 0 ] || {
			echo "start_agent: ozramd $(agent_pid) still runs; stop it before passing options"
			return 1
		}
		echo "agent: ozramd $(agent_pid) already runs"
		return 0
	fi
	[ -e /dev/ozram-ring ] || {
		[ "${LOAD_MODULE:-1}" = 0 ] && return 0 # the script loads it
		echo "start_agent: no /dev/ozram-ring"
		return 1
	}
	[ -x $OZRAMD_BIN ] || {
		echo "start_agent: no ozramd in this VM"
		return 1
	}
	mkdir -p /var/cache/ozram
	$OZRAMD_BIN --device /dev/ozram-ring --backend cpu \
		--cost-model /var/cache/ozram/cost-model "$@" \
		>/dev/console 2>&1 &
	echo $! >$OZRAMD_PIDFILE
	i=0
	while ! agent_attached; do
		pid_alive "$(agent_pid)" || {
			echo "start_agent: ozramd exited before attaching"
			rm -f $OZRAMD_PIDFILE
			return 1
		}
		i=$((i + 1))
		[ $i -le 1200 ] || {
			echo "start_agent: ozramd did not attach within 120 s"
			return 1
		}
		sleep 0.1
	done
	echo "agent: ozramd $(agent_pid) attached"
}

stop_agent() {
	pid=$(agent_pid)
	[ -n "$pid" ] || return 0
	kill -CONT "$pid" 2>/dev/null || true
	kill -TERM "$pid" 2>/dev/null || true
	i=0
	while pid_alive "$pid" && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	rm -f $OZRAMD_PIDFILE
}
# --- end agent ---------------------------------------------------------------

# text_files N: the kernel-CPU benches' workload, N files of 64 MiB of
# compressible text (/tmp/text1.bin ...); prints the md5 of them all.
text_files() {
	for i in $(seq 1 "$1"); do
		pagegen --pages 16384 --kind text --seed $((60 + i)) >/tmp/text$i.bin
	done
	cat /tmp/text*.bin | md5sum | cut -d' ' -f1
}

# write_text_files DEV: writes the files of text_files to /dev/DEV, one
# after the other, with O_DIRECT.
write_text_files() {
	i=0
	for f in /tmp/text*.bin; do
		dd if=$f of=/dev/$1 bs=1M seek=$((i * 64)) oflag=direct 2>/dev/null || fail "write to $1 failed"
		i=$((i + 1))
	done
}

# perf_ready: for the profiling benches, fails without perf in the VM
# (tests/vm/run --program /usr/bin/perf), and lets perf sample every CPU
# and name kernel symbols.
perf_ready() {
	command -v perf >/dev/null || fail "perf is not in the VM (tests/vm/run --program)"
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
}

# perf_shares TAG DATA: for the profiling benches, the shares of the perf
# samples in DATA per process and per kernel or user symbol, and the kernel
# workers' samples by the work function they ran (the frame that
# process_one_work() called, from the folded call chains), printed as
# "PROFILE TAG ..." lines.
perf_shares() {
	echo "PROFILE $1: share of the samples per process"
	perf report -q -i "$2" --stdio -g none --sort comm --percent-limit 1 2>/dev/null |
		sed "s/^/PROFILE $1 comm: /"
	echo "PROFILE $1: share of the samples per symbol (kernel [k], user [.])"
	perf report -q -i "$2" --stdio -g none --sort comm,sym --percent-limit 0.7 2>/dev/null |
		sed "s/^/PROFILE $1 sym: /"
	echo "PROFILE $1: kworker samples per work function (% of all samples)"
	perf report -q -i "$2" --stdio --no-children --sort comm \
		-g folded,0,caller,percent 2>/dev/null |
		awk -v d="$1" 'match($0, /process_one_work;[A-Za-z0-9_.]+/) {
			f = substr($0, RSTART + 17, RLENGTH - 17); p = $1; sub(/%$/, "", p); n[f] += p }
			END { for (f in n) printf "PROFILE %s work: %6.2f%%  %s\n", d, n[f], f }' |
		sort -k4 -n -r
}
