# vm: --mem 384
# LTP's zram03 pattern: 512 MiB written through a shared mapping, every byte
# 'a' but the last, then read back.  131071 pages are same-filled and cost no
# memory; the last one is a 26-byte LZ4 object, and zsmalloc's class for it
# takes a zspage of 3 pages, so mem_used_total is 12288 for ozram and for
# stock zram with lz4 alike (zram with lzo-rle stores 46 bytes in a class of
# 1-page zspages: 4096).  Run with DEV=zram to see zram's numbers.

S=$(sysdir 0)
D=$(dev 0)

dev_setup 0 512M
mmap-fill $D 536870912 a
note "mm_stat: $(cat $S/mm_stat)"
check_eq "$(stat_field $S/mm_stat orig_data_size)" 536870912 "orig_data_size"
check_eq "$(stat_field $S/mm_stat same_pages)" 131071 "same_pages"
check_eq "$(stat_field $S/mm_stat compr_data_size)" 26 "compr_data_size: the last page in LZ4"
check_eq "$(stat_field $S/mm_stat mem_used_total)" 12288 "mem_used_total: one zspage of 3 pages"
check_eq "$(fill-check $D 536870912 a)" OK "every byte reads back from the device: 'a', the last NUL"
dev_reset 0
