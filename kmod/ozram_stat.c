// SPDX-License-Identifier: GPL-2.0
/*
 * ozram statistics snapshots, shared by sysfs and netlink.
 */
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "ozram_drv.h"
#include "ozram_latency.h"
#include "ozram_ring_api.h"

const char *const ozram_ring_stat_keys[OZRAM_RING_NR_STATS] = {
#define OZRAM_RING_STAT(attr, name, kind, help) "ring_" #name,
#include <ozram_ring_stats.h>
#undef OZRAM_RING_STAT
};

/* Raises the high-water mark of zsmalloc pages to @pages if it is higher. */
void ozram_stats_update_used_max(struct ozram_stats *stats,
				 unsigned long pages)
{
	unsigned long cur = atomic_long_read(&stats->max_used_pages);

	while (pages > cur) {
		unsigned long old = atomic_long_cmpxchg(&stats->max_used_pages,
							cur, pages);
		if (old == cur)
			break;
		cur = old;
	}
}

static u64 read_stat(atomic64_t *v)
{
	return atomic64_read(v);
}

/* Takes init_lock for reading, so the device cannot be reset meanwhile. */
void ozram_snapshot(struct ozram *oz, struct ozram_snapshot *snap)
{
	struct ozram_stats *st = &oz->stats;
	struct zs_pool_stats pool_stats = {};
	int src;

	memset(snap, 0, sizeof(*snap));

	down_read(&oz->init_lock);
	snap->disksize = oz->disksize;
	snap->initstate = ozram_init_done(oz);
	if (snap->initstate) {
		snap->mem_used_total =
			(u64)zs_get_total_pages(oz->mem_pool) << PAGE_SHIFT;
		zs_pool_stats(oz->mem_pool, &pool_stats);
	}
	snap->orig_data_size = read_stat(&st->pages_stored) << PAGE_SHIFT;
	snap->compr_data_size = read_stat(&st->compr_data_size);
	snap->mem_limit = (u64)oz->limit_pages << PAGE_SHIFT;
	snap->mem_used_max =
		(u64)atomic_long_read(&st->max_used_pages) << PAGE_SHIFT;
	snap->same_pages = read_stat(&st->same_pages);
	snap->pages_compacted = atomic_long_read(&pool_stats.pages_compacted);
	snap->huge_pages = read_stat(&st->huge_pages);
	snap->huge_pages_since = read_stat(&st->huge_pages_since);
	snap->failed_reads = read_stat(&st->failed_reads);
	snap->failed_writes = read_stat(&st->failed_writes);
	snap->invalid_io = read_stat(&st->invalid_io);
	snap->notify_free = read_stat(&st->notify_free);
	snap->writestall = read_stat(&st->writestall);
	snap->miss_free = read_stat(&st->miss_free);
	for (src = 0; src < OZRAM_SRC_NR; src++)
		snap->source_pages[src] = read_stat(&st->source_pages[src]);
	snap->staged_pages = read_stat(&st->staged_pages);
	snap->parked_pages = read_stat(&st->parked_pages);
	snap->parked_total = read_stat(&st->parked_total);
	snap->recompressed_pages = read_stat(&st->recompressed_pages);
	snap->recompress_saved = read_stat(&st->recompress_saved);
	snap->bd_count = read_stat(&st->bd_count);
	snap->bd_reads = read_stat(&st->bd_reads);
	snap->bd_writes = read_stat(&st->bd_writes);
	snap->bd_write_failed = read_stat(&st->bd_write_failed);
	ozram_ring_snapshot(snap);
	up_read(&oz->init_lock);
}

/* Adds @snap into @sum, field by field, for totals over devices. */
void ozram_snapshot_add(struct ozram_snapshot *sum,
			const struct ozram_snapshot *snap)
{
	int src;

	sum->disksize += snap->disksize;
	sum->initstate |= snap->initstate;
	sum->orig_data_size += snap->orig_data_size;
	sum->compr_data_size += snap->compr_data_size;
	sum->mem_used_total += snap->mem_used_total;
	sum->mem_limit += snap->mem_limit;
	sum->mem_used_max += snap->mem_used_max;
	sum->same_pages += snap->same_pages;
	sum->pages_compacted += snap->pages_compacted;
	sum->huge_pages += snap->huge_pages;
	sum->huge_pages_since += snap->huge_pages_since;
	sum->failed_reads += snap->failed_reads;
	sum->failed_writes += snap->failed_writes;
	sum->invalid_io += snap->invalid_io;
	sum->notify_free += snap->notify_free;
	sum->writestall += snap->writestall;
	sum->miss_free += snap->miss_free;
	for (src = 0; src < OZRAM_SRC_NR; src++)
		sum->source_pages[src] += snap->source_pages[src];
	sum->staged_pages += snap->staged_pages;
	sum->parked_pages += snap->parked_pages;
	sum->parked_total += snap->parked_total;
	sum->recompressed_pages += snap->recompressed_pages;
	sum->recompress_saved += snap->recompress_saved;
	sum->bd_count += snap->bd_count;
	sum->bd_reads += snap->bd_reads;
	sum->bd_writes += snap->bd_writes;
	sum->bd_write_failed += snap->bd_write_failed;
	/* The ring is shared by every device: not summed. */
	sum->agent_attached = snap->agent_attached;
	sum->agent_pid = snap->agent_pid;
	memcpy(sum->ring, snap->ring, sizeof(sum->ring));
}

/*
 * Clears the counters of events and restarts the high-water mark from the
 * current usage.  Counters that describe the data stored stay as they are.
 */
void ozram_stats_reset_events(struct ozram *oz)
{
	struct ozram_stats *st = &oz->stats;

	down_read(&oz->init_lock);
	atomic64_set(&st->huge_pages_since, 0);
	atomic64_set(&st->num_reads, 0);
	atomic64_set(&st->num_writes, 0);
	atomic64_set(&st->failed_reads, 0);
	atomic64_set(&st->failed_writes, 0);
	atomic64_set(&st->invalid_io, 0);
	atomic64_set(&st->notify_free, 0);
	atomic64_set(&st->writestall, 0);
	atomic64_set(&st->miss_free, 0);
	ozram_latency_reset(oz);
	atomic_long_set(&st->max_used_pages,
			ozram_init_done(oz) ?
			zs_get_total_pages(oz->mem_pool) : 0);
	up_read(&oz->init_lock);
}
