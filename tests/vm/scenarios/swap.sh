# vm: --mem 256 --timeout 400
# vm-agent: no the agent locks about 85 MiB, too much of this 256 MiB VM for memhog; agent-crash.sh swaps with the agent at 320 MiB
# Swap on the device: a process touches 1.5 times the VM's memory with a
# deterministic page mix and verifies every byte after it went out to the
# device and came back.

S=$(sysdir 0)
D=$(dev 0)
ram_mb=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024))
hog_mb=$((ram_mb * 3 / 2))

step "swap on $D"
# Large enough for the hog, small enough that the kernel counts swap as more
# than half full and frees the slots of pages read back in, instead of keeping
# them compressed and uncompressed at once.
dev_setup 0 384M
# As for zram: no swap read-ahead (each page costs a decompression, and
# read-ahead brings in pages nobody asked for while memory is short).
echo 0 >/proc/sys/vm/page-cluster
mkswap $D >/dev/null || fail "mkswap failed"
swapon $D || fail "swapon failed"
grep -q "^$D " /proc/swaps || fail "$D not in /proc/swaps"
cat /proc/swaps

step "memhog: $hog_mb MiB in a VM with $ram_mb MiB"
# Sample swap use while the hog runs; the pages leave swap when it exits.
(
	max=0
	while :; do
		used=$(awk -v d=$D '$1 == d { print $4 }' /proc/swaps)
		[ "${used:-0}" -gt $max ] && max=$used && echo $max >/tmp/swap-max
		sleep 1
	done
) &
sampler=$!
memhog --mb $hog_mb --seed 11 || fail "memhog reported corrupted pages (or could not run)"
kill $sampler
wait $sampler 2>/dev/null || true

step "the device carried the swap traffic"
swap_max=$(cat /tmp/swap-max 2>/dev/null || echo 0)
note "peak swap use: $swap_max KiB"
note "mm_stat: $(cat $S/mm_stat)"
note "io_stat: $(cat $S/io_stat)"
check_cmp "$swap_max" -gt $((hog_mb * 1024 / 4)) "peak swap use (KiB) exceeds a quarter of the hog"
check_cmp "$(stat_field $S/mm_stat mem_used_max)" -gt 0 "mem_used_max"
check_cmp "$(stat_field $S/mm_stat same_pages)" -ge 0 "same_pages"
check_cmp "$(stat_field $S/io_stat notify_free)" -gt 0 "notify_free (swap slots freed)"
check_eq "$(stat_field $S/io_stat failed_reads)" 0 "failed_reads"
check_eq "$(stat_field $S/io_stat failed_writes)" 0 "failed_writes"

step "swapoff"
swapoff $D || fail "swapoff failed"
grep -q "^$D " /proc/swaps && fail "$D still in /proc/swaps"
check_eq "$(stat_field $S/mm_stat orig_data_size)" 4096 "orig_data_size after swapoff (the swap header page)"
dev_reset 0
