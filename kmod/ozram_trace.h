/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram tracepoints: the life of a page in the offload ring, for perf,
 * bpftrace and ftrace (system "ozram").  Documentation/operations.md
 * ("Monitoring") has the lines that answer the usual questions with them.
 *
 *   ozram_stage         a written page staged for the agent
 *   ozram_fallback      a written page the kernel compresses at once
 *                       instead, and why (no agent, ring full, algorithm)
 *   ozram_complete      a completion from the agent, with its outcome
 *   ozram_verify_failure  a result that does not give back the page
 *   ozram_take_back     a staged page taken back from the agent (timeout
 *                       or detach), with its age
 *   ozram_drain         the agent detached: pages taken back at once
 *   ozram_store         a staged page stored (by the agent's result or by
 *                       the kernel), with the time since it was staged
 *
 * Disabled tracepoints cost a patched-out branch each.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ozram

#if !defined(OZRAM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define OZRAM_TRACE_H

#include <linux/errno.h>
#include <linux/tracepoint.h>

#include <ozram_ring.h>

TRACE_DEFINE_ENUM(OZRAM_RING_OK);
TRACE_DEFINE_ENUM(OZRAM_RING_BAD_SLOT);
TRACE_DEFINE_ENUM(OZRAM_RING_STALE);
TRACE_DEFINE_ENUM(OZRAM_RING_BAD_STATUS);
TRACE_DEFINE_ENUM(OZRAM_RING_BAD_ENCODING);
TRACE_DEFINE_ENUM(OZRAM_RING_BAD_LENGTH);
TRACE_DEFINE_ENUM(OZRAM_RING_BAD_FLAGS);

#define show_ozram_verdict(v)						\
	__print_symbolic(v,						\
			 { OZRAM_RING_OK, "ok" },			\
			 { OZRAM_RING_BAD_SLOT, "bad_slot" },		\
			 { OZRAM_RING_STALE, "stale" },			\
			 { OZRAM_RING_BAD_STATUS, "bad_status" },	\
			 { OZRAM_RING_BAD_ENCODING, "bad_encoding" },	\
			 { OZRAM_RING_BAD_LENGTH, "bad_length" },	\
			 { OZRAM_RING_BAD_FLAGS, "bad_flags" })

/*
 * Why a written page was not staged: the errno ozram_ring_stage() returned,
 * kept positive (perf's parser prints negative symbols as numbers).
 */
#define show_ozram_fallback(reason)					\
	__print_symbolic(reason,					\
			 { ENODEV, "no_agent" },			\
			 { EBUSY, "ring_full" },			\
			 { EOPNOTSUPP, "unsupported_algorithm" })

TRACE_EVENT(ozram_stage,
	    TP_PROTO(int dev, u32 index, u32 slot, u32 generation,
		     bool recompress),
	    TP_ARGS(dev, index, slot, generation, recompress),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, index)
			     __field(u32, slot)
			     __field(u32, generation)
			     __field(bool, recompress)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->index = index;
			   __entry->slot = slot;
			   __entry->generation = generation;
			   __entry->recompress = recompress;),
	    TP_printk("dev=%d index=%u slot=%u generation=%u recompress=%d",
		      __entry->dev, __entry->index, __entry->slot,
		      __entry->generation, __entry->recompress)
);

/* A written page parked raw until the agent takes it (ozram_io_park.c). */
TRACE_EVENT(ozram_park,
	    TP_PROTO(int dev, u32 index),
	    TP_ARGS(dev, index),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, index)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->index = index;),
	    TP_printk("dev=%d index=%u", __entry->dev, __entry->index)
);

TRACE_EVENT(ozram_fallback,
	    TP_PROTO(int dev, u32 index, int reason),
	    TP_ARGS(dev, index, reason),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, index)
			     __field(int, reason)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->index = index;
			   __entry->reason = -reason;),
	    TP_printk("dev=%d index=%u reason=%s", __entry->dev,
		      __entry->index, show_ozram_fallback(__entry->reason))
);

TRACE_EVENT(ozram_complete,
	    TP_PROTO(const struct ozram_ring_cqe *cqe, int verdict),
	    TP_ARGS(cqe, verdict),
	    TP_STRUCT__entry(__field(u32, slot)
			     __field(u32, generation)
			     __field(s32, status)
			     __field(u32, encoding)
			     __field(u32, length)
			     __field(u32, flags)
			     __field(int, verdict)),
	    TP_fast_assign(__entry->slot = cqe->slot;
			   __entry->generation = cqe->generation;
			   __entry->status = cqe->status;
			   __entry->encoding = cqe->encoding;
			   __entry->length = cqe->length;
			   __entry->flags = cqe->flags;
			   __entry->verdict = verdict;),
	    TP_printk("slot=%u generation=%u verdict=%s status=%d encoding=%u length=%u flags=%#x",
		      __entry->slot, __entry->generation,
		      show_ozram_verdict(__entry->verdict), __entry->status,
		      __entry->encoding, __entry->length, __entry->flags)
);

TRACE_EVENT(ozram_verify_failure,
	    TP_PROTO(int dev, u32 index, const struct ozram_ring_cqe *cqe),
	    TP_ARGS(dev, index, cqe),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, index)
			     __field(u32, slot)
			     __field(u32, encoding)
			     __field(u32, length)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->index = index;
			   __entry->slot = cqe->slot;
			   __entry->encoding = cqe->encoding;
			   __entry->length = cqe->length;),
	    TP_printk("dev=%d index=%u slot=%u encoding=%u length=%u",
		      __entry->dev, __entry->index, __entry->slot,
		      __entry->encoding, __entry->length)
);

TRACE_EVENT(ozram_take_back,
	    TP_PROTO(int dev, u32 index, u32 slot, bool drained, u64 age_ns),
	    TP_ARGS(dev, index, slot, drained, age_ns),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, index)
			     __field(u32, slot)
			     __field(bool, drained)
			     __field(u64, age_ns)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->index = index;
			   __entry->slot = slot;
			   __entry->drained = drained;
			   __entry->age_ns = age_ns;),
	    TP_printk("dev=%d index=%u slot=%u reason=%s age_ns=%llu",
		      __entry->dev, __entry->index, __entry->slot,
		      __entry->drained ? "drained" : "timeout",
		      __entry->age_ns)
);

TRACE_EVENT(ozram_drain,
	    TP_PROTO(u32 pages),
	    TP_ARGS(pages),
	    TP_STRUCT__entry(__field(u32, pages)),
	    TP_fast_assign(__entry->pages = pages;),
	    TP_printk("pages=%u", __entry->pages)
);

TRACE_EVENT(ozram_store,
	    TP_PROTO(int dev, u32 index, u32 slot, bool by_agent, u64 age_ns),
	    TP_ARGS(dev, index, slot, by_agent, age_ns),
	    TP_STRUCT__entry(__field(int, dev)
			     __field(u32, index)
			     __field(u32, slot)
			     __field(bool, by_agent)
			     __field(u64, age_ns)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->index = index;
			   __entry->slot = slot;
			   __entry->by_agent = by_agent;
			   __entry->age_ns = age_ns;),
	    TP_printk("dev=%d index=%u slot=%u by=%s age_ns=%llu",
		      __entry->dev, __entry->index, __entry->slot,
		      __entry->by_agent ? "agent" : "kernel", __entry->age_ns)
);

#endif /* OZRAM_TRACE_H */

/* define_trace.h includes this file again from the path below. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ozram_trace
#include <trace/define_trace.h>
