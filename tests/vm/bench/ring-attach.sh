# vm: --mem 256 --agent none
# Cost of attaching and detaching an agent: 5 rounds of 300 open/close
# cycles of /dev/ozram-ring, each with one page in flight that the detach
# drains.  Run: tests/vm/run --script tests/vm/bench/ring-attach.sh
dev_setup 0 16M
D=$(dev 0)
for round in 1 2 3 4 5; do
	t0=$(cut -d' ' -f1 /proc/uptime)
	i=0
	while [ $i -lt 300 ]; do
		exec 3<>/dev/ozram-ring
		dd if=/dev/urandom of=$D bs=4k count=1 seek=$i conv=notrunc 2>/dev/null
		exec 3>&-
		i=$((i + 1))
	done
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "ATTACH-BENCH round $round: 300 cycles in $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') s"
done
note "backend_stat: $(tr '\n' ' ' < $(sysdir 0)/backend_stat)"
