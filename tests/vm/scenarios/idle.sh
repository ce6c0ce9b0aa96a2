# vm: --mem 256
# Idle marking by age, as zram with CONFIG_ZRAM_MEMORY_TRACKING does it:
# writing N to idle marks the pages not accessed for N seconds, "all" marks
# every stored page, and an access clears the mark.  debugfs block_state
# shows each stored page with its last access and flags.  Runs unchanged on
# stock zram (DEV=zram).

S=$(sysdir 0)
D=$(dev 0)
STATE=/sys/kernel/debug/$DEV/${DEV}0/block_state

# idle_in FIRST LAST: pages of [FIRST, LAST] marked idle in block_state.
idle_in() {
	awk -v a="$1" -v b="$2" '$1 >= a && $1 <= b && $3 ~ /i$/ { n++ } END { print n + 0 }' $STATE
}

dev_setup 0 16M
pagegen --pages 16 --kind text --seed 71 >/tmp/old.bin
pagegen --pages 16 --kind text --seed 72 >/tmp/new.bin
dd if=/tmp/old.bin of=$D bs=4096 oflag=direct 2>/dev/null || fail "write failed"
sleep 3
dd if=/tmp/new.bin of=$D bs=4096 seek=64 oflag=direct 2>/dev/null || fail "write failed"

step "block_state lists every stored page"
[ -r $STATE ] || fail "no $STATE"
check_eq "$(wc -l <$STATE)" 32 "pages in block_state"
check_eq "$(idle_in 0 4095)" 0 "idle pages before any marking"

step "an age marks only the pages not accessed for that long"
expect_errno OK sysfs-write $S/idle 2
check_eq "$(idle_in 0 15)" 16 "idle among the pages written 3 s ago"
check_eq "$(idle_in 64 79)" 0 "idle among the pages just written"
expect_errno OK sysfs-write $S/idle 3600
check_eq "$(idle_in 64 79)" 0 "idle among the new pages after an age of an hour"

step "an access clears the mark; all marks every page"
dd if=$D of=/dev/null bs=4096 count=1 skip=3 iflag=direct 2>/dev/null
check_eq "$(idle_in 3 3)" 0 "a page read since"
check_eq "$(idle_in 0 15)" 15 "the pages of the old batch not read since"
expect_errno OK sysfs-write $S/idle all
check_eq "$(idle_in 0 4095)" 32 "idle pages after all"
dd if=/tmp/old.bin of=$D bs=4096 count=1 seek=5 oflag=direct 2>/dev/null
check_eq "$(idle_in 5 5)" 0 "a page written since"

step "bad ages are refused"
expect_errno EINVAL sysfs-write $S/idle -1
expect_errno EINVAL sysfs-write $S/idle 2s
expect_errno EINVAL sysfs-write $S/idle ""
dev_reset 0
