# vm: --mem 256
# vm-agent: no the agent plays no part in what ozramctl writes to sysfs
# ozramctl writeback against zram's writeback ABI, the one the module
# follows: a missing backing device and an uninitialized device said in
# words, huge and idle pages written back with bd_stat before and after,
# --limit in 4 KiB units stopping the writeback with zram's EIO, a type the
# kernel does not know refused, --compressed setting ozram's
# compressed_writeback (and said to be missing on zram), and every byte read
# back afterwards.
# The backing device is a second zram device.  Where the module under test
# has no writeback file yet, the checks run against stock zram (Debian's
# 6.1, CONFIG_ZRAM_WRITEBACK=y): a tmpfs over /sys/block links ozram0 to
# zram's device, so that ozramctl, which writes sysfs alone here, drives it.

command -v ozramctl >/dev/null ||
	fail "ozramctl is not in the image: build it (make userspace) before tests/vm/run"

[ -d /sys/class/zram-control ] || modprobe zram || fail "cannot load zram"
B=$(cat /sys/class/zram-control/hot_add)
sysfs_set /sys/block/zram$B/disksize 64M
if [ "$DEV" = ozram ] && [ -e "$(sysdir 0)/writeback" ]; then
	note "the module under test has writeback: checking ozram0 itself"
	S=/sys/block/ozram0
	T=/dev/ozram0
	overlay=0
else
	Z=$(cat /sys/class/zram-control/hot_add)
	note "no writeback in the module under test: checking stock zram$Z as ozram0"
	S=/sys/devices/virtual/block/zram$Z
	T=/dev/zram$Z
	[ -d $S ] || fail "no $S"
	mount -t tmpfs none /sys/block || fail "cannot mount a tmpfs over /sys/block"
	ln -s $S /sys/block/ozram0
	overlay=1
fi

# run_ctl OUT ARGS...: ozramctl ARGS with stdout and stderr in OUT.out and
# OUT.err; prints the exit status.
run_ctl() {
	out=$1
	shift
	set +e
	ozramctl "$@" >/tmp/$out.out 2>/tmp/$out.err
	echo $?
	set -e
	cat /tmp/$out.out /tmp/$out.err >&2
}
bd() { awk -v i=$1 '{ print $i }' $S/bd_stat; }

step "no backing device: said before anything is written"
check_eq "$(cat $S/backing_dev)" none "backing_dev"
check_eq "$(run_ctl nobd writeback --type idle --limit 1M 0)" 1 "exit status"
check_eq "$(cat /tmp/nobd.err)" \
	"ozramctl: ozram0: no backing device (write a block device to backing_dev before disksize)" \
	"message"
check_eq "$(cat $S/writeback_limit_enable)" 0 "writeback_limit_enable untouched"

step "a backing device, the device not initialized: zram's EINVAL in words"
sysfs_set $S/backing_dev /dev/zram$B
check_eq "$(run_ctl noinit writeback --type idle 0)" 1 "exit status"
check_eq "$(cat /tmp/noinit.err)" \
	"ozramctl: ozram0: writeback 'idle' refused: the device is not initialized, or the module does not know this type (incompressible needs zram 6.2's ABI)" \
	"message"

step "huge pages written back: the count is bd_stat's, every byte reads back"
[ $overlay = 1 ] && sysfs_set $S/comp_algorithm lz4
sysfs_set $S/disksize 32M
pagegen --pages 256 --kind random --seed 5 >/tmp/random.bin
pagegen --pages 512 --kind text --seed 6 >/tmp/text.bin
cat /tmp/random.bin /tmp/text.bin >/tmp/all.bin
dd if=/tmp/all.bin of=$T bs=1M oflag=direct 2>/dev/null || fail "write failed"
huge=$(awk '{ print $8 }' $S/mm_stat)
check_cmp "$huge" -ge 256 "huge pages stored (the random ones)"
check_eq "$(run_ctl huge writeback --type huge 0)" 0 "exit status"
check_eq "$(head -n 1 /tmp/huge.out | cut -d'(' -f1)" "ozram0: $huge pages of 4 KiB written back " \
	"first line"
check_eq "$(bd 1) $(bd 3)" "$huge $huge" "bd_count and bd_writes"
check_eq "$(sed -n 4p /tmp/huge.out | awk '{ print $2, $4 }')" "$huge $huge" \
	"the 'after' row is bd_stat's"
check_eq "$(dd if=$T bs=1M count=3 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/all.bin)" "every byte after writeback"
check_cmp "$(bd 2)" -ge 256 "pages read back from the backing device (bd_reads)"

step "--limit 16K: four pages, then zram's EIO, said as the budget used up"
sysfs_set $S/idle all
before=$(bd 3)
check_eq "$(run_ctl limit writeback --type idle --limit 16K 0)" 1 "exit status"
check_eq "$(cat $S/writeback_limit_enable)" 1 "writeback_limit_enable"
check_eq "$(cat $S/writeback_limit)" 0 "writeback_limit left"
check_eq "$(($(bd 3) - before))" 4 "pages written (bd_writes)"
check_eq "$(head -n 1 /tmp/limit.out)" "ozram0: 4 pages of 4 KiB written back (16K)" "first line"
check_eq "$(tail -n 1 /tmp/limit.out)" "    writeback_limit: 0 pages of 4 KiB left" "last line"
check_eq "$(cat /tmp/limit.err)" \
	"ozramctl: ozram0: writeback 'idle' stopped: writeback_limit is used up (raise it with --limit, or write 0 to writeback_limit_enable)" \
	"message"

step "incompressible: zram 6.2's type; a 6.1 ABI refuses it with EINVAL"
rc=$(run_ctl incomp writeback --type incompressible 0)
if [ "$rc" = 0 ]; then
	note "this kernel knows incompressible"
else
	check_eq "$rc" 1 "exit status"
	check_eq "$(cat /tmp/incomp.err)" \
		"ozramctl: ozram0: writeback 'incompressible' refused: the device is not initialized, or the module does not know this type (incompressible needs zram 6.2's ABI)" \
		"message"
fi

step "--compressed: the module's compressed_writeback set first; said where there is none"
if [ -e $S/compressed_writeback ]; then
	check_eq "$(run_ctl cwno writeback --type huge --limit 1G --compressed no 0)" 0 "exit status"
	check_eq "$(cat $S/compressed_writeback)" 0 "compressed_writeback after --compressed no"
	check_eq "$(run_ctl cwyes writeback --type huge --limit 1G --compressed yes 0)" 0 "exit status"
	check_eq "$(cat $S/compressed_writeback)" 1 "compressed_writeback after --compressed yes"
else
	before=$(bd 3)
	check_eq "$(run_ctl cwyes writeback --type idle --compressed yes 0)" 1 "exit status"
	check_eq "$(cat /tmp/cwyes.err)" \
		"ozramctl: ozram0: no compressed_writeback (zram 6.1 writes each page to a block of its own)" \
		"message"
	check_eq "$(bd 3)" "$before" "nothing written back"
fi

step "without DEV: every initialized device with a backing device; the rest of the idle pages"
check_eq "$(run_ctl all writeback --type idle --limit 1G)" 0 "exit status"
if [ "$(cat $S/compressed_writeback 2>/dev/null)" = 1 ]; then
	# ozram packs the compressed text pages; the random ones take a block each.
	check_eq "$(bd 3)" 768 "every page is on the backing device (bd_writes)"
	check_cmp "$(bd 1)" -lt 768 "the text pages share blocks (bd_count)"
else
	# zram, and ozram with compressed_writeback=0: a block per page.
	check_eq "$(bd 1)" 768 "every page is on the backing device (bd_count: a block each)"
fi
check_eq "$(head -n 1 /tmp/all.out | cut -d' ' -f1)" "ozram0:" "the device named"
check_eq "$(dd if=$T bs=1M count=3 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)" \
	"$(md5 /tmp/all.bin)" "every byte after the second writeback"

step "reset"
sysfs_set $S/reset 1
check_eq "$(cat $S/backing_dev)" none "backing_dev released"
if [ $overlay = 1 ]; then
	umount /sys/block || fail "cannot unmount the tmpfs over /sys/block"
fi
sysfs_set /sys/block/zram$B/reset 1
