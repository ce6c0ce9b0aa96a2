# vm: --mem 512
# Data written to the device reads back byte for byte: whole pages of mixed
# content, real process memory, random data, sub-page writes at odd offsets,
# after compaction and after a discard; mm_stat counts what was stored.
# The device is checked as a whole against a reference image in tmpfs that
# receives the same writes.

S=$(sysdir 0)
D=$(dev 0)
SIZE_MB=32
REF=/tmp/ref.img

# put FILE SEEK BS [dd options]: write FILE to the device and to the
# reference image at SEEK blocks of BS bytes.
put() {
	dd if="$1" of=$D bs="$3" seek="$2" conv=notrunc ${4:-} 2>/dev/null || fail "dd of $1 to $D failed"
	dd if="$1" of=$REF bs="$3" seek="$2" conv=notrunc 2>/dev/null
}

# verify WHAT: the whole device, read past the page cache, equals the reference.
verify() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	check_eq "$(dd if=$D bs=1M iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$(md5 $REF)" "$1"
}

orig() { stat_field $S/mm_stat orig_data_size; }
same() { stat_field $S/mm_stat same_pages; }

dev_setup 0 ${SIZE_MB}M
dd if=/dev/zero of=$REF bs=1M count=$SIZE_MB 2>/dev/null
check_eq "$(orig)" 0 "orig_data_size of a new device"
verify "a new device reads as zeros"

step "mixed pages (zero, same-filled, text, integers, random)"
pagegen --pages 2048 --seed 7 >/tmp/mixed.bin
put /tmp/mixed.bin 0 4096 oflag=direct
check_eq "$(orig)" $((2048 * 4096)) "orig_data_size counts every page written"
verify "mixed pages"

step "zero and same-filled pages are stored as same pages"
same0=$(same)
pagegen --pages 100 --kind zero >/tmp/zero.bin
pagegen --pages 100 --kind same --seed 3 >/tmp/same.bin
put /tmp/zero.bin 2048 4096 oflag=direct
put /tmp/same.bin 2148 4096 oflag=direct
check_eq "$(same)" $((same0 + 200)) "same_pages grew by the 200 same-filled pages"
check_eq "$(orig)" $((2248 * 4096)) "orig_data_size includes same pages"
verify "zero and same-filled pages"

step "real process memory (heap pages with pointers)"
pagegen --pages 512 --kind heap >/tmp/heap.bin
put /tmp/heap.bin 4096 4096 oflag=direct
verify "heap pages"

step "random data from /dev/urandom, through the page cache"
dd if=/dev/urandom of=/tmp/random.bin bs=4096 count=1024 2>/dev/null
put /tmp/random.bin 6144 4096
verify "random pages"
check_cmp "$(stat_field $S/mm_stat huge_pages)" -ge 1 "incompressible pages are stored as huge pages"

step "overwriting pages does not change orig_data_size"
before=$(orig)
pagegen --pages 256 --seed 99 >/tmp/over.bin
put /tmp/over.bin 100 4096 oflag=direct
check_eq "$(orig)" "$before" "orig_data_size after overwriting 256 pages"
verify "overwritten pages"

step "sub-page writes at odd offsets"
dd if=/dev/urandom of=/tmp/small.bin bs=1000 count=1 2>/dev/null
put /tmp/small.bin 8195 512 oflag=direct
put /tmp/small.bin 1 512
put /tmp/small.bin 123457 1
put /tmp/small.bin 4194303 1
dd if=/dev/urandom of=/tmp/sector.bin bs=512 count=1 2>/dev/null
for sector in 7 8 15 16 16383 65535; do
	put /tmp/sector.bin $sector 512 oflag=direct
done
verify "sub-page writes"

step "compaction"
sysfs_set $S/compact 1
verify "after compact"

step "discard frees pages and reads back as zeros"
before=$(orig)
blkdiscard -o 0 -l 1048576 $D
dd if=/dev/zero of=$REF bs=1M count=1 conv=notrunc 2>/dev/null
check_eq "$(orig)" $((before - 256 * 4096)) "orig_data_size after discarding 256 stored pages"
verify "after discard"

step "a second pass reads the same"
verify "second read"
dev_reset 0
