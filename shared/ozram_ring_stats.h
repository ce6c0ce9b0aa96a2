/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The numbers of the offload ring, one per line:
 *
 *   OZRAM_RING_STAT(ATTR, name, kind, help)
 *
 * ATTR names the netlink attribute OZRAM_RING_ATTR_<ATTR> (ozram_genl.h)
 * and the module's OZRAM_RING_STAT_<ATTR>.  "name" is the number's one name
 * everywhere, as for a device's numbers (ozram_dev_stats.h): the key of
 * backend_stat, ozramctl's label and JSON key, and the Prometheus metric
 * ozram_<name>, with Prometheus's suffixes.  kind is counter (events since
 * the module was loaded) or gauge (a value of the present), and help says
 * what it counts.  Every list of these numbers, in the module and in the
 * tools, is made from this file: define OZRAM_RING_STAT, then include it.
 * Append only: a line's position gives its attribute number.
 */
OZRAM_RING_STAT(SUBMITTED, ring_submitted_total, counter,
		"pages staged for the agent")
OZRAM_RING_STAT(COMPLETED, ring_completed_total, counter,
		"agent results accepted and stored")
OZRAM_RING_STAT(REJECTED, ring_rejected_total, counter,
		"completions that failed a check")
OZRAM_RING_STAT(TIMEOUTS, ring_timeouts_total, counter,
		"pages taken back after ring_timeout_ms")
OZRAM_RING_STAT(INLINE_FALLBACKS, ring_inline_fallbacks_total, counter,
		"pages compressed in the kernel because the ring was full")
OZRAM_RING_STAT(BATCHES, ring_batches_total, counter,
		"reaps that found at least one completion")
OZRAM_RING_STAT(OCCUPANCY, ring_slots_used, gauge,
		"staging slots in use")
OZRAM_RING_STAT(STALE, ring_stale_total, counter,
		"completions for pages overwritten or taken back meanwhile")
OZRAM_RING_STAT(VERIFY_FAILURES, ring_verify_failures_total, counter,
		"results that did not decode to the staged page")
OZRAM_RING_STAT(AGENT_ERRORS, ring_agent_errors_total, counter,
		"pages the agent gave back")
OZRAM_RING_STAT(DRAINED, ring_drained_total, counter,
		"pages taken back when the agent detached")
OZRAM_RING_STAT(DEFERRED, ring_deferred_total, counter,
		"results stored by the module's worker to spare the agent reclaim")
OZRAM_RING_STAT(UNSUPPORTED, ring_unsupported_total, counter,
		"pages compressed in the kernel because the agent does not do their algorithm")
OZRAM_RING_STAT(ADMISSION_INLINE, ring_admission_inline_total, counter,
		"pages compressed in the kernel at once: the agent was not draining the ring")
