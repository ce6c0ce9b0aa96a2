# vm: --mem 512 --agent cpu --timeout 900
# vm-zram: no Debian's 6.1 zram has no recompression (zram offers it from 6.2)
# zram's recompression ABI (recomp_algorithm, recompress) with zram's
# errnos, then 64 MiB of idle LZ4 pages recompressed with zstd three
# times: by the kernel's own loop (no agent), through the agent, and
# through an agent killed in the middle.  Every byte reads back each time,
# mm_stat's compressed size falls by exactly the bytes it reports saved,
# and the three end within 1 % of each other.  lz4hc, whose results are
# walked in their new objects, is answered by a rogue agent with LZ4 of
# other bytes (refused, and done by the kernel), then by the agent.
# type=huge, threshold= and max_pages= select what zram's do; with two
# algorithms a page the first does not shrink is recompressed by the
# second in the same write, and one the first shrinks is not; a page that
# shrinks, but not below the threshold, is not marked incompressible.  Two writes at once, while pages are
# rewritten, leave every page as last written.  The times are measured by
# tests/vm/bench/recompress.sh, not here.

[ "${AGENT:-none}" = cpu ] || fail "this scenario needs the agent (tests/vm/run --agent cpu)"
S=$(sysdir 0)
D=$(dev 0)
PAGES=16384
# Idle LZ4 pages recompressed with zstd, the case zram's users ask for.
FROM=lz4
TO=zstd

pagegen --pages $PAGES --kind text --seed 91 >/tmp/text.bin
sum=$(md5 /tmp/text.bin)

step "recomp_algorithm: zram's syntax and errnos, before initialisation"
check_eq "$(cat $S/recomp_algorithm)" "" "recomp_algorithm before any choice"
while read -r args; do
	expect_errno EINVAL sysfs-write $S/recomp_algorithm "$args"
done <<ARGS
zstd
algo=foo
algo=zstd priority=0
algo=zstd priority=4
algo=zstd priority=x
algo=zstd color=blue
algo=
ARGS
expect_errno ERANGE sysfs-write $S/recomp_algorithm "algo=zstd priority=99999999999"
# A name of CRYPTO_MAX_ALG_NAME (128) bytes or more: E2BIG from 6.2, as
# zram's (it has recompression from 6.2 on); 6.1's rule, EINVAL, below.
long_errno=EINVAL
major=$(uname -r | cut -d. -f1)
minor=$(uname -r | cut -d. -f2)
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 2 ]; }; then
	long_errno=E2BIG
fi
name127=$(printf '%127s' '' | tr ' ' a)
expect_errno EINVAL sysfs-write $S/recomp_algorithm "algo=$name127"
expect_errno $long_errno sysfs-write $S/recomp_algorithm "algo=${name127}a"
expect_errno EINVAL sysfs-write $S/recomp_algorithm "algo=${name127}a priority=9"
expect_errno EINVAL sysfs-write $S/recompress "type=idle"
sysfs_set $S/recomp_algorithm "algo=zstd"
sysfs_set $S/recomp_algorithm "algo=lz4hc priority=2"
check_eq "$(cat $S/recomp_algorithm)" "#1: lzo lzo-rle lz4 lz4hc [zstd] deflate 
#2: lzo lzo-rle lz4 [lz4hc] zstd deflate " "recomp_algorithm lists each priority"
sysfs_set $S/reset 1
check_eq "$(cat $S/recomp_algorithm)" "" "recomp_algorithm after a reset, as zram's"

fill() { fill_idle $FROM $TO /tmp/text.bin; }

# recompressed WHAT: checks every byte and the accounting of a finished
# recompression, and appends "PAGES SAVED" to /tmp/results.
recompressed() {
	check_eq "$(dd if=$D bs=1M count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$sum" "every byte after $1"
	pages=$(backend_field recompressed_pages)
	saved=$(backend_field recompress_saved_bytes_total)
	check_eq "$(($(stat_field $S/mm_stat compr_data_size) + saved))" "$compr_before" \
		"compr_data_size + recompress_saved after $1"
	check_eq "$(backend_field recompressed_pages)" "$pages" "backend_stat recompressed after $1"
	check_cmp "$pages" -gt $((PAGES / 2)) "pages recompressed by $1"
	note "$1: $pages pages recompressed, $saved bytes saved"
	echo "$pages $saved" >>/tmp/results
}

step "recompress: zram's syntax and errnos, on an initialised device"
stop_agent
fill
compr_before=$(stat_field $S/mm_stat compr_data_size)
expect_errno EBUSY sysfs-write $S/recomp_algorithm "algo=lz4hc"
while read -r args; do
	expect_errno EINVAL sysfs-write $S/recompress "$args"
done <<ARGS
type=cold
threshold=4096
algo=lz4hc
priority=2
max_pages=-1
type=idle type=huge
ARGS
check_eq "$(backend_field recompressed_pages)" 0 "nothing recompressed by refused writes"

step "max_pages and threshold"
sysfs_set $S/recompress "type=idle max_pages=100"
check_eq "$(backend_field recompressed_pages)" 100 "pages recompressed with max_pages=100"
# Every text page is picked (64 bytes or more), and none gets below 64.
sysfs_set $S/recompress "type=idle threshold=64"
check_eq "$(backend_field recompressed_pages)" 100 "pages recompressed with threshold=64"
sysfs_set $S/reset 1

step "the kernel's own loop, no agent"
fill
compr_before=$(stat_field $S/mm_stat compr_data_size)
sysfs_set $S/recompress "type=idle"
recompressed "the kernel"
check_eq "$(backend_field agent_cpu_pages)" 0 "pages the agent compressed without an agent"
step "pages no longer idle are not recompressed again"
sysfs_set $S/recompress "type=idle"
check_eq "$(backend_field recompressed_pages)" "$pages" "pages recompressed after a second pass"
sysfs_set $S/reset 1

step "through the agent"
start_agent || fail "cannot start ozramd"
fill
compr_before=$(stat_field $S/mm_stat compr_data_size)
completed=$(backend_field ring_completed_total)
sysfs_set $S/recompress "type=idle"
check_cmp $(($(backend_field ring_completed_total) - completed)) -ge $((PAGES * 9 / 10)) \
	"pages the agent recompressed"
check_eq "$(backend_field ring_verify_failures_total)" 0 "ring_verify_failures_total"
recompressed "the agent"
sysfs_set $S/reset 1

step "two writes at once while pages are rewritten: each page reads as last written"
# The passes run one after the other (recomp_mutex); a result of either
# must never land on a page rewritten after it was picked.
fill
pagegen --pages 4096 --kind text --seed 92 >/tmp/rewrite.bin
sysfs-write $S/recompress "type=idle" >/tmp/recompress1.out 2>&1 &
first=$!
sysfs-write $S/recompress "type=idle" >/tmp/recompress2.out 2>&1 &
second=$!
i=0
while [ $i -lt 16 ]; do
	dd if=/tmp/rewrite.bin of=$D bs=1M skip=$i seek=$i count=1 oflag=direct 2>/dev/null ||
		fail "rewrite $i failed"
	i=$((i + 1))
done
wait $first
wait $second
check_eq "$(tail -n 1 /tmp/recompress1.out)" OK "the first write to recompress"
check_eq "$(tail -n 1 /tmp/recompress2.out)" OK "the second write to recompress"
check_eq "$(dd if=$D bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/rewrite.bin)" "the 16 MiB rewritten during the passes"
check_eq "$(dd if=$D bs=1M skip=16 count=48 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(dd if=/tmp/text.bin bs=1M skip=16 count=48 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"the 48 MiB left as they were"
sysfs_set $S/reset 1

step "through an agent killed in the middle"
fill
compr_before=$(stat_field $S/mm_stat compr_data_size)
submitted=$(backend_field ring_submitted_total)
sysfs-write $S/recompress "type=idle" >/tmp/recompress.out 2>&1 &
writer=$!
i=0
while [ "$(backend_field ring_submitted_total)" -lt $((submitted + 2000)) ]; do
	i=$((i + 1))
	[ $i -le 600 ] || fail "the recompression did not reach the agent in 60 s"
	sleep 0.1
done
kill -KILL "$(agent_pid)"
rm -f $OZRAMD_PIDFILE
note "killed with $(($(backend_field ring_submitted_total) - submitted)) pages submitted"
wait $writer
check_eq "$(tail -n 1 /tmp/recompress.out)" OK "the write to recompress"
wait_detached
recompressed "the killed agent"
sysfs_set $S/reset 1

step "the three saved the same bytes, within 1 %"
cat /tmp/results
awk 'NR == 1 { p = $1; s = $2 }
     { if ($1 * 100 < p * 99 || $1 * 100 > p * 101 || $2 * 100 < s * 99 || $2 * 100 > s * 101) bad++ }
     END { exit bad }' /tmp/results || fail "pages or bytes differ by more than 1 %"
note "ok: within 1 %"

# lz4hc: 16 MiB of the text, idle, recompressed with $1 attached; sets
# $completed and $failures to the ring's counters before the write.
recompress_lz4hc() {
	sysfs_set $S/recomp_algorithm "algo=lz4hc"
	dev_setup 0 16M
	dd if=/tmp/text.bin of=$D bs=1M count=16 oflag=direct 2>/dev/null || fail "write failed"
	ring_settle 0
	sysfs_set $S/idle all
	completed=$(backend_field ring_completed_total)
	failures=$(backend_field ring_verify_failures_total)
	sysfs_set $S/recompress "type=idle"
	check_eq "$(dd if=$D bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
		"$(head -c 16777216 /tmp/text.bin | md5sum | cut -d' ' -f1)" "every byte after lz4hc with $1"
	note "$1: $(backend_field recompressed_pages) pages recompressed with lz4hc"
}

step "lz4hc answered by a rogue with LZ4 of other bytes: refused, then done by the kernel"
# An LZ4 result is copied once, into its new object, and walked there:
# a wrong one must be refused before it replaces anything.
rogue-agent --seconds 4 --no-jump --kind wrong_lz4 --all-algorithms >/tmp/rogue-recomp.log 2>&1 &
rogue=$!
wait_attached "the rogue agent"
recompress_lz4hc "the rogue"
wait $rogue || fail "the rogue failed: $(cat /tmp/rogue-recomp.log)"
cat /tmp/rogue-recomp.log
grep -q 'sent wrong_lz4=[1-9]' /tmp/rogue-recomp.log || fail "the rogue sent no wrong_lz4 completion"
check_eq "$(backend_field ring_completed_total)" "$completed" "ring_completed_total (no wrong result accepted)"
check_cmp "$(backend_field ring_verify_failures_total)" -gt "$failures" "ring_verify_failures_total"
by_kernel=$(backend_field recompressed_pages)
check_cmp "$by_kernel" -gt 2048 "pages the kernel recompressed after the rogue's"
sysfs_set $S/reset 1

step "lz4hc through the agent: each result walked in its new object"
start_agent || fail "cannot restart ozramd"
recompress_lz4hc "the agent"
check_cmp $(($(backend_field ring_completed_total) - completed)) -ge $((4096 * 9 / 10)) \
	"pages the agent recompressed"
check_eq "$(backend_field ring_verify_failures_total)" "$failures" "ring_verify_failures_total"
by_agent=$(backend_field recompressed_pages)
check_cmp $((by_agent * 100)) -ge $((by_kernel * 99)) "pages the agent recompressed against the kernel's $by_kernel"
check_cmp $((by_agent * 100)) -le $((by_kernel * 101)) "pages the agent recompressed against the kernel's $by_kernel"
sysfs_set $S/reset 1

step "type=huge: pages stored raw stay raw when $TO cannot shrink them"
sysfs_set $S/recomp_algorithm "algo=$TO"
dev_setup 0 16M
pagegen --pages 256 --kind random --seed 92 >/tmp/random.bin
dd if=/tmp/random.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
huge=$(stat_field $S/mm_stat huge_pages)
check_cmp "$huge" -eq 256 "random pages stored raw"
sysfs_set $S/recompress "type=huge"
check_eq "$(stat_field $S/mm_stat huge_pages)" "$huge" "huge pages after recompression"
check_eq "$(backend_field recompressed_pages)" 0 "random pages recompressed"
check_eq "$(dd if=$D bs=1M count=1 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/random.bin)" "every random byte"
sysfs_set $S/reset 1

step "two algorithms: a page the first does not shrink is tried with the second"
# lz4 again at priority 1 never saves a size class over the lz4 object;
# zram then tries the page with the next algorithm in the same write.
sysfs_set $S/recomp_algorithm "algo=lz4 priority=1"
sysfs_set $S/recomp_algorithm "algo=$TO priority=2"
dev_setup 0 16M
dd if=/tmp/text.bin of=$D bs=1M count=16 oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
sysfs_set $S/idle all
# max_pages counts a page once, whichever algorithms try it, as zram's.
sysfs_set $S/recompress "type=idle max_pages=100"
check_eq "$(backend_field recompressed_pages)" 100 "pages recompressed with max_pages=100"
sysfs_set $S/recompress "type=idle"
check_eq "$(backend_field recompressed_pages)" 4096 "pages recompressed by the second algorithm"
check_eq "$(dd if=$D bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(head -c 16777216 /tmp/text.bin | md5sum | cut -d' ' -f1)" "every byte after two algorithms"
# Recompressed by the last algorithm, no page is a candidate any more.
sysfs_set $S/idle all
sysfs_set $S/recompress "type=idle"
check_eq "$(backend_field recompressed_pages)" 4096 "pages recompressed by a second write"
sysfs_set $S/reset 1

step "two algorithms: a page the first shrinks is left to the next write"
# zram stops at the first algorithm that shrinks a page; the second tries
# it in a later write.  Done in the same write, the second write would find
# no page to recompress and save nothing.  No type=: every page is a
# candidate, idle or not (a page stored loses its idle mark).
sysfs_set $S/recomp_algorithm "algo=lz4hc priority=1"
sysfs_set $S/recomp_algorithm "algo=$TO priority=2"
dev_setup 0 16M
dd if=/tmp/text.bin of=$D bs=1M count=16 oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
sysfs_set $S/recompress "max_pages=4096"
check_cmp "$(backend_field recompressed_pages)" -gt 2048 "pages recompressed by the first write"
saved=$(backend_field recompress_saved_bytes_total)
sysfs_set $S/recompress "max_pages=4096"
check_cmp "$(backend_field recompress_saved_bytes_total)" -gt "$saved" \
	"bytes saved, $saved after the first write: $TO over lz4hc's objects in the second"
check_eq "$(dd if=$D bs=1M count=16 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(head -c 16777216 /tmp/text.bin | md5sum | cut -d' ' -f1)" "every byte after two writes"
sysfs_set $S/reset 1

step "a page $TO shrinks, but not below the threshold, is not marked"
# Random bytes of 5 bits: lz4 stores them raw, $TO takes about 2,600
# bytes a page.  With threshold=2000 that is a miss, but the page shrank:
# as zram, it is not marked incompressible, and a write without a
# threshold recompresses it.
sysfs_set $S/recomp_algorithm "algo=$TO"
dev_setup 0 16M
five='\000-\037'
pagegen --pages 256 --kind random --seed 93 |
	LC_ALL=C tr '\000-\377' "$five$five$five$five$five$five$five$five" >/tmp/five.bin
dd if=/tmp/five.bin of=$D bs=1M oflag=direct 2>/dev/null || fail "write failed"
ring_settle 0
check_eq "$(stat_field $S/mm_stat huge_pages)" 256 "5-bit random pages stored raw"
sysfs_set $S/recompress "type=huge threshold=2000"
check_eq "$(backend_field recompressed_pages)" 0 "pages recompressed below 2000 bytes"
sysfs_set $S/recompress "type=huge"
check_eq "$(backend_field recompressed_pages)" 256 "pages recompressed by a write without a threshold"
check_eq "$(stat_field $S/mm_stat huge_pages)" 0 "huge pages after it"
check_eq "$(dd if=$D bs=1M count=1 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/five.bin)" "every 5-bit random byte"
sysfs_set $S/reset 1

step "ozramctl recompress: the request, and what the pass saved"
fill
out=$(ozramctl recompress --type idle --bytes ozram0) || fail "ozramctl recompress failed: $out"
check_eq "$out" "ozram0: $(backend_field recompressed_pages) pages recompressed, $(backend_field recompress_saved_bytes_total) bytes saved" \
	"ozramctl's summary against mm_stat"
check_cmp "$(backend_field recompressed_pages)" -gt $((PAGES / 2)) "pages ozramctl recompressed"
check_eq "$(dd if=$D bs=1M count=64 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" "$sum" \
	"every byte after ozramctl recompress"
if out=$(ozramctl recompress --algo lz4hc ozram0 2>&1); then
	fail "ozramctl recompress with an algorithm the device lacks succeeded: $out"
fi
echo "$out" | grep -q "recompress 'algo=lz4hc' refused" || fail "unexpected message: $out"
note "an algorithm the device lacks: $out"
sysfs_set $S/reset 1
dev_setup 0 16M
if out=$(ozramctl recompress ozram0 2>&1); then
	fail "ozramctl recompress without recomp_algorithm succeeded: $out"
fi
echo "$out" | grep -q "no recompression algorithm" || fail "unexpected message: $out"
note "without recomp_algorithm: $out"
# Without a device named, ozramctl passes over such a device and
# recompresses another that has an algorithm.
N=$(cat $CONTROL/hot_add)
sysfs_set "$(sysdir $N)/recomp_algorithm" "algo=zstd"
dev_setup $N 16M
pagegen --pages 1024 --kind text --seed 71 >/tmp/second.bin
dd if=/tmp/second.bin of="$(dev $N)" bs=1M oflag=direct 2>/dev/null || fail "write failed"
ring_settle $N
sysfs_set "$(sysdir $N)/idle" all
out=$(ozramctl recompress --type idle 2>&1) || fail "ozramctl recompress without a device failed: $out"
note "every device: $out"
echo "$out" | grep -q "^$DEV$N: " || fail "no summary for $DEV$N: $out"
echo "$out" | grep -q "^${DEV}0: " && fail "ozramctl recompressed ${DEV}0, which has no algorithm: $out"
check_cmp "$(backend_field recompressed_pages $N)" -gt 0 "pages recompressed on $DEV$N"
check_eq "$(dd if="$(dev $N)" bs=1M count=4 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/second.bin)" "every byte of $DEV$N"

step "ozramctl recompress: a device removed after the list is skipped"
# ozramctl lists $DEV$N and $DEV$M, then recompresses one after the other.
# While it is inside $DEV$N's pass (its write(2) to the recompress file,
# syscall 1), $DEV$M goes; ozramctl then reaches a device that is gone.
M=$(cat $CONTROL/hot_add)
sysfs_set "$(sysdir $M)/recomp_algorithm" "algo=zstd"
dev_setup $M 16M
pagegen --pages 4096 --kind text --seed 72 >/tmp/third.bin
dd if=/tmp/third.bin of="$(dev $N)" bs=1M oflag=direct 2>/dev/null || fail "write failed"
dd if=/tmp/third.bin of="$(dev $M)" bs=1M count=1 oflag=direct 2>/dev/null || fail "write failed"
ring_settle $N
ring_settle $M
sysfs_set "$(sysdir $N)/idle" all
sysfs_set "$(sysdir $M)/idle" all
ozramctl recompress --type idle >/tmp/removed.out 2>&1 &
ctl=$!
# Sleeping in write(2) (syscall 1) on a descriptor that is not stdout or
# stderr: the recompress file.  A task on the CPU shows "running"; one that
# ended is a zombie until the wait below (state Z in /proc/PID/stat).
seen=
i=0
while [ $i -lt 100000 ]; do
	read -r nr fd rest </proc/$ctl/syscall 2>/dev/null || break
	if [ "$nr" = 1 ] && [ "$fd" != 0x1 ] && [ "$fd" != 0x2 ]; then
		seen=1
		break
	fi
	read -r _ _ state rest </proc/$ctl/stat 2>/dev/null || break
	[ "$state" != Z ] || break
	i=$((i + 1))
done
[ -n "$seen" ] || fail "ozramctl's pass on $DEV$N was not seen: $(cat /tmp/removed.out)"
sysfs_set $CONTROL/hot_remove $M
rc=0
wait $ctl || rc=$?
note "$(cat /tmp/removed.out)"
check_eq "$rc" 0 "ozramctl's exit status"
grep -q "^$DEV$N: " /tmp/removed.out || fail "no summary for $DEV$N"
grep -q "$DEV$M" /tmp/removed.out && fail "ozramctl said something of $DEV$M, which was removed"
check_cmp "$(backend_field recompressed_pages $N)" -gt 1024 "pages recompressed on $DEV$N"
check_eq "$(dd if="$(dev $N)" bs=1M iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/third.bin)" "every byte of $DEV$N"
dev_reset $N
sysfs_set $CONTROL/hot_remove $N
