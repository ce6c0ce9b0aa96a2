#!/bin/sh
# tools/plot-recording: the committed recording plots to a PNG, a console
# log's OZRAM-REC lines are taken, fewer than two samples is an error, and
# the per-interval p99 is ozramctl's estimate (the numbers of
# watch_view_test.cpp).
# Usage: plot_recording_test.sh SOURCE-DIR WORK-DIR
set -eu
src=$1 work=$2
plot=$src/tools/plot-recording
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$plot" "$src/Documentation/img/record-swap.jsonl" "$work/rec.png"
[ "$(head -c 8 "$work/rec.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
	fail "no PNG from the committed recording"

{
	echo "boot noise"
	sed -n '1,5s/^/OZRAM-REC /p' "$src/Documentation/img/record-swap.jsonl"
} >"$work/console.log"
"$plot" "$work/console.log" "$work/log.png" || fail "a console log did not plot"

sed -n 1p "$src/Documentation/img/record-swap.jsonl" >"$work/one.jsonl"
if "$plot" "$work/one.jsonl" "$work/one.png" 2>"$work/one.err"; then
	fail "one sample plotted"
fi
grep -q "fewer than two samples" "$work/one.err" || fail "no message for one sample"

/usr/bin/python3 - "$plot" <<'PY'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("plot_recording", sys.argv[1])
spec = importlib.util.spec_from_loader("plot_recording", loader)
m = importlib.util.module_from_spec(spec)
loader.exec_module(m)
before = {"count": 500, "buckets": [0] * 12 + [500] + [0] * 19}
after = {"count": 1500, "buckets": [0] * 12 + [1500] + [0] * 19}
d = m.interval_buckets(before, after)
assert d[12] == 1000 and sum(d) == 1000, d
assert abs(m.quantile_ns(d, 0.99) - 4096 * 1.99) < 1e-6, m.quantile_ns(d, 0.99)
assert m.quantile_ns([0] * 32, 0.99) is None
reset = {"count": 10, "buckets": [0] * 3 + [10] + [0] * 28}
assert m.interval_buckets(after, reset) == reset["buckets"]
assert m.quantile_ns(reset["buckets"], 0.5) == 8 + 0.5 * 8
last = [0] * 31 + [5]
assert m.quantile_ns(last, 0.99) == 2.0 ** 31
PY
echo "ok"
