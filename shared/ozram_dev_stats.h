/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The numbers of a device, one per line:
 *
 *   OZRAM_DEV_STAT(ATTR, name, kind, file, help)
 *
 * ATTR names the netlink attribute OZRAM_STAT_ATTR_<ATTR> (ozram_genl.h,
 * nested in OZRAM_ATTR_STATS) and the module's OZRAM_STAT_<ATTR>.  "name"
 * is the number's one name everywhere: the key of backend_stat, ozramctl's
 * label and JSON key, and the Prometheus metric ozram_<name>.  Names follow
 * Prometheus's rules: the unit in the name (_bytes, _pages); _total at the
 * end of a counter and of nothing else; and a counter's name less its
 * _total is no other number's (OpenMetrics names the counter's family so:
 * pages_parked_total beside parked_pages).  kind is counter (events since
 * the device was initialised, or since reset-stats) or gauge (a value of
 * the present).  file is the sysfs file that prints it: zram's mm_stat,
 * io_stat, debug_stat and bd_stat print their lines' values in the order
 * of this list, as zram does (bd_stat in 4 KiB units); ozram's own
 * backend_stat prints "name: value".  help says what it is.
 *
 * Every list of these numbers, in the module and in the tools, is made
 * from this file: define OZRAM_DEV_STAT, then include it.  Adding a number
 * is a line here (at the end: a line's position gives its attribute
 * number) and the code that counts it.
 */
OZRAM_DEV_STAT(ORIG_DATA, orig_data_bytes, gauge, mm_stat,
	       "Uncompressed size of the data stored.")
OZRAM_DEV_STAT(COMPR_DATA, compr_data_bytes, gauge, mm_stat,
	       "Compressed size of the data stored.")
OZRAM_DEV_STAT(MEM_USED, mem_used_bytes, gauge, mm_stat,
	       "Memory the device uses, allocator overhead included.")
OZRAM_DEV_STAT(MEM_LIMIT, mem_limit_bytes, gauge, mm_stat,
	       "Most memory the device may use, 0 for no limit.")
OZRAM_DEV_STAT(MEM_USED_MAX, mem_used_max_bytes, gauge, mm_stat,
	       "High-water mark of the memory used, since the last reset.")
OZRAM_DEV_STAT(SAME_PAGES, same_pages, gauge, mm_stat,
	       "Pages stored as one repeated word, without memory.")
OZRAM_DEV_STAT(COMPACTED, compacted_pages_total, counter, mm_stat,
	       "Memory pages that compaction freed.")
OZRAM_DEV_STAT(HUGE_PAGES, huge_pages, gauge, mm_stat,
	       "Pages stored uncompressed because they do not compress.")
OZRAM_DEV_STAT(HUGE_STORED, huge_pages_stored_total, counter, mm_stat,
	       "Pages stored uncompressed.")
OZRAM_DEV_STAT(FAILED_READS, failed_reads_total, counter, io_stat,
	       "Reads that failed.")
OZRAM_DEV_STAT(FAILED_WRITES, failed_writes_total, counter, io_stat,
	       "Writes that failed.")
OZRAM_DEV_STAT(INVALID_IO, invalid_io_total, counter, io_stat,
	       "Requests refused as misaligned or out of range.")
OZRAM_DEV_STAT(NOTIFY_FREE, notify_free_total, counter, io_stat,
	       "Pages freed by swap slot frees and discards.")
OZRAM_DEV_STAT(WRITESTALL, writestall_total, counter, debug_stat,
	       "Writes that had to sleep to allocate memory.")
OZRAM_DEV_STAT(MISS_FREE, miss_free_total, counter, debug_stat,
	       "Swap slot frees skipped because the slot was busy.")
OZRAM_DEV_STAT(BD_PAGES, bd_pages, gauge, bd_stat,
	       "Blocks of a page held on the backing device.")
OZRAM_DEV_STAT(BD_READS, bd_read_pages_total, counter, bd_stat,
	       "Pages read from the backing device.")
OZRAM_DEV_STAT(BD_WRITES, bd_written_pages_total, counter, bd_stat,
	       "Pages written to the backing device.")
OZRAM_DEV_STAT(KERNEL_PAGES, kernel_pages, gauge, backend_stat,
	       "Pages stored compressed by the kernel.")
OZRAM_DEV_STAT(AGENT_CPU_PAGES, agent_cpu_pages, gauge, backend_stat,
	       "Pages stored compressed by the agent on a CPU.")
OZRAM_DEV_STAT(AGENT_GPU_PAGES, agent_gpu_pages, gauge, backend_stat,
	       "Pages stored compressed by the agent on a GPU.")
OZRAM_DEV_STAT(STAGED_PAGES, staged_pages, gauge, backend_stat,
	       "Pages waiting in the offload ring for the agent.")
OZRAM_DEV_STAT(PARKED_PAGES, parked_pages, gauge, backend_stat,
	       "Pages held uncompressed until the agent takes them.")
OZRAM_DEV_STAT(PARKED, pages_parked_total, counter, backend_stat,
	       "Pages parked while the agent could not take them.")
OZRAM_DEV_STAT(RECOMPRESSED_PAGES, recompressed_pages, gauge, backend_stat,
	       "Pages stored with a recompression algorithm.")
OZRAM_DEV_STAT(RECOMPRESS_SAVED, recompress_saved_bytes_total, counter,
	       backend_stat, "Memory that recompression saved.")
OZRAM_DEV_STAT(BD_WRITE_FAILED, bd_write_failed_pages_total, counter,
	       backend_stat,
	       "Pages whose write to the backing device failed (kept in memory).")
OZRAM_DEV_STAT(MEM_LIMIT_REFUSED, mem_limit_refusals_total, counter,
	       backend_stat,
	       "Objects not stored because they would have passed mem_limit.")
