/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * ozram generic netlink ABI.
 *
 * This header is shared by the ozram kernel module and its userspace
 * tools.  It only uses preprocessor constants and enums so that it can be
 * included from C and C++ on either side of the boundary.
 *
 * Family:   OZRAM_GENL_NAME, version OZRAM_GENL_VERSION.
 * Commands: see enum ozram_genl_cmd.  Read-only commands are open to every
 *           user; commands that change state need CAP_NET_ADMIN.
 * Sizes:    every counter is a u64 (NLA_U64, padded with OZRAM_ATTR_PAD).
 * Changes:  attributes and commands are only ever appended.  One that is
 *           retired keeps its number, which nothing else takes, and is no
 *           longer sent; the kernel refuses it as input like any unknown
 *           attribute.  Version 2 moved the device's numbers into
 *           OZRAM_ATTR_STATS, made from ozram_dev_stats.h.
 */
#ifndef OZRAM_GENL_H
#define OZRAM_GENL_H

#define OZRAM_GENL_NAME		"ozram"
#define OZRAM_GENL_VERSION	2

enum ozram_genl_cmd {
	OZRAM_CMD_UNSPEC,
	/*
	 * Dump: one message per device with OZRAM_ATTR_DEV_ID,
	 * OZRAM_ATTR_DEV_NAME, OZRAM_ATTR_DISKSIZE and OZRAM_ATTR_INITSTATE.
	 */
	OZRAM_CMD_GET_DEVICES,
	/*
	 * Do: statistics of the device named by OZRAM_ATTR_DEV_ID, or the sum
	 * over every device when the attribute is absent (then
	 * OZRAM_ATTR_NUM_DEVICES says how many were summed, and
	 * OZRAM_ATTR_DISKSIZE is the sum of their sizes).
	 */
	OZRAM_CMD_GET_STATS,
	/*
	 * Do, CAP_NET_ADMIN: restart from 0 every counter the module keeps
	 * for a device (those of kind counter in ozram_dev_stats.h, but
	 * compacted_pages_total, which the allocator keeps), restart
	 * mem_used_max_bytes from the current usage and clear the latency
	 * histograms, of one device (OZRAM_ATTR_DEV_ID) or of all of them.
	 * Gauges, which describe the data stored, are left alone.
	 */
	OZRAM_CMD_RESET_STATS,
	/*
	 * Do, CAP_NET_ADMIN: compact the allocator of one device
	 * (OZRAM_ATTR_DEV_ID) or of every initialized device.
	 */
	OZRAM_CMD_COMPACT,

	__OZRAM_CMD_MAX,
	OZRAM_CMD_MAX = __OZRAM_CMD_MAX - 1
};

enum ozram_genl_attr {
	OZRAM_ATTR_UNSPEC,
	OZRAM_ATTR_PAD,			/* alignment padding for u64 */

	/* identity and state */
	OZRAM_ATTR_DEV_ID,		/* u32: N of /dev/ozramN */
	OZRAM_ATTR_DEV_NAME,		/* string: "ozramN" */
	OZRAM_ATTR_DISKSIZE,		/* u64: bytes, 0 when uninitialized */
	OZRAM_ATTR_INITSTATE,		/* u8: 1 when initialized */
	OZRAM_ATTR_NUM_DEVICES,		/* u32: devices summed in a total */

	/*
	 * 7 to 26: the device's numbers of version 1, one attribute each,
	 * retired: they are in OZRAM_ATTR_STATS now.
	 */
	OZRAM_ATTR_AGENT_STATE = 27,	/* u8: enum ozram_agent_state */
	OZRAM_ATTR_RING,		/* nest: enum ozram_ring_attr */
	OZRAM_ATTR_AGENT_PID,		/* u32: tgid of the attached agent, 0 */
	/* 30 to 32: retired likewise. */
	OZRAM_ATTR_LATENCY = 33,	/* nest: enum ozram_latency_attr */
	/* 34 and 35: retired likewise. */
	OZRAM_ATTR_STATS = 36,		/* nest: enum ozram_stat_attr */

	__OZRAM_ATTR_MAX,
	OZRAM_ATTR_MAX = __OZRAM_ATTR_MAX - 1
};

/*
 * A device's numbers, nested in OZRAM_ATTR_STATS, all u64: one attribute
 * per line of ozram_dev_stats.h, in its order.  A total over devices sums
 * each.
 */
enum ozram_stat_attr {
	OZRAM_STAT_ATTR_UNSPEC,
	OZRAM_STAT_ATTR_PAD,
#define OZRAM_DEV_STAT(attr, name, kind, file, help) OZRAM_STAT_ATTR_##attr,
#include "ozram_dev_stats.h"
#undef OZRAM_DEV_STAT

	__OZRAM_STAT_ATTR_MAX,
	OZRAM_STAT_ATTR_MAX = __OZRAM_STAT_ATTR_MAX - 1
};

/*
 * The offload ring's numbers, nested in OZRAM_ATTR_RING, all u64: one
 * attribute per line of ozram_ring_stats.h, in its order.
 */
enum ozram_ring_attr {
	OZRAM_RING_ATTR_UNSPEC,
	OZRAM_RING_ATTR_PAD,
#define OZRAM_RING_STAT(attr, name, kind, help) OZRAM_RING_ATTR_##attr,
#include "ozram_ring_stats.h"
#undef OZRAM_RING_STAT

	__OZRAM_RING_ATTR_MAX,
	OZRAM_RING_ATTR_MAX = __OZRAM_RING_ATTR_MAX - 1
};

/*
 * Latency histograms, nested in OZRAM_ATTR_LATENCY: one nest of enum
 * ozram_hist_attr per operation.  A total over devices sums them.
 */
enum ozram_latency_attr {
	OZRAM_LATENCY_ATTR_UNSPEC,
	OZRAM_LATENCY_ATTR_PAD,
	OZRAM_LATENCY_ATTR_WRITE,	/* a page written (to stored or staged) */
	OZRAM_LATENCY_ATTR_READ,	/* a page read */
	OZRAM_LATENCY_ATTR_RING,	/* a page staged until stored */

	__OZRAM_LATENCY_ATTR_MAX,
	OZRAM_LATENCY_ATTR_MAX = __OZRAM_LATENCY_ATTR_MAX - 1
};

/*
 * One histogram of nanoseconds in log2 buckets: bucket i counts the
 * intervals in [2^i, 2^(i+1)) ns (bucket 0 also those under 1 ns), the
 * last bucket everything from 2^(n-1) ns on.  OZRAM_HIST_ATTR_BUCKETS is
 * an array of u64 in host byte order whose length gives n (the module
 * sends OZRAM_LATENCY_BUCKETS); a reader takes as many as it knows.
 */
#define OZRAM_LATENCY_BUCKETS	32

enum ozram_hist_attr {
	OZRAM_HIST_ATTR_UNSPEC,
	OZRAM_HIST_ATTR_PAD,
	OZRAM_HIST_ATTR_COUNT,		/* u64: intervals counted */
	OZRAM_HIST_ATTR_SUM_NS,		/* u64: their total, ns */
	OZRAM_HIST_ATTR_BUCKETS,	/* binary: u64[n], see above */

	__OZRAM_HIST_ATTR_MAX,
	OZRAM_HIST_ATTR_MAX = __OZRAM_HIST_ATTR_MAX - 1
};

enum ozram_agent_state {
	OZRAM_AGENT_DETACHED,
	OZRAM_AGENT_ATTACHED,
};

#endif /* OZRAM_GENL_H */
