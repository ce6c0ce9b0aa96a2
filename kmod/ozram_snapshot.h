/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram statistics snapshots: a consistent copy of a device's numbers, the
 * one source of what sysfs and netlink print, so that the two always agree,
 * and the sysfs files that print them.
 */
#ifndef OZRAM_SNAPSHOT_H
#define OZRAM_SNAPSHOT_H

#include <linux/types.h>

#include "ozram_ring_api.h"
#include "ozram_stat.h"

struct ozram;

/* The sysfs files a device's numbers are printed in (ozram_dev_stats.h). */
enum ozram_stat_file {
	OZRAM_FILE_mm_stat,
	OZRAM_FILE_io_stat,
	OZRAM_FILE_debug_stat,
	OZRAM_FILE_bd_stat,
	OZRAM_FILE_backend_stat,
};

/* A consistent copy of one device's numbers, in the units of the ABI. */
struct ozram_snapshot {
	u64 disksize;
	bool initstate;
	u64 stats[OZRAM_NR_STATS];
	struct ozram_ring_snapshot ring;
};

/* Takes init_lock for reading, so the device cannot be reset meanwhile. */
void ozram_snapshot(struct ozram *oz, struct ozram_snapshot *snap);
/*
 * Starts a total over devices: no device's numbers yet, and the ring's,
 * which the module has whether or not it has a device.
 */
void ozram_snapshot_total_start(struct ozram_snapshot *total);
/*
 * Adds @snap into @sum, a total that ozram_snapshot_total_start() began;
 * the ring is the total's own, not summed.
 */
void ozram_snapshot_add(struct ozram_snapshot *sum,
			const struct ozram_snapshot *snap);

/*
 * reset-stats: restarts every counter the device keeps from 0 and
 * mem_used_max from the current usage, and clears the latency histograms.
 */
void ozram_stats_reset(struct ozram *oz);

/*
 * The text of sysfs @file of @oz into @buf: zram's files as zram prints
 * them, backend_stat as "name: value" lines, its device numbers, the
 * agent's state and the ring's numbers.
 */
ssize_t ozram_stat_show(struct ozram *oz, enum ozram_stat_file file,
			char *buf);

/* The names of the numbers, by enum ozram_stat and enum ozram_ring_stat. */
extern const char *const ozram_stat_names[OZRAM_NR_STATS];
extern const char *const ozram_ring_stat_names[OZRAM_RING_NR_STATS];

#endif /* OZRAM_SNAPSHOT_H */
