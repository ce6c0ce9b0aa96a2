#!/usr/bin/env bash
# The tools end to end: exit statuses, messages (worded alike by every
# program), and a corpus dumped from a live process going through the
# benchmark with every page verified.
# Usage: cli_test.sh PAGEDUMP BENCH RINGLOAD
# Exits 77 (ctest: skipped) when this user may not read another process.
set -uo pipefail

if [[ $# -ne 3 || $1 == -h || $1 == --help ]]; then
	sed -n '2,6s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	[[ $# -eq 1 && ($1 == -h || $1 == --help) ]] && exit 0
	exit 2
fi
pagedump=$1
bench=$2
ringload=$3
work=$(mktemp -d)
sleeper=
cleanup() {
	[[ -n $sleeper ]] && kill "$sleeper" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
failures=0

# expect STATUS DESCRIPTION COMMAND...: runs COMMAND, output in $work/out.
expect() {
	local want=$1 what=$2
	shift 2
	"$@" >"$work/out" 2>&1
	local got=$?
	if [[ $got -ne $want ]]; then
		echo "FAIL: $what: exit $got, expected $want" >&2
		sed 's/^/    /' "$work/out" >&2
		failures=$((failures + 1))
	fi
}

# expect_output PATTERN DESCRIPTION: the last command's output matches.
expect_output() {
	if ! grep -qE -- "$1" "$work/out"; then
		echo "FAIL: $2: output lacks /$1/" >&2
		sed 's/^/    /' "$work/out" >&2
		failures=$((failures + 1))
	fi
}

expect 0 "pagedump --help" "$pagedump" --help
expect_output '^Usage: ozram-pagedump' "pagedump --help"
expect 0 "bench --help" "$bench" --help
expect_output '^Usage: ozram-bench' "bench --help"
expect 0 "ringload --help" "$ringload" --help
expect_output '^Usage: ozram-ringload' "ringload --help"
expect 2 "pagedump without -o" "$pagedump" 1
expect_output '^ozram-pagedump: no output file' "pagedump without -o"
expect_output "^Try 'ozram-pagedump --help' for more information\.\$" "pagedump without -o"
expect 2 "pagedump bad PID" "$pagedump" 12x -o "$work/x.pages"
expect_output "^ozram-pagedump: PID: expected an integer >= 1, got '12x'\$" "pagedump bad PID"
expect 2 "bench without input" "$bench"
expect 2 "bench bad backend" "$bench" --input x --backend tpu
expect_output "^ozram-bench: --backend: expected cpu, scalar, gpu, kernels, warp-steps, module or all, got 'tpu'\$" \
	"bench bad backend"
expect 2 "bench bad batch" "$bench" --input x --batch 0
expect_output "^ozram-bench: --batch: expected an integer in 1\.\.[0-9]+, got '0'\$" "bench bad batch"
expect_output "^Try 'ozram-bench --help' for more information\.\$" "bench bad batch"
expect 2 "bench unknown option" "$bench" --input x --frob
expect_output "^ozram-bench: unknown option '--frob'\$" "bench unknown option"
expect 2 "ringload unknown short option" "$ringload" --shm x -xy --input x
expect_output "^ozram-ringload: unknown option '-x'\$" "ringload unknown short option"
expect 2 "ringload bad slots" "$ringload" --shm x --input x --slots 0
expect_output "^ozram-ringload: --slots: expected an integer in 1\.\.65536, got '0'\$" \
	"ringload bad slots"
expect_output "^Try 'ozram-ringload --help' for more information\.\$" "ringload bad slots"
expect 2 "ringload missing value" "$ringload" --shm
expect_output "^ozram-ringload: option '--shm' needs an argument\$" "ringload missing value"

# A process that is not there: ESRCH, status 3, no file left behind.
expect 3 "pagedump of a missing process" "$pagedump" 4194304 -o "$work/none.pages"
expect_output 'process 4194304: No such process \(ESRCH\)' "pagedump of a missing process"
[[ ! -e $work/none.pages ]] || {
	echo "FAIL: a failed dump left its file" >&2
	failures=$((failures + 1))
}
# ... and one over an earlier corpus leaves it as it was.
echo "an earlier corpus" >"$work/keep.pages"
expect 3 "pagedump of a missing process over a file" "$pagedump" 4194304 -o "$work/keep.pages"
[[ $(cat "$work/keep.pages") == "an earlier corpus" ]] || {
	echo "FAIL: a failed dump changed the file at its output path" >&2
	failures=$((failures + 1))
}

# The module's rows on pages that all go raw: the checks alone have no
# compressed page to run on, so they have no row and no ratio.
head -c $((16 * 4096)) /dev/urandom >"$work/random.pages"
expect 0 "bench module rows on raw pages" "$bench" --input "$work/random.pages" \
	--backend module --algorithm lz4 --repeat 1
expect_output '^  ring-stage ' "bench module rows on raw pages"
if grep -qE 'check-verify|check-decode-compare' "$work/out"; then
	echo "FAIL: bench module rows on raw pages: a check-alone row without a compressed page" >&2
	sed 's/^/    /' "$work/out" >&2
	failures=$((failures + 1))
fi

# A corpus that is not whole pages.
head -c 5000 /dev/zero >"$work/odd.pages"
expect 1 "bench on a partial page" "$bench" --input "$work/odd.pages"
expect_output 'not a positive multiple of 4096.*\(EINVAL\)' "bench on a partial page"
expect 1 "bench on a missing file" "$bench" --input "$work/missing.pages"
expect_output '\(ENOENT\)' "bench on a missing file"
expect 1 "ringload on a directory" "$ringload" --shm "ozram-cli-test-$$" --input "$work"
expect_output "^ozram-ringload: $work: not a regular file: Invalid argument\$" \
	"ringload on a directory"

# A live process: a shell that has filled some heap, then waits in a builtin
# (no child process to outlive the test) on a FIFO nobody writes to.
mkfifo "$work/hold"
bash -c 'x=$(head -c 3000000 /dev/urandom | od -An -tx1); : >"$1"; read -r -t 120 _; echo ${#x}' \
	_ "$work/ready" <>"$work/hold" >/dev/null 2>&1 &
sleeper=$!
for _ in $(seq 1 300); do
	[[ -e $work/ready ]] && break
	sleep 0.1
done
"$pagedump" "$sleeper" -o "$work/live.pages" >"$work/out" 2>&1
status=$?
if [[ $status -eq 4 ]]; then
	echo "SKIP: this user may not read other processes (ptrace):" >&2
	cat "$work/out" >&2
	exit 77
fi
if [[ $status -ne 0 ]]; then
	echo "FAIL: pagedump of a live process: exit $status" >&2
	cat "$work/out" >&2
	exit 1
fi
expect_output "^ +$sleeper +bash" "pagedump summary"

# A kernel thread is there, but has no memory to dump.
if [[ $(cat /proc/2/comm 2>/dev/null) == kthreadd ]]; then
	expect 1 "pagedump of a kernel thread" "$pagedump" 2 -o "$work/kthread.pages"
	expect_output '^ozram-pagedump: process 2 \(kthreadd\) has no user memory' \
		"pagedump of a kernel thread"
else
	echo "note: PID 2 is not kthreadd here; the kernel-thread step does not run" >&2
fi
size=$(stat -c %s "$work/live.pages")
if ((size == 0 || size % 4096 != 0)); then
	echo "FAIL: corpus size $size is not whole pages" >&2
	failures=$((failures + 1))
fi

expect 0 "bench --json" "$bench" --input "$work/live.pages" --threads 2 --batch 64 --repeat 1 --json
rows=$(grep -c '^{' "$work/out")
if ((rows < 3)); then
	echo "FAIL: bench --json printed $rows rows" >&2
	failures=$((failures + 1))
fi
expect_output '"backend": "cpu".*"mismatches": 0,' "bench --json cpu row"
expect_output '"backend": "liblz4-2"' "bench --json reference row"
if grep '^{' "$work/out" | grep -vq '"mismatches": 0,'; then
	echo "FAIL: a row has mismatches" >&2
	failures=$((failures + 1))
fi

expect 0 "bench --csv" "$bench" --input "$work/live.pages" --backend scalar --batch 7 --repeat 1 --csv
expect_output '^backend,threads,batch,repeats,pages,bytes_in,bytes_out,ratio,' "bench --csv header"
expect_output '^scalar,1,7,1,' "bench --csv scalar row"

# Every other format, against its own library on the same threads.
for pair in lz4hc:liblz4hc lzo:liblzo2 lzo-rle:liblzo2 zstd:libzstd; do
	algorithm=${pair%%:*}
	library=${pair#*:}
	expect 0 "bench --algorithm $algorithm" "$bench" --input "$work/live.pages" \
		--algorithm "$algorithm" --threads 2 --batch 64 --repeat 1
	expect_output "^ozram-bench: gpu: left out: it compresses only lz4\$" \
		"bench --algorithm $algorithm leaves gpu out"
	expect_output "^$library-2 +2 " "bench --algorithm $algorithm reference row"
	expect_output "^cpu vs $library-2 " "bench --algorithm $algorithm comparison"
	expect_output "^  same ratio: " "bench --algorithm $algorithm ratio check"
	if grep -E '^(cpu|scalar|lib[a-z0-9]+-[0-9]+) +[0-9]+ ' "$work/out" | awk '$NF != 0 { bad = 1 } END { exit !bad }'; then
		echo "FAIL: bench --algorithm $algorithm: a row has mismatches" >&2
		failures=$((failures + 1))
	fi
done
expect 2 "bench --algorithm deflate" "$bench" --input x --algorithm deflate
expect_output "^ozram-bench: --algorithm: expected lz4, lz4hc, lzo, lzo-rle or zstd, got 'deflate'\$" \
	"bench --algorithm deflate"
expect 2 "bench zstd on the gpu" "$bench" --input x --algorithm zstd --backend gpu
expect_output "^ozram-bench: the gpu backend compresses only lz4\$" "bench zstd on the gpu"

# The module's work a page: every row, warm and cold, for each format (the
# LZ4 walk's row for lz4 and lz4hc only); the check refuses no honest result.
for algorithm in lz4 lz4hc lzo lzo-rle zstd; do
	for cold in "" --cold; do
		expect 0 "bench --backend module $algorithm $cold" "$bench" --input "$work/live.pages" \
			--backend module --algorithm "$algorithm" --repeat 1 --csv $cold
		expect_output '^algorithm,row,us_per_page,pages$' "bench module csv header"
		for row in inline-compress inline-store inline ring-stage ring-check ring-store ring \
			ring-check-decode ring-store-decode ring-decode check-decode-compare; do
			expect_output "^$algorithm,$row,[0-9.]+,[0-9]+\$" "bench module $algorithm $row"
		done
		case $algorithm in
		lz4 | lz4hc) expect_output "^$algorithm,check-verify,[0-9.]+,[0-9]+\$" "bench module walk" ;;
		*)
			if grep -q ',check-verify,' "$work/out"; then
				echo "FAIL: bench module $algorithm: an LZ4 walk row for another format" >&2
				failures=$((failures + 1))
			fi
			;;
		esac
	done
done
expect 0 "bench --backend module table" "$bench" --input "$work/live.pages" --backend module \
	--repeat 1 --batch 16
expect_output "^the module's work a page, lz4: .*batches of 16, warm" "bench module table"
expect_output "^  check-verify / check-decode-compare: [0-9.]+x\$" "bench module check ratio"
expect 2 "bench --cold without module" "$bench" --input x --cold
expect_output "^ozram-bench: --cold is for --backend module\$" "bench --cold without module"
expect 2 "bench module --json" "$bench" --input x --backend module --json
expect_output "^ozram-bench: --backend module writes a table or --csv\$" "bench module --json"
expect 2 "bench --timeline without the gpu row" "$bench" --input x --backend cpu --timeline t.csv
expect_output "^ozram-bench: --timeline is for the gpu row \(--backend gpu or all, lz4\)\$" \
	"bench --timeline without the gpu row"

# Only the gpu backend: measured with a GPU, status 2 without one.
"$bench" --input "$work/live.pages" --backend gpu --repeat 1 >"$work/out" 2>&1
status=$?
if [[ $status -eq 2 ]]; then
	expect_output 'needs a GPU' "bench --backend gpu without a GPU"
elif [[ $status -ne 0 ]]; then
	echo "FAIL: bench --backend gpu: exit $status" >&2
	failures=$((failures + 1))
fi

# --timeline with every row: the gpu row writes it where it runs; where it
# does not (no GPU, or a driver that cannot register the corpus), nothing
# is written and stderr says so.
rm -f "$work/timeline.csv"
expect 0 "bench all --timeline" "$bench" --input "$work/live.pages" --repeat 1 --max-pages 64 \
	--timeline "$work/timeline.csv"
if [[ -e "$work/timeline.csv" ]]; then
	if grep -q 'not written' "$work/out"; then
		echo "FAIL: bench all --timeline wrote $work/timeline.csv and said it did not" >&2
		failures=$((failures + 1))
	fi
else
	expect_output "^ozram-bench: --timeline $work/timeline.csv: not written, the gpu row does not run\$" \
		"bench all --timeline without the gpu row"
fi

if ((failures > 0)); then
	echo "$failures check(s) failed" >&2
	exit 1
fi
echo "all checks passed"
