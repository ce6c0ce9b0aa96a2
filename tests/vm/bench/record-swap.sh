# vm: --mem 512 --agent cpu --timeout 900
# A recorded run for the monitoring figures (Documentation/img/): ozram0 as
# swap with the agent attached, a memory hog of 1.5 times the VM's memory
# that swaps out and back in (two verifying passes), and swapoff, while
# "ozramctl stats -j" and "ozramctl latency -j" are recorded every second.  The recording is printed
# at the end, one "OZRAM-REC" line per sample, for tools/plot-recording:
#   tests/vm/run --mem 512 --agent cpu --timeout 900 --log /tmp/rec.log \
#       --script tests/vm/bench/record-swap.sh
#   grep -a '^OZRAM-REC ' /tmp/rec.log >recording.jsonl   (then strip the prefix)
[ "${AGENT:-none}" = cpu ] || fail "this recording needs the agent (tests/vm/run --agent cpu)"
command -v ozramctl >/dev/null || fail "no ozramctl in the VM (build it first)"

D=$(dev 0)
ram_mb=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024))
hog_mb=$((ram_mb * 3 / 2))

echo 1 >/sys/module/ozram/parameters/latency_stats # the histograms recorded below
dev_setup 0 768M
echo 0 >/proc/sys/vm/page-cluster
mkswap $D >/dev/null || fail "mkswap failed"
swapon $D || fail "swapon failed"

# One JSON object per line and second: the time since boot, the device's
# statistics and its latency histograms.
record() {
	while [ ! -e /tmp/stop-recording ]; do
		t=$(cut -d' ' -f1 /proc/uptime)
		s=$(ozramctl stats -j 0) || s=null
		l=$(ozramctl latency -j 0) || l=null
		echo "{\"uptime_s\":$t,\"stats\":$s,\"latency\":$l}" >>/tmp/recording.jsonl
		sleep 1
	done
}
record &
recorder=$!

step "idle for 5 s"
sleep 5
step "memhog: $hog_mb MiB in a VM with $ram_mb MiB, two passes"
memhog --mb $hog_mb --seed 31 --passes 2 >/tmp/memhog.log 2>&1 ||
	{ cat /tmp/memhog.log; fail "memhog reported corrupted pages (or could not run)"; }
tail -n 2 /tmp/memhog.log
step "idle for 5 s"
sleep 5
swapoff $D || fail "swapoff failed"
step "swap off; idle for 5 s"
sleep 5
touch /tmp/stop-recording
wait $recorder
n=$(wc -l </tmp/recording.jsonl)
check_cmp $n -ge 20 "samples recorded"
sed 's/^/OZRAM-REC /' /tmp/recording.jsonl
