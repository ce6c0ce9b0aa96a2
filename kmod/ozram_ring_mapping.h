/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every access of the kernel to the memory it shares with the agent, and
 * all the memory ordering of the ring, in the manner of liburing's
 * barrier.h.  Only ozram_ring_queue.c includes it.
 *
 * The agent may write any byte of [0, staging.offset) at any time, so the
 * kernel reads each field it needs once, works on the copy, and trusts
 * nothing it read.  The agent's side of each pairing is in
 * agent/src/ring/barrier.hpp.
 */
#ifndef OZRAM_RING_MAPPING_H
#define OZRAM_RING_MAPPING_H

#include <linux/compiler.h>
#include <linux/string.h>

#include "ozram_ring_internal.h"

static inline void *ozram_ring_slot_addr(u8 *area, u32 slot)
{
	return area + (size_t)slot * OZRAM_RING_PAGE_SIZE;
}

/*
 * The agent's sq_head: how far it has taken SQ entries.  A hint, of room
 * and of progress.  The agent releases it after reading the entries before
 * it; the kernel writes an SQ entry only when this read found room, a
 * control dependency, so it never overwrites an entry the agent still reads.
 */
static inline u32 ozram_ring_read_sq_head(struct ozram_ring_mem *a)
{
	return READ_ONCE(a->ctrl->sq_head.value);
}

/*
 * The page to compress, into its staging slot.  The agent maps staging
 * read-only; it reads the slot after the sq_tail release below.
 */
static inline void ozram_ring_write_staging(struct ozram_ring_mem *a,
					    u32 slot, const void *page)
{
	memcpy(ozram_ring_slot_addr(a->staging, slot), page,
	       OZRAM_RING_PAGE_SIZE);
}

/* A staged page, read back by the kernel: staging is the kernel's own. */
static inline const void *ozram_ring_read_staging(struct ozram_ring_mem *a,
						  u32 slot)
{
	return ozram_ring_slot_addr(a->staging, slot);
}

/* Forgets what a staging slot held, so that no later agent reads it. */
static inline void ozram_ring_clear_staging(struct ozram_ring_mem *a,
					    u32 slot)
{
	memset(ozram_ring_slot_addr(a->staging, slot), 0,
	       OZRAM_RING_PAGE_SIZE);
}

/* An SQ entry, published by the next ozram_ring_publish_sq_tail(). */
static inline void ozram_ring_write_sqe(struct ozram_ring_mem *a,
					const struct ozram_ring_header *geo,
					u32 pos, const struct ozram_ring_sqe *e)
{
	struct ozram_ring_sqe *sqe = &a->sq[pos & (geo->sq_entries - 1)];

	WRITE_ONCE(sqe->slot, e->slot);
	WRITE_ONCE(sqe->generation, e->generation);
	WRITE_ONCE(sqe->device_id, e->device_id);
	WRITE_ONCE(sqe->flags, e->flags);
}

/* Publishes the SQ entries and the staged pages written before @tail. */
static inline void ozram_ring_publish_sq_tail(struct ozram_ring_mem *a,
					      u32 tail)
{
	/* Pairs with the agent's acquire of sq_tail (AgentQueues::pending()). */
	smp_store_release(&a->ctrl->sq_tail.value, tail);
}

/* The agent's cq_tail, and the CQ entries and output bytes before it. */
static inline u32 ozram_ring_acquire_cq_tail(struct ozram_ring_mem *a)
{
	/* Pairs with the agent's release of cq_tail (AgentQueues::publish()). */
	return smp_load_acquire(&a->ctrl->cq_tail.value);
}

/*
 * A private copy of CQ entry @pos, each field read once: the agent may
 * rewrite the entry while the kernel reads it.  Ordered by the cq_tail
 * acquire above.
 */
static inline void ozram_ring_read_cqe(struct ozram_ring_mem *a,
				       const struct ozram_ring_header *geo,
				       u32 pos, struct ozram_ring_cqe *copy)
{
	const struct ozram_ring_cqe *cqe = &a->cq[pos & (geo->cq_entries - 1)];

	copy->slot = READ_ONCE(cqe->slot);
	copy->generation = READ_ONCE(cqe->generation);
	copy->status = READ_ONCE(cqe->status);
	copy->encoding = READ_ONCE(cqe->encoding);
	copy->length = READ_ONCE(cqe->length);
	copy->flags = READ_ONCE(cqe->flags);
	copy->fill = READ_ONCE(cqe->fill);
}

/*
 * Output slot @slot, whose bytes are read once, by one copy: the agent may
 * change them at any time.  Ordered by the cq_tail acquire above.
 */
static inline const void *ozram_ring_output(struct ozram_ring_mem *a, u32 slot)
{
	return ozram_ring_slot_addr(a->output, slot);
}

/* @len bytes of output slot @slot, copied once. */
static inline void ozram_ring_read_output(struct ozram_ring_mem *a,
					  u32 slot, u32 len, void *dst)
{
	memcpy(dst, ozram_ring_output(a, slot), len);
}

/* Hands the CQ entries before @head back, once they are read. */
static inline void ozram_ring_release_cq_head(struct ozram_ring_mem *a,
					      u32 head)
{
	/* Pairs with the agent's acquire of cq_head (AgentQueues::cq_space()). */
	smp_store_release(&a->ctrl->cq_head.value, head);
}

/*
 * ctrl.flags.  Pairs with the agent's acquire of flags (RingView::
 * stopping()); nothing else is published with it.
 */
static inline void ozram_ring_write_flags(struct ozram_ring_mem *a,
					  u32 flags)
{
	WRITE_ONCE(a->ctrl->flags.value, flags);
}

/*
 * What a new agent finds: the kernel's header and indices that make both
 * queues empty.  Called as an agent attaches, before its mmap(): no mapping
 * of the area is in use (ozram_ring_queues_attach() replaces an area that
 * may be), so plain stores, published by the open() that attaches.
 */
static inline void ozram_ring_reset_shared(struct ozram_ring_mem *a,
					   const struct ozram_ring_header *geo,
					   u32 sq_tail, u32 cq_head)
{
	*(struct ozram_ring_header *)a->base = *geo;
	WRITE_ONCE(a->ctrl->sq_head.value, sq_tail);
	WRITE_ONCE(a->ctrl->sq_tail.value, sq_tail);
	WRITE_ONCE(a->ctrl->cq_tail.value, cq_head);
	WRITE_ONCE(a->ctrl->cq_head.value, cq_head);
}

/* The output area, emptied of what an earlier agent wrote into it. */
static inline void ozram_ring_clear_output(struct ozram_ring_mem *a,
					   const struct ozram_ring_header *geo)
{
	memset(a->output, 0, geo->output.size);
}

#endif /* OZRAM_RING_MAPPING_H */
