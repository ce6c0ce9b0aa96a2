# vm: --mem 512 --agent cpu --timeout 1200
# Recompression of 64 MiB of idle LZ4 text pages with zstd: the kernel's own
# loop (agent stopped) against the agent's batches, alternately, five times
# each, the first one alternating.  Each round starts from a fresh device
# and checks every byte.  Prints the medians, their ratio (the target is
# agent <= 0.6x kernel) and the bytes each saved.
# Run: tests/vm/run --mem 512 --agent cpu --timeout 1200 \
#          --script tests/vm/bench/recompress.sh
S=$(sysdir 0)
D=$(dev 0)
pagegen --pages 16384 --kind text --seed 91 >/tmp/text.bin
sum=$(md5 /tmp/text.bin)
FROM=lz4
TO=zstd

# round kernel|agent: one timed recompression; appends "WHO CS SAVED".
round() {
	if [ "$1" = kernel ]; then stop_agent; else start_agent >/dev/null || fail "no agent"; fi
	fill_idle $FROM $TO /tmp/text.bin
	t0=$(uptime_cs)
	sysfs_set $S/recompress "type=idle"
	t1=$(uptime_cs)
	check_eq "$(dd if=$D bs=1M count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$sum" "every byte after the $1's recompression"
	saved=$(backend_field recompress_saved_bytes_total)
	echo "RECOMPRESS-BENCH $1: $(((t1 - t0) * 10)) ms, $(backend_field recompressed_pages) pages, $saved bytes saved"
	echo "$1 $((t1 - t0)) $saved" >>/tmp/rounds
	sysfs_set $S/reset 1
}

start_agent >/dev/null || fail "no agent" # calibrates once, outside the rounds
for r in 1 2 3 4 5; do
	if [ $((r % 2)) = 1 ]; then round kernel; round agent; else round agent; round kernel; fi
done
# median WHO COLUMN
median() { awk -v w="$1" -v c="$2" '$1 == w { print $c }' /tmp/rounds | sort -n | sed -n 3p; }
k=$(median kernel 2)
a=$(median agent 2)
echo "RECOMPRESS-BENCH median: kernel $((k * 10)) ms, agent $((a * 10)) ms, agent/kernel $(awk -v a=$a -v k=$k 'BEGIN { printf "%.2f", a / k }')"
echo "RECOMPRESS-BENCH saved: kernel $(median kernel 3) bytes, agent $(median agent 3) bytes"
