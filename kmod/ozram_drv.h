/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram: compressed RAM block device whose page compression can be
 * offloaded to a userspace agent.  This header is the device itself, its
 * state and its numbers, for every layer of the module; what manages the
 * devices is declared in ozram_devices.h.  See Documentation/kmod.md.
 */
#ifndef OZRAM_DRV_H
#define OZRAM_DRV_H

#include <linux/atomic.h>
#include <linux/blkdev.h>
#include <linux/kfifo.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/zsmalloc.h>

#include "ozram_comp.h"
#include "ozram_stat.h"

#define OZRAM_MAX_DEVICES	256
/* The primary algorithm and up to three recompression algorithms. */
#define OZRAM_MAX_COMPS		4
#define OZRAM_PRIMARY_COMP	0
#define OZRAM_DEFAULT_COMP	"lz4"
#define OZRAM_SECTORS_PER_PAGE_SHIFT	(PAGE_SHIFT - SECTOR_SHIFT)
#define OZRAM_SECTORS_PER_PAGE	BIT(OZRAM_SECTORS_PER_PAGE_SHIFT)
#define OZRAM_LOGICAL_BLOCK_SHIFT	12
#define OZRAM_LOGICAL_BLOCK_SIZE	BIT(OZRAM_LOGICAL_BLOCK_SHIFT)
#define OZRAM_SECTORS_PER_LOGICAL_BLOCK \
	(1 << (OZRAM_LOGICAL_BLOCK_SHIFT - SECTOR_SHIFT))

struct ozram_latency;
struct ozram_slot;

struct ozram {
	struct ozram_slot *table;
	struct zs_pool *mem_pool;
	struct gendisk *disk;
	int id;
	/* Serialises initialisation and reset against I/O and stat readers. */
	struct rw_semaphore init_lock;
	/* 0 while uninitialised: the disk then has no capacity. */
	u64 disksize;
	/* Most zsmalloc pages this device may use, 0 for no limit. */
	unsigned long limit_pages;
	struct ozram_stats stats;
	/* Latency histograms, per CPU (ozram_latency.c). */
	struct ozram_latency __percpu *latency;
	/*
	 * The algorithms by priority, set before initialisation; an empty
	 * name is no algorithm.  The streams exist while initialised.
	 */
	char comp_names[OZRAM_MAX_COMPS][OZRAM_COMP_NAME_MAX];
	struct ozram_comp *comps[OZRAM_MAX_COMPS];
	/*
	 * Each one's level (algorithm_params), OZRAM_COMP_NO_LEVEL for its
	 * default: under init_lock, taken by the streams as they are made.
	 */
	s32 comp_levels[OZRAM_MAX_COMPS];
	/* Each one's enum ozram_ring_algorithm, -1 for none an agent does. */
	int ring_algs[OZRAM_MAX_COMPS];
	/* And the level an agent compresses it at, 0 for the default. */
	s32 ring_levels[OZRAM_MAX_COMPS];
	/* Protected by disk->open_mutex: set while reset or removal runs. */
	bool claim;
	/*
	 * Writeback (ozram_io_wb.c).  The backing device is set and released
	 * under init_lock held for writing, only while uninitialised, and by
	 * reset; it stays while the device is initialised.  bd_bitmap has a
	 * bit per block of bd_nr_pages; block 0 is never used, so that a
	 * block number is never 0.  bd_refs counts, for a block of packed
	 * objects, the objects that touch it and the pass that holds it
	 * while its write is in flight: a byte per block, in chunks of
	 * OZRAM_WB_REFS_CHUNK blocks that a pass allocates when it first
	 * holds a block of theirs (ozram_io_wb_refs.c).
	 */
	struct file *backing_file;
	struct block_device *bdev;
	unsigned long *bd_bitmap;
	u8 **bd_refs;
	spinlock_t bd_refs_lock;	/* protects the counts in bd_refs */
	unsigned long bd_nr_pages;
	/* Where the next block search starts, so that runs stay contiguous. */
	unsigned long bd_hint;
	/* One writeback pass at a time. */
	struct mutex wb_mutex;
	/*
	 * One recompression pass at a time: a result is checked against the
	 * slot's RECOMPRESSING mark, which does not say which pass set it, so
	 * a second pass could mark a page that a write replaced after the
	 * first pass picked it, and the first pass's result would then land
	 * on the new content.
	 */
	struct mutex recomp_mutex;
	/*
	 * compressed_writeback: whether a pass packs compressed objects
	 * into blocks rather than writing each page to its own block.
	 * Read by a pass as it starts.
	 */
	bool wb_compressed;
	/*
	 * Protects wb_limit_enable, bd_wb_limit (in 4 KiB units) and
	 * wb_limit_writes, the count of the user's writes of either: a pass
	 * gives back only budget it took after the last of them.
	 */
	spinlock_t wb_limit_lock;
	bool wb_limit_enable;
	u64 bd_wb_limit;
	u64 wb_limit_writes;
	/*
	 * Parked pages (ozram_io_park.c): the slots written raw while the
	 * agent could not take them, in the order written.  Writers add
	 * under park_lock; park_work alone takes them off.  The queue
	 * exists while the device is initialised, and may hold slots that
	 * were rewritten since.
	 */
	DECLARE_KFIFO_PTR(park_fifo, u32);
	spinlock_t park_lock;		/* serialises adding to park_fifo */
	struct delayed_work park_work;
	/*
	 * Each parked page is held in a page of its own.  park_pool (under
	 * park_lock) keeps the pages that staging freed for the next writers
	 * to park into, up to a batch of them: a page used again is not
	 * zeroed and freed by the page allocator once per parked page.
	 * park_held counts every such page, those in the pool included.
	 * park_pool_work frees the pool once a second has passed with no page
	 * parked; park_pool_parked is the count of pages parked it last saw.
	 */
	struct list_head park_pool;
	unsigned int park_pool_nr;
	atomic_long_t park_held;
	struct delayed_work park_pool_work;
	u64 park_pool_parked;
};

/*
 * The memory the device holds, in pages, as mem_used_total reports it and
 * mem_limit bounds it: zsmalloc's pool and the pages that hold parked
 * pages.
 */
static inline unsigned long ozram_mem_used_pages(struct ozram *oz)
{
	return zs_get_total_pages(oz->mem_pool) +
	       atomic_long_read(&oz->park_held);
}

static inline bool ozram_init_done(struct ozram *oz)
{
	return oz->disksize != 0;
}

/* A number of the device (enum ozram_stat), counted where it happens. */
static inline void ozram_stat_add(struct ozram *oz, enum ozram_stat stat,
				  s64 n)
{
	atomic64_add(n, &oz->stats.v[stat]);
}

static inline void ozram_stat_sub(struct ozram *oz, enum ozram_stat stat,
				  s64 n)
{
	atomic64_sub(n, &oz->stats.v[stat]);
}

static inline void ozram_stat_inc(struct ozram *oz, enum ozram_stat stat)
{
	atomic64_inc(&oz->stats.v[stat]);
}

static inline void ozram_stat_dec(struct ozram *oz, enum ozram_stat stat)
{
	atomic64_dec(&oz->stats.v[stat]);
}

static inline void ozram_stat_set(struct ozram *oz, enum ozram_stat stat,
				  u64 value)
{
	atomic64_set(&oz->stats.v[stat], value);
}

static inline u64 ozram_stat_read(struct ozram *oz, enum ozram_stat stat)
{
	return atomic64_read(&oz->stats.v[stat]);
}

/* Raises @stat to @value if that is higher: a high-water mark. */
static inline void ozram_stat_raise(struct ozram *oz, enum ozram_stat stat,
				    u64 value)
{
	s64 cur = atomic64_read(&oz->stats.v[stat]);

	while ((u64)cur < value &&
	       !atomic64_try_cmpxchg(&oz->stats.v[stat], &cur, value))
		;
}

/*
 * compat=1: disks are zramN and the control class zram-control, so that
 * zramctl and zram-generator work unchanged.  ozram_name is "zram" or
 * "ozram".
 */
extern bool ozram_compat;
extern const char *ozram_name;

/*
 * Pages that compress to this size or more are stored raw: zsmalloc's huge
 * class size, found at module load.
 */
extern size_t ozram_huge_class_size;

#endif /* OZRAM_DRV_H */
