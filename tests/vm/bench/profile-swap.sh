# vm: --mem 512 --agent cpu --program /usr/bin/perf --timeout 900
# Where the CPUs' time goes while swapping: perf samples every CPU
# (cpu-clock, 499 Hz) while memhog writes and checks 1.5 times the VM's
# memory with swap on stock zram (lz4), then on ozram with the agent, as in
# bench-vm --swap.  Prints for each device the wall time of the hog, the
# share of the samples per process and per kernel or user symbol, and the
# offload ring's numbers.  The kernel workers' samples are also counted by
# the work function they ran.  Under TCG cpu-clock samples are the emulated
# CPUs' time, so only the shares are meaningful.
# Run: tests/vm/run --mem 512 --agent cpu --program /usr/bin/perf \
#          --timeout 900 --script tests/vm/bench/profile-swap.sh
perf_ready
load_module lz4
load_module zram num_devices=1
echo lz4 >/sys/block/zram0/comp_algorithm
echo 0 >/proc/sys/vm/page-cluster
for d in ozram0 zram0; do
	sysfs_set /sys/block/$d/disksize 1G
	mkswap /dev/$d >/dev/null || fail "mkswap /dev/$d failed"
done
hog=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) * 3 / 2 / 1024))

for d in zram0 ozram0; do
	step "swap on /dev/$d: memhog of $hog MiB under perf"
	swapon /dev/$d || fail "swapon /dev/$d failed"
	t0=$(uptime_cs)
	perf record -q -a -g -m 16 -e cpu-clock -F 499 -o /tmp/$d.data -- \
		memhog --mb $hog --seed 1 >/tmp/hog.out 2>&1 ||
		{ cat /tmp/hog.out; fail "memhog or perf failed on /dev/$d"; }
	t1=$(uptime_cs)
	swapoff /dev/$d || fail "swapoff /dev/$d failed"
	grep -q "verify pass 1:" /tmp/hog.out || fail "memhog did not verify its pages"
	echo "PROFILE $d: memhog $(((t1 - t0) * 10)) ms"
	perf_shares $d /tmp/$d.data
done
echo "PROFILE ring: $(tr '\n' ' ' </sys/block/ozram0/backend_stat)"
