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
 *           retired keeps its number, gets an _UNUSED name, and is no longer
 *           sent; the kernel refuses it as input like any unknown attribute.
 */
#ifndef OZRAM_GENL_H
#define OZRAM_GENL_H

#define OZRAM_GENL_NAME		"ozram"
#define OZRAM_GENL_VERSION	1

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
	 * Do, CAP_NET_ADMIN: reset the event counters (io_stat, debug_stat,
	 * huge_pages_since) and restart mem_used_max from the current usage,
	 * of one device (OZRAM_ATTR_DEV_ID) or of all of them.  Counters that
	 * describe stored data are left alone.
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

	/* mm_stat, same meaning and order as the sysfs file (bytes/pages) */
	OZRAM_ATTR_ORIG_DATA_SIZE,	/* u64 bytes */
	OZRAM_ATTR_COMPR_DATA_SIZE,	/* u64 bytes */
	OZRAM_ATTR_MEM_USED_TOTAL,	/* u64 bytes */
	OZRAM_ATTR_MEM_LIMIT,		/* u64 bytes, 0 = unlimited */
	OZRAM_ATTR_MEM_USED_MAX,	/* u64 bytes */
	OZRAM_ATTR_SAME_PAGES,		/* u64 pages */
	OZRAM_ATTR_PAGES_COMPACTED,	/* u64 pages */
	OZRAM_ATTR_HUGE_PAGES,		/* u64 pages */
	OZRAM_ATTR_HUGE_PAGES_SINCE,	/* u64 pages */

	/* io_stat */
	OZRAM_ATTR_FAILED_READS,	/* u64 */
	OZRAM_ATTR_FAILED_WRITES,	/* u64 */
	OZRAM_ATTR_INVALID_IO,		/* u64 */
	OZRAM_ATTR_NOTIFY_FREE,		/* u64 */

	/* debug_stat */
	OZRAM_ATTR_WRITESTALL,		/* u64 */
	OZRAM_ATTR_MISS_FREE,		/* u64 */

	/* backend_stat: pages currently stored, by the path that stored them */
	OZRAM_ATTR_PAGES_KERNEL_LZ4,	/* u64: compressed by in-kernel LZ4 */
	OZRAM_ATTR_PAGES_AGENT_CPU,	/* u64: compressed by the agent, CPU */
	OZRAM_ATTR_PAGES_AGENT_GPU,	/* u64: compressed by the agent, GPU */
	/* Retired: the same counts as OZRAM_ATTR_SAME_PAGES and _HUGE_PAGES. */
	OZRAM_ATTR_PAGES_SAME_FILLED_UNUSED,
	OZRAM_ATTR_PAGES_HUGE_UNUSED,
	OZRAM_ATTR_AGENT_STATE,		/* u8: enum ozram_agent_state */

	OZRAM_ATTR_RING,		/* nest: enum ozram_ring_attr */
	OZRAM_ATTR_AGENT_PID,		/* u32: tgid of the attached agent, 0 */
	OZRAM_ATTR_PAGES_STAGED,	/* u64: pages waiting in the offload ring */
	OZRAM_ATTR_PAGES_RECOMPRESSED,	/* u64: pages stored recompressed */
	OZRAM_ATTR_RECOMPRESS_SAVED,	/* u64 bytes: saved by recompression */
	OZRAM_ATTR_LATENCY,		/* nest: enum ozram_latency_attr */
	OZRAM_ATTR_PAGES_PARKED,	/* u64: pages held raw for the agent */
	OZRAM_ATTR_PARKED_TOTAL,	/* u64: pages parked since init */

	__OZRAM_ATTR_MAX,
	OZRAM_ATTR_MAX = __OZRAM_ATTR_MAX - 1
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
