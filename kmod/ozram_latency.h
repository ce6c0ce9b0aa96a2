/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram latency histograms: per device, how long page writes, page reads
 * and the ring's round trips (a page staged for the agent until it is
 * stored) take.  Each is a log2 histogram of nanoseconds in per-CPU
 * counters, so that recording costs a clock read and two per-CPU adds
 * and never bounces a cache line between CPUs; readers sum the CPUs.
 * Reads and writes are timed with the CPU's own clock, which zram's path
 * does not pay for and which must cost the I/O next to nothing.
 * Exported by sysfs (latency_stat) and netlink (OZRAM_ATTR_LATENCY).
 */
#ifndef OZRAM_LATENCY_H
#define OZRAM_LATENCY_H

#include <linux/types.h>

#include <ozram_genl.h>

struct ozram;

enum ozram_latency_op {
	OZRAM_LAT_WRITE,	/* a page written, from bio to stored or staged */
	OZRAM_LAT_READ,		/* a page read */
	OZRAM_LAT_RING,		/* a page staged for the agent until stored */
	OZRAM_LAT_NR,
};

/* Summed over CPUs: bucket i counts [2^i, 2^(i+1)) ns (see ozram_genl.h). */
struct ozram_latency_hist {
	u64 count;
	u64 sum_ns;
	u64 buckets[OZRAM_LATENCY_BUCKETS];
};

int ozram_latency_alloc(struct ozram *oz);
void ozram_latency_free(struct ozram *oz);

/*
 * The start of a page's read or write: the CPU's clock in ns
 * (local_clock(), no more than a cycle counter read, where a clocksource
 * such as the HPET costs a device access per read), or 0 while the
 * latency_stats module parameter is off (nothing is recorded then).  The
 * I/O ends on the same CPU, or on one whose clock the scheduler keeps close.
 */
u64 ozram_latency_start(void);

/*
 * Counts the interval of a page's read or write from @start_ns (0: none)
 * to now in @op's histogram.
 */
void ozram_latency_record(struct ozram *oz, enum ozram_latency_op op,
			  u64 start_ns);

/*
 * The start of a ring round trip, which ends on another CPU: the
 * monotonic clock (ktime_get_ns()), or 0 while latency_stats is off.
 */
u64 ozram_latency_ring_start(void);

/*
 * A page staged at @staged_ns in ring slot @slot for page @index of @oz:
 * ozram_latency_ring_stored() when its result (@by_agent) or the kernel's
 * compression of it is stored, which counts its round trip and traces
 * ozram_store; ozram_latency_ring_taken_back() when it is taken back from
 * the agent (by a timeout, or @drained at detach), which traces its age.
 */
void ozram_latency_ring_stored(struct ozram *oz, u32 index, u32 slot,
			       bool by_agent, u64 staged_ns);
void ozram_latency_ring_taken_back(struct ozram *oz, u32 index, u32 slot,
				   bool drained, u64 staged_ns);

/* Adds @oz's histogram of @op into @hist (so that totals can sum). */
void ozram_latency_read(struct ozram *oz, enum ozram_latency_op op,
			struct ozram_latency_hist *hist);

/* Clears every histogram of @oz (reset-stats and device reset). */
void ozram_latency_reset(struct ozram *oz);

/*
 * The text of sysfs latency_stat into @buf (a sysfs page): per operation
 * a line "NAME COUNT SUM_NS B0 B1 ... B31".
 */
int ozram_latency_show(struct ozram *oz, char *buf);

#endif /* OZRAM_LATENCY_H */
