# vm: --mem 1024 --agent cpu --program /usr/bin/perf --timeout 900
# Where the kernel's time goes in kernel-cpu.sh's workload: perf samples
# every CPU (cpu-clock, 499 Hz) while 2 x 64 MiB of compressible text is
# written with O_DIRECT to stock zram (lz4), then to ozram with the agent at
# nice 0 (as kernel-cpu.sh's headline runs it), each write lasting until
# the device holds every page.  Prints the share of the samples per process
# and per symbol, the kernel workers' samples by work function, and for the
# agent's doorbell thread (whose OZRAM_RING_IOC_COMPLETE checks and stores
# the agent's results) the kernel functions that its samples were spent in,
# children included.  Under TCG cpu-clock samples are the emulated CPUs'
# time, so only the shares are meaningful.
# Run: tests/vm/run --mem 1024 --agent cpu --program /usr/bin/perf \
#          --timeout 900 --script tests/vm/bench/profile-kernel-cpu.sh
FILES=2 # of 64 MiB

perf_ready
load_module lz4
load_module zram num_devices=1
sums=$(text_files $FILES)
echo lz4 >/sys/block/zram0/comp_algorithm
stop_agent && start_agent --nice 0 >/dev/null || fail "no agent"

for d in zram0 ozram0; do
	step "text written to /dev/$d under perf"
	sysfs_set /sys/block/$d/disksize $((FILES * 64 + 16))M
	perf record -q -a -g -m 16 -e cpu-clock -F 499 -o /tmp/$d.data &
	perf_pid=$!
	sleep 1 # perf's start, outside the writes
	write_text_files $d
	ring_settle /sys/block/$d
	# perf stops on SIGTERM and writes its data; the status is the signal's.
	kill -TERM $perf_pid
	wait $perf_pid || true
	perf report -q -i /tmp/$d.data --stdio >/dev/null 2>&1 || fail "no perf data for /dev/$d"
	check_eq "$(dd if=/dev/$d bs=1M count=$((FILES * 64)) iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$sums" "every byte on $d"
	perf_shares $d /tmp/$d.data
done
echo "PROFILE ozram0: the doorbell thread's kernel functions, children included (% of all samples)"
perf report -q -i /tmp/ozram0.data --stdio --children --comm ozramd-doorbell \
	--sort sym -g none --percent-limit 0.3 2>/dev/null | grep '\[k\]' |
	sed "s/^/PROFILE ozram0 doorbell: /"
echo "PROFILE ring: $(tr '\n' ' ' </sys/block/ozram0/backend_stat)"
