// SPDX-License-Identifier: GPL-2.0
/*
 * ozram statistics snapshots, shared by sysfs and netlink, and the sysfs
 * files of a device's numbers.  Every list here is made from the lists in
 * shared/ (ozram_dev_stats.h, ozram_ring_stats.h).
 */
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/sysfs.h>
#include <linux/zsmalloc.h>

#include "ozram_drv.h"
#include "ozram_latency.h"
#include "ozram_snapshot.h"

const char *const ozram_stat_names[OZRAM_NR_STATS] = {
#define OZRAM_DEV_STAT(attr, name, kind, file, help) __stringify(name),
#include <ozram_dev_stats.h>
#undef OZRAM_DEV_STAT
};

const char *const ozram_ring_stat_names[OZRAM_RING_NR_STATS] = {
#define OZRAM_RING_STAT(attr, name, kind, help) __stringify(name),
#include <ozram_ring_stats.h>
#undef OZRAM_RING_STAT
};

static const u8 ozram_stat_files[OZRAM_NR_STATS] = {
#define OZRAM_DEV_STAT(attr, name, kind, file, help) OZRAM_FILE_##file,
#include <ozram_dev_stats.h>
#undef OZRAM_DEV_STAT
};

#define ozram_stat_counter	true
#define ozram_stat_gauge	false
static const bool ozram_stat_is_counter[OZRAM_NR_STATS] = {
#define OZRAM_DEV_STAT(attr, name, kind, file, help) ozram_stat_##kind,
#include <ozram_dev_stats.h>
#undef OZRAM_DEV_STAT
};

void ozram_snapshot(struct ozram *oz, struct ozram_snapshot *snap)
{
	struct zs_pool_stats pool_stats = {};
	int i;

	memset(snap, 0, sizeof(*snap));

	down_read(&oz->init_lock);
	snap->disksize = oz->disksize;
	snap->initstate = ozram_init_done(oz);
	for (i = 0; i < OZRAM_NR_STATS; i++)
		snap->stats[i] = atomic64_read(&oz->stats.v[i]);
	/* What the allocator and the device know rather than count. */
	if (snap->initstate) {
		snap->stats[OZRAM_STAT_MEM_USED] =
			(u64)ozram_mem_used_pages(oz) << PAGE_SHIFT;
		zs_pool_stats(oz->mem_pool, &pool_stats);
		snap->stats[OZRAM_STAT_COMPACTED] =
			atomic_long_read(&pool_stats.pages_compacted);
	}
	snap->stats[OZRAM_STAT_MEM_LIMIT] = (u64)oz->limit_pages << PAGE_SHIFT;
	ozram_ring_snapshot(&snap->ring);
	up_read(&oz->init_lock);
}

void ozram_snapshot_total_start(struct ozram_snapshot *total)
{
	memset(total, 0, sizeof(*total));
	ozram_ring_snapshot(&total->ring);
}

void ozram_snapshot_add(struct ozram_snapshot *sum,
			const struct ozram_snapshot *snap)
{
	int i;

	sum->disksize += snap->disksize;
	sum->initstate |= snap->initstate;
	for (i = 0; i < OZRAM_NR_STATS; i++)
		sum->stats[i] += snap->stats[i];
}

void ozram_stats_reset(struct ozram *oz)
{
	int i;

	down_read(&oz->init_lock);
	for (i = 0; i < OZRAM_NR_STATS; i++)
		if (ozram_stat_is_counter[i])
			ozram_stat_set(oz, i, 0);
	ozram_stat_set(oz, OZRAM_STAT_MEM_USED_MAX, ozram_init_done(oz) ?
		       (u64)ozram_mem_used_pages(oz) << PAGE_SHIFT : 0);
	ozram_latency_reset(oz);
	up_read(&oz->init_lock);
}

/*
 * zram's format: each number of @file in a column of 8, in list order.
 * zram 6.1's numbers and no more: mm_stat has 9, io_stat 4, debug_stat 2
 * and bd_stat 3, which the tests of the list check.
 */
static ssize_t ozram_stat_show_zram(const struct ozram_snapshot *s,
				    enum ozram_stat_file file, char *buf)
{
	/* bd_stat counts 4 KiB units, whatever the page size. */
	u64 unit = file == OZRAM_FILE_bd_stat ? 1 << (PAGE_SHIFT - 12) : 1;
	const char *sep = "";
	ssize_t len = 0;
	int i;

	if (file == OZRAM_FILE_debug_stat)
		len = sysfs_emit(buf, "version: 1\n");
	for (i = 0; i < OZRAM_NR_STATS; i++) {
		if (ozram_stat_files[i] != file)
			continue;
		len += sysfs_emit_at(buf, len, "%s%8llu", sep,
				     s->stats[i] * unit);
		sep = " ";
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

ssize_t ozram_stat_show(struct ozram *oz, enum ozram_stat_file file,
			char *buf)
{
	struct ozram_snapshot s;
	ssize_t len = 0;
	int i;

	ozram_snapshot(oz, &s);
	if (file != OZRAM_FILE_backend_stat)
		return ozram_stat_show_zram(&s, file, buf);

	for (i = 0; i < OZRAM_NR_STATS; i++)
		if (ozram_stat_files[i] == file)
			len += sysfs_emit_at(buf, len, "%s: %llu\n",
					     ozram_stat_names[i], s.stats[i]);
	len += sysfs_emit_at(buf, len, "agent: %s\nagent_pid: %u\n",
			     s.ring.agent_attached ? "attached" : "detached",
			     s.ring.agent_pid);
	for (i = 0; i < OZRAM_RING_NR_STATS; i++)
		len += sysfs_emit_at(buf, len, "%s: %llu\n",
				     ozram_ring_stat_names[i], s.ring.stats[i]);
	return len;
}
