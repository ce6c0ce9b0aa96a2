# vm: --no-module --mem 512 --timeout 1800
# The kernel module's own work a page, under TCG: ozram-bench --backend
# module (carried in with --program) on the corpus carried in with --file,
# for each algorithm, warm, as tests/vm/bench-module runs it natively on
# the same pages.  Prints each row as "module-work: ALGORITHM,ROW,US,PAGES".
# Run by tests/vm/bench-module, which compares the two.
CORPUS=/run/files/module-corpus.pages
REPEATS=${MODULE_REPEATS:-5}

[ -r $CORPUS ] || fail "no corpus: run this through tests/vm/bench-module"
command -v ozram-bench >/dev/null || fail "no ozram-bench: run this through tests/vm/bench-module"
for algorithm in lz4 lz4hc lzo lzo-rle zstd; do
	ozram-bench --input $CORPUS --backend module --algorithm $algorithm \
		--repeat "$REPEATS" --csv >/tmp/module.csv || fail "ozram-bench failed on $algorithm"
	sed -n '2,$s/^/module-work: /p' /tmp/module.csv
done
