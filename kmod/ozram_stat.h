/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram statistics: the live counters of a device and the snapshot that
 * sysfs and netlink both print, so the two always agree.
 */
#ifndef OZRAM_STAT_H
#define OZRAM_STAT_H

#include <linux/atomic.h>
#include <linux/types.h>

struct ozram;

/* Who produced the compressed object of a slot. */
enum ozram_source {
	OZRAM_SRC_KERNEL,	/* the kernel, with the device's algorithm */
	OZRAM_SRC_AGENT_CPU,
	OZRAM_SRC_AGENT_GPU,
	OZRAM_SRC_NR,
};

struct ozram_stats {
	atomic64_t compr_data_size;	/* bytes of stored objects */
	atomic64_t pages_stored;	/* pages holding data */
	atomic64_t same_pages;		/* pages stored as a repeated word */
	atomic64_t huge_pages;		/* pages stored raw */
	atomic64_t huge_pages_since;	/* raw stores since initialisation */
	atomic64_t staged_pages;	/* pages waiting in the offload ring */
	atomic64_t parked_pages;	/* pages held raw for the agent */
	atomic64_t parked_total;	/* pages parked since initialisation */
	/* pages stored by a recompression algorithm */
	atomic64_t recompressed_pages;
	/* bytes recompression saved since initialisation */
	atomic64_t recompress_saved;
	/* compressed pages stored, by the path that compressed them */
	atomic64_t source_pages[OZRAM_SRC_NR];
	atomic64_t num_reads;
	atomic64_t num_writes;
	atomic64_t failed_reads;
	atomic64_t failed_writes;
	atomic64_t invalid_io;		/* misaligned or out of range */
	atomic64_t notify_free;		/* swap slot frees and discards */
	atomic64_t writestall;		/* writes that had to sleep to allocate */
	atomic64_t miss_free;		/* slot frees skipped on a busy slot */
	atomic_long_t max_used_pages;	/* zsmalloc high-water mark */
	atomic64_t bd_count;		/* blocks held on the backing device */
	atomic64_t bd_reads;		/* pages read from the backing device */
	atomic64_t bd_writes;		/* pages written to the backing device */
	/* pages whose write to the backing device failed (kept in memory) */
	atomic64_t bd_write_failed;
};

/*
 * The numbers of the offload ring (shared/ozram_ring_stats.h), by index.
 * One ring serves every device, so every device's snapshot carries the
 * same ring numbers, and a total over devices carries them once.
 */
enum ozram_ring_stat {
#define OZRAM_RING_STAT(attr, name, kind, help) OZRAM_RING_STAT_##attr,
#include <ozram_ring_stats.h>
#undef OZRAM_RING_STAT
	OZRAM_RING_NR_STATS,
};

/*
 * backend_stat only ever grows at its end: the ring numbers from this one
 * on were added after recompression's two lines and are printed after them.
 */
#define OZRAM_RING_STATS_AFTER_RECOMPRESS	OZRAM_RING_STAT_ADMISSION_INLINE

/* "ring_<name>": the keys of backend_stat, by index. */
extern const char *const ozram_ring_stat_keys[OZRAM_RING_NR_STATS];

/* A consistent copy of one device's numbers, in the units of the ABI. */
struct ozram_snapshot {
	u64 disksize;
	bool initstate;
	/* mm_stat */
	u64 orig_data_size;
	u64 compr_data_size;
	u64 mem_used_total;
	u64 mem_limit;
	u64 mem_used_max;
	u64 same_pages;
	u64 pages_compacted;
	u64 huge_pages;
	u64 huge_pages_since;
	/* io_stat */
	u64 failed_reads;
	u64 failed_writes;
	u64 invalid_io;
	u64 notify_free;
	/* debug_stat */
	u64 writestall;
	u64 miss_free;
	/* backend_stat */
	u64 source_pages[OZRAM_SRC_NR];
	u64 staged_pages;
	u64 parked_pages;
	u64 parked_total;
	u64 recompressed_pages;
	u64 recompress_saved;
	bool agent_attached;
	u32 agent_pid;
	u64 ring[OZRAM_RING_NR_STATS];
	/* bd_stat, in pages, and failed backing-device writes */
	u64 bd_count;
	u64 bd_reads;
	u64 bd_writes;
	u64 bd_write_failed;
};

void ozram_stats_update_used_max(struct ozram_stats *stats,
				 unsigned long pages);
void ozram_snapshot(struct ozram *oz, struct ozram_snapshot *snap);
void ozram_snapshot_add(struct ozram_snapshot *sum,
			const struct ozram_snapshot *snap);
void ozram_stats_reset_events(struct ozram *oz);

#endif /* OZRAM_STAT_H */
