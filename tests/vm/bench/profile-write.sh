# vm: --mem 512 --agent cpu --program /usr/bin/perf --timeout 900
# Where the CPUs' time goes while writing: perf samples every CPU
# (cpu-clock, 499 Hz) while blkbench writes 32 MiB of the page mix with
# 4 KiB O_DIRECT writes, sequential then random, three times, to stock
# zram (lz4), then to ozram with the agent, as bench-vm does (each write
# pass lasts until no page is staged or parked).  Prints for each device
# blkbench's own figures, the share of the samples per process and per
# kernel or user symbol, and the kernel workers' samples by the work
# function they ran.  Under TCG cpu-clock samples are the emulated CPUs'
# time, so only the shares are meaningful.
# Run: tests/vm/run --mem 512 --agent cpu --program /usr/bin/perf \
#          --timeout 900 --script tests/vm/bench/profile-write.sh
perf_ready
load_module lz4
load_module zram num_devices=1
echo lz4 >/sys/block/zram0/comp_algorithm
for d in ozram0 zram0; do
	sysfs_set /sys/block/$d/disksize 64M
done

for d in zram0 ozram0; do
	step "writes to /dev/$d under perf"
	perf record -q -a -g -m 16 -e cpu-clock -F 499 -o /tmp/$d.data -- \
		blkbench --mb 32 --repeats 3 /dev/$d >/tmp/bench.out 2>&1 ||
		{ cat /tmp/bench.out; fail "blkbench or perf failed on /dev/$d"; }
	grep -E '^(RESULT|CPU)' /tmp/bench.out | grep write | sed "s/^/PROFILE $d: /"
	perf_shares $d /tmp/$d.data
done
echo "PROFILE ring: $(tr '\n' ' ' </sys/block/ozram0/backend_stat)"
