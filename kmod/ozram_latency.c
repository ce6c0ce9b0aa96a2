// SPDX-License-Identifier: GPL-2.0
/*
 * ozram latency histograms in per-CPU counters.  See ozram_latency.h.
 *
 * A recording increments a counter of the running CPU with this_cpu_*()
 * (one instruction on x86-64, safe against preemption and interrupts).
 * A reader sums every possible CPU without stopping writers, so a snapshot
 * may miss an interval being recorded: count and buckets can differ by the
 * few recordings in flight while they are read, never afterwards.
 */
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>

#include "ozram_drv.h"
#include "ozram_latency.h"
#include "ozram_trace.h"

/*
 * Off by default, as zram's I/O path reads no clock: the two clock reads
 * and the counters cost a read about 2 % of its time in the test VM
 * (Documentation/performance.md).  An operator who wants the histograms
 * turns them on at run time.
 */
static bool latency_stats;
module_param(latency_stats, bool, 0644);
MODULE_PARM_DESC(latency_stats,
		 "Record the latency histograms of latency_stat (default: 0)");

struct ozram_latency {
	u64 buckets[OZRAM_LAT_NR][OZRAM_LATENCY_BUCKETS];
	u64 sum_ns[OZRAM_LAT_NR];
};

static const char *const ozram_latency_names[OZRAM_LAT_NR] = {
	[OZRAM_LAT_WRITE] = "write",
	[OZRAM_LAT_READ] = "read",
	[OZRAM_LAT_RING] = "ring",
};

int ozram_latency_alloc(struct ozram *oz)
{
	oz->latency = alloc_percpu(struct ozram_latency);
	return oz->latency ? 0 : -ENOMEM;
}

void ozram_latency_free(struct ozram *oz)
{
	free_percpu(oz->latency);
	oz->latency = NULL;
}

/* Bucket i holds [2^i, 2^(i+1)) ns; 0 ns goes to bucket 0 too. */
static unsigned int ozram_latency_bucket(u64 ns)
{
	if (ns < 2)
		return 0;
	return min_t(unsigned int, ilog2(ns), OZRAM_LATENCY_BUCKETS - 1);
}

u64 ozram_latency_start(void)
{
	return READ_ONCE(latency_stats) ? local_clock() : 0;
}

u64 ozram_latency_ring_start(void)
{
	return READ_ONCE(latency_stats) ? ktime_get_ns() : 0;
}

static void ozram_latency_add(struct ozram *oz, enum ozram_latency_op op,
			      u64 start_ns, u64 now)
{
	/*
	 * Never negative: a CPU's clock and the monotonic clock do not go
	 * back, and an I/O that moved to another CPU is counted as 0 rather
	 * than less.
	 */
	u64 ns = now > start_ns ? now - start_ns : 0;

	if (!start_ns)
		return;

	this_cpu_inc(oz->latency->buckets[op][ozram_latency_bucket(ns)]);
	this_cpu_add(oz->latency->sum_ns[op], ns);
}

void ozram_latency_record(struct ozram *oz, enum ozram_latency_op op,
			  u64 start_ns)
{
	if (start_ns)
		ozram_latency_add(oz, op, start_ns, local_clock());
}

void ozram_latency_ring_stored(struct ozram *oz, u32 index, u32 slot,
			       bool by_agent, u64 staged_ns)
{
	u64 now = staged_ns ? ktime_get_ns() : 0;

	ozram_latency_add(oz, OZRAM_LAT_RING, staged_ns, now);
	trace_ozram_store(oz->id, index, slot, by_agent,
			  now > staged_ns ? now - staged_ns : 0);
}

void ozram_latency_ring_taken_back(struct ozram *oz, u32 index, u32 slot,
				   bool drained, u64 staged_ns)
{
	u64 now = staged_ns ? ktime_get_ns() : 0;

	trace_ozram_take_back(oz->id, index, slot, drained,
			      now > staged_ns ? now - staged_ns : 0);
}

void ozram_latency_read(struct ozram *oz, enum ozram_latency_op op,
			struct ozram_latency_hist *hist)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct ozram_latency *l = per_cpu_ptr(oz->latency, cpu);

		for (i = 0; i < OZRAM_LATENCY_BUCKETS; i++) {
			u64 n = READ_ONCE(l->buckets[op][i]);

			hist->buckets[i] += n;
			hist->count += n;
		}
		hist->sum_ns += READ_ONCE(l->sum_ns[op]);
	}
}

void ozram_latency_reset(struct ozram *oz)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(oz->latency, cpu), 0,
		       sizeof(struct ozram_latency));
}

int ozram_latency_show(struct ozram *oz, char *buf)
{
	struct ozram_latency_hist hist;
	int op, i, len = 0;

	for (op = 0; op < OZRAM_LAT_NR; op++) {
		memset(&hist, 0, sizeof(hist));
		ozram_latency_read(oz, op, &hist);
		len += sysfs_emit_at(buf, len, "%s %llu %llu",
				     ozram_latency_names[op], hist.count,
				     hist.sum_ns);
		for (i = 0; i < OZRAM_LATENCY_BUCKETS; i++)
			len += sysfs_emit_at(buf, len, " %llu",
					     hist.buckets[i]);
		len += sysfs_emit_at(buf, len, "\n");
	}
	return len;
}
