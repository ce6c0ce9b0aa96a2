# vm: --mem 512 --agent cpu --timeout 900
# vm-zram: no zram neither parks pages nor has an agent
# mem_limit holds while pages are parked and recompressed.  Both replace an
# object with a smaller one (a parked raw page with its compression, an
# object with its recompression) and hold the two for a moment: the
# replacement may pass the limit by two zspages (of 4 pages on 6.1, of
# CONFIG_ZSMALLOC_CHAIN_SIZE pages, 8, on 6.12), its own and
# the partly filled one earlier replacements left, and no more
# (ozram_obj_alloc()); recompression compacts the pool to retry what the
# limit refused.  A sampler reads mem_used_total all along; with the
# allocations in flight that each of the four allocators (the writer, the
# parked-page worker, the ring's store worker, recompression) checks after
# making it, as zram does, it never passes the limit by more than six
# zspages; at rest by two at most.
# Writes past the limit fail, as in zram; every page a write stored reads
# back, and the pages parked at the limit are compressed, not left raw.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"

S=$(sysdir 0)
D=$(dev 0)
LIMIT=$((24 * 1048576))
PAGE=4096
ZSPAGE=$(($(cat /etc/ozram-zspage-pages) * PAGE))
SLACK=$((6 * ZSPAGE))
CHUNKS=96 # of 1 MiB: four times the limit, in text that compresses 3:1 or so

sysfs_set $S/comp_algorithm lz4
sysfs_set $S/recomp_algorithm "algo=zstd"
sysfs_set $S/disksize 256M
sysfs_set $S/mem_limit $LIMIT
for c in $(seq 0 $((CHUNKS - 1))); do
	pagegen --pages 256 --seed $((700 + c)) --kind text >/tmp/c$c.bin
done

# The sampler: mem_used_total, as often as the shell can, until told to stop.
rm -f /tmp/stop /tmp/used.txt
(
	while [ ! -e /tmp/stop ]; do
		awk '{ print $3 }' $S/mm_stat >>/tmp/used.txt
	done
) &
sampler=$!

# settle: the agent has answered and the parked pages are staged or
# compressed; pages the agent compressed that find no room under the limit
# stay staged, held (agent-mem-limit.sh), and are tried again once the
# limit is written.
settle() {
	ring_steady 0
	sysfs_set $S/mem_limit $LIMIT
	ring_steady 0
	note "settled: $RING_STAGED pages held staged at the limit"
}

# write_chunks FIRST LAST: writes 1 MiB chunks; those written whole are
# listed in /tmp/written (a write past the limit fails, as in zram).
write_chunks() {
	for c in $(seq $1 $2); do
		dd if=/tmp/c$c.bin of=$D bs=1M seek=$c oflag=direct 2>/dev/null && echo $c >>/tmp/written
	done
	return 0
}

step "agent stalled: pages parked up to the limit, then compressed by the kernel"
echo 300 >/sys/module/ozram/parameters/ring_timeout_ms
kill -STOP "$(agent_pid)"
p0=$(backend_field pages_parked_total)
write_chunks 0 $((CHUNKS / 2 - 1))
note "after the writes: $(cat $S/mm_stat) | $(tr '\n' ' ' <$S/backend_stat)"
i=0
while [ "$(backend_field parked_pages)" != 0 ]; do
	i=$((i + 1))
	[ $i -le 600 ] || fail "pages still parked 60 s into a stall: $(backend_field parked_pages)"
	sleep 0.1
done
parked=$(($(backend_field pages_parked_total) - p0))
check_cmp "$parked" -gt 1024 "pages parked while the agent was stopped"
check_cmp "$(wc -l </tmp/written)" -ge 1 "chunks written under the limit"
note "after the stall: $(cat $S/mm_stat)"

step "agent back: the stored pages recompressed with zstd by it, at the limit"
kill -CONT "$(agent_pid)"
settle
sysfs_set $S/idle all
echo "type=idle" >$S/recompress || note "recompress stopped: $?"
settle
check_cmp "$(backend_field recompressed_pages)" -gt 1024 "pages recompressed with zstd"
note "after the recompression: $(cat $S/mm_stat) | $(tr '\n' ' ' <$S/backend_stat)"

step "agent stalled again: more pages parked while the kernel recompresses them"
kill -STOP "$(agent_pid)"
p0=$(backend_field pages_parked_total)
r0=$(backend_field recompress_saved_bytes_total)
# What the first writes could not store, now that recompression made room,
# then the rest.
for c in $(seq 0 $((CHUNKS - 1))); do
	grep -qx $c /tmp/written || write_chunks $c $c
done &
writer=$!
sysfs_set $S/idle all
echo "type=idle" >$S/recompress || note "recompress stopped: $?"
wait $writer
kill -CONT "$(agent_pid)"
settle
check_cmp "$(($(backend_field pages_parked_total) - p0))" -gt 0 "pages parked meanwhile"
note "bytes recompression saved meanwhile: $(($(backend_field recompress_saved_bytes_total) - r0))"

touch /tmp/stop
wait $sampler
max=$(sort -n /tmp/used.txt | tail -n 1)
used=$(stat_field $S/mm_stat mem_used_total)
note "$(wc -l </tmp/used.txt) samples of mem_used_total: the largest $max, now $used; mem_used_max $(stat_field $S/mm_stat mem_used_max); limit $LIMIT"
check_cmp "$(wc -l </tmp/used.txt)" -ge 100 "samples taken"
check_cmp "$max" -ge $((LIMIT - 1048576)) "the device reached the limit"
check_cmp "$max" -le $((LIMIT + SLACK)) "mem_used_total within the limit, but a replacement and allocations in flight"
check_cmp "$(stat_field $S/mm_stat mem_used_max)" -le $((LIMIT + SLACK)) "mem_used_max likewise"
check_cmp "$used" -le $((LIMIT + 2 * ZSPAGE)) "mem_used_total at rest within the limit but two zspages"
check_cmp "$(stat_field $S/io_stat failed_writes)" -gt 0 "writes past the limit failed"
check_cmp "$(backend_field mem_limit_refusals_total)" -ge "$(stat_field $S/io_stat failed_writes)" \
	"objects the limit kept out, a failed write's among them"

step "every page a write stored reads back"
written=$(sort -un /tmp/written | wc -l)
check_cmp "$written" -gt $((CHUNKS / 4)) "chunks stored"
bad=0
for c in $(sort -un /tmp/written); do
	[ "$(dd if=$D bs=1M skip=$c count=1 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" = \
		"$(md5 /tmp/c$c.bin)" ] || bad=$((bad + 1))
done
check_eq "$bad" 0 "chunks that do not read back"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
dev_reset 0
