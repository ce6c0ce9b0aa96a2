/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The numbers of the offload ring, one per line:
 *
 *   OZRAM_RING_STAT(ATTR, name, kind, help)
 *
 * ATTR names the netlink attribute OZRAM_RING_ATTR_<ATTR> (ozram_genl.h),
 * "name" is the key (backend_stat prints "ring_<name>"), kind is counter
 * (events since the module was loaded) or gauge (a value of the present),
 * and help says what it counts.  Every list of these numbers, in the module
 * and in the tools, is made from this file: define OZRAM_RING_STAT, then
 * include it.  Append only: a line's position gives its attribute number.
 */
OZRAM_RING_STAT(SUBMITTED, submitted, counter,
		"pages staged for the agent")
OZRAM_RING_STAT(COMPLETED, completed, counter,
		"agent results accepted and stored")
OZRAM_RING_STAT(REJECTED, rejected, counter,
		"completions that failed a check")
OZRAM_RING_STAT(TIMEOUTS, timeouts, counter,
		"pages taken back after ring_timeout_ms")
OZRAM_RING_STAT(INLINE_FALLBACKS, inline_fallbacks, counter,
		"pages compressed in the kernel because the ring was full")
OZRAM_RING_STAT(BATCHES, batches, counter,
		"reaps that found at least one completion")
OZRAM_RING_STAT(OCCUPANCY, occupancy, gauge,
		"staging slots in use")
OZRAM_RING_STAT(STALE, stale, counter,
		"completions for pages overwritten or taken back meanwhile")
OZRAM_RING_STAT(VERIFY_FAILURES, verify_failures, counter,
		"results that did not decode to the staged page")
OZRAM_RING_STAT(AGENT_ERRORS, agent_errors, counter,
		"pages the agent gave back")
OZRAM_RING_STAT(DRAINED, drained, counter,
		"pages taken back when the agent detached")
OZRAM_RING_STAT(DEFERRED, deferred, counter,
		"results stored by the module's worker to spare the agent reclaim")
OZRAM_RING_STAT(UNSUPPORTED, unsupported, counter,
		"pages compressed in the kernel because the agent does not do their algorithm")
OZRAM_RING_STAT(ADMISSION_INLINE, admission_inline, counter,
		"pages compressed in the kernel at once: the agent was not draining the ring")
