/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram statistics: the numbers of a device and of the offload ring, by
 * index, made from their lists in shared/ (ozram_dev_stats.h,
 * ozram_ring_stats.h), and the live counters a device keeps.  What reads
 * them is in ozram_snapshot.h.
 */
#ifndef OZRAM_STAT_H
#define OZRAM_STAT_H

#include <linux/atomic.h>
#include <linux/types.h>

/* Who produced the compressed object of a slot. */
enum ozram_source {
	OZRAM_SRC_KERNEL,	/* the kernel, with the device's algorithm */
	OZRAM_SRC_AGENT_CPU,
	OZRAM_SRC_AGENT_GPU,
	OZRAM_SRC_NR,
};

/* A device's numbers, one per line of ozram_dev_stats.h. */
enum ozram_stat {
#define OZRAM_DEV_STAT(attr, name, kind, file, help) OZRAM_STAT_##attr,
#include <ozram_dev_stats.h>
#undef OZRAM_DEV_STAT
	OZRAM_NR_STATS,
};

/* The pages stored by each source are three numbers in a row. */
static_assert(OZRAM_STAT_AGENT_CPU_PAGES ==
	      OZRAM_STAT_KERNEL_PAGES + OZRAM_SRC_AGENT_CPU);
static_assert(OZRAM_STAT_AGENT_GPU_PAGES ==
	      OZRAM_STAT_KERNEL_PAGES + OZRAM_SRC_AGENT_GPU);

/* The stored pages of @source. */
static inline enum ozram_stat ozram_stat_source_pages(enum ozram_source source)
{
	return OZRAM_STAT_KERNEL_PAGES + source;
}

/*
 * The live numbers of a device, by enum ozram_stat.  Most are counted
 * where they happen; OZRAM_STAT_MEM_USED, _MEM_LIMIT and _COMPACTED are
 * read from the allocator and the device when a snapshot is taken
 * (ozram_snapshot.c), and their entries here stay 0.
 */
struct ozram_stats {
	atomic64_t v[OZRAM_NR_STATS];
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

#endif /* OZRAM_STAT_H */
