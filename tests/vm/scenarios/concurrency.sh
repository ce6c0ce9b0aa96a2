# vm: --mem 384 --num-devices 4
# Concurrent writers and readers on four devices, two of them also with
# several jobs on disjoint regions of the same device; every job verifies
# what it wrote.

NDEV=4
JOBS_PER_DEV=2
REGION_PAGES=1024

# job DEV REGION: writes two rounds of pages to its region of the device,
# reading each round back past the page cache and comparing.
job() {
	d=$1 r=$2
	for round in 1 2; do
		f=/tmp/job-$d-$r-$round.bin
		pagegen --pages $REGION_PAGES --seed $((d * 100 + r * 10 + round)) >$f
		dd if=$f of=$(dev $d) bs=4096 seek=$((r * REGION_PAGES)) oflag=direct 2>/dev/null ||
			{ echo "job $d/$r: write failed"; return 1; }
		got=$(dd if=$(dev $d) bs=4096 skip=$((r * REGION_PAGES)) count=$REGION_PAGES iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
		[ "$got" = "$(md5 $f)" ] || { echo "job $d/$r round $round: data differs"; return 1; }
	done
}

step "$NDEV devices"
d=0
while [ $d -lt $NDEV ]; do
	[ -b "$(dev $d)" ] || fail "$(dev $d) missing (num_devices=$NDEV)"
	dev_setup $d 32M
	d=$((d + 1))
done

step "$((NDEV * JOBS_PER_DEV)) concurrent jobs"
pids=
d=0
while [ $d -lt $NDEV ]; do
	r=0
	while [ $r -lt $JOBS_PER_DEV ]; do
		job $d $r &
		pids="$pids $!"
		r=$((r + 1))
	done
	d=$((d + 1))
done
failed=0
for p in $pids; do
	wait $p || failed=$((failed + 1))
done
check_eq "$failed" 0 "failed jobs"

step "all regions read back after the jobs ended"
d=0
while [ $d -lt $NDEV ]; do
	r=0
	while [ $r -lt $JOBS_PER_DEV ]; do
		check_eq "$(dd if=$(dev $d) bs=4096 skip=$((r * REGION_PAGES)) count=$REGION_PAGES iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
			"$(md5 /tmp/job-$d-$r-2.bin)" "device $d region $r"
		r=$((r + 1))
	done
	check_eq "$(stat_field $(sysdir $d)/mm_stat orig_data_size)" $((JOBS_PER_DEV * REGION_PAGES * 4096)) \
		"orig_data_size of device $d"
	check_eq "$(stat_field $(sysdir $d)/io_stat failed_writes)" 0 "failed_writes of device $d"
	d=$((d + 1))
done

step "concurrent readers while a writer rewrites another region"
pagegen --pages $REGION_PAGES --seed 4242 >/tmp/w.bin
dd if=/tmp/w.bin of=$(dev 0) bs=4096 seek=$((2 * REGION_PAGES)) oflag=direct 2>/dev/null &
writer=$!
readers=
for i in 1 2 3; do
	(
		got=$(dd if=$(dev 0) bs=4096 count=$REGION_PAGES iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
		[ "$got" = "$(md5 /tmp/job-0-0-2.bin)" ]
	) &
	readers="$readers $!"
done
wait $writer || fail "writer failed"
for p in $readers; do
	wait $p || fail "a reader saw wrong data"
done
check_eq "$(dd if=$(dev 0) bs=4096 skip=$((2 * REGION_PAGES)) count=$REGION_PAGES iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/w.bin)" "the region the writer rewrote"
