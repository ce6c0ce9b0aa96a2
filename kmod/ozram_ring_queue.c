// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: the protocol on the shared mapping.  The kernel is
 * the producer: it copies a written page into a staging slot, posts an SQ
 * entry naming the slot and its generation, and the write completes at
 * once; the agent compresses staging slot i into output slot i and posts a
 * completion.  This file is the only code that reads or writes the
 * mapping, through the accessors of ozram_ring_mapping.h.  The ABI is
 * shared/ozram_ring.h.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/nospec.h>
#include <linux/sched.h>

#include "ozram_drv.h"
#include "ozram_ring_mapping.h"

/* Where each area is, from the kernel's own copy of the header. */
void ozram_ring_queues_init(void)
{
	struct ozram_ring_state *r = &ozram_ring;

	r->ctrl = r->mem + r->geo.ctrl.offset;
	r->sq = r->mem + r->geo.sq.offset;
	r->cq = r->mem + r->geo.cq.offset;
	r->output = r->mem + r->geo.output.offset;
	r->staging = r->mem + r->geo.staging.offset;
	ozram_ring_reset_shared(r, 0, 0);
	ozram_ring_write_flags(r, OZRAM_RING_F_NEED_WAKEUP);
}

/*
 * A new agent starts clean, with reap_mutex and lock held: whatever an old
 * agent left in the queues is stale, and the header is the kernel's again.
 */
void ozram_ring_queues_attach(void)
{
	struct ozram_ring_state *r = &ozram_ring;

	ozram_ring_reset_shared(r, r->sq_tail, r->cq_head);
	/* Always set: agents of ABI 1.0 and 1.1 ring only while it is. */
	ozram_ring_write_flags(r, OZRAM_RING_F_NEED_WAKEUP);
	r->seen_sq_head = r->sq_tail;
}

/* No new entries will come: the agent finishes what it took and leaves. */
void ozram_ring_queues_stop(void)
{
	ozram_ring_write_flags(&ozram_ring, OZRAM_RING_F_NEED_WAKEUP |
				OZRAM_RING_F_STOPPING);
}

/* Whether the SQ holds entries the agent has not taken. */
bool ozram_ring_has_work(void)
{
	struct ozram_ring_state *r = &ozram_ring;

	return READ_ONCE(r->sq_tail) != ozram_ring_read_sq_head(r);
}

u32 ozram_ring_agent_sq_head(void)
{
	return ozram_ring_read_sq_head(&ozram_ring);
}

void ozram_ring_copy_output(u32 slot, u32 len, void *dst)
{
	ozram_ring_read_output(&ozram_ring, slot, len, dst);
}

/* ---- staging (write path) ------------------------------------------- */

int ozram_ring_stage(struct ozram *oz, u32 index, struct page *page,
		     struct ozram_stage_ref *ref)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_sqe sqe;
	u32 slot, gen;
	void *src;

	if (!READ_ONCE(r->attached))
		return -ENODEV;

	spin_lock(&r->lock);
	if (!r->attached) {
		spin_unlock(&r->lock);
		return -ENODEV;
	}
	/* The agent's sq_head is only a hint: a bad one just means "full". */
	if (r->sq_tail - ozram_ring_read_sq_head(r) >= r->geo.sq_entries ||
	    !ozram_ring_slots_get(&r->slots, jiffies, &slot, &gen)) {
		spin_unlock(&r->lock);
		ozram_ring_count(OZRAM_RING_STAT_INLINE_FALLBACKS, 1);
		return -EBUSY;
	}
	r->owners[slot].oz = oz;
	r->owners[slot].index = index;

	src = kmap_local_page(page);
	ozram_ring_write_staging(r, slot, src);
	kunmap_local(src);

	sqe.slot = slot;
	sqe.generation = gen;
	sqe.device_id = oz->id;
	sqe.flags = 0;
	ozram_ring_write_sqe(r, r->sq_tail, &sqe);
	ozram_ring_publish_sq_tail(r, ++r->sq_tail);
	spin_unlock(&r->lock);

	ref->ring_slot = slot;
	ref->generation = gen;
	ozram_ring_count(OZRAM_RING_STAT_SUBMITTED, 1);
	wake_up_interruptible(&r->wait);
	queue_delayed_work(r->wq, &r->timeout_work, ozram_ring_timeout());
	return 0;
}

void ozram_ring_release(u32 slot)
{
	struct ozram_ring_state *r = &ozram_ring;

	if (WARN_ON_ONCE(slot >= r->slots.nr))
		return;
	spin_lock(&r->lock);
	if (!WARN_ON_ONCE(r->slots.states[slot] == OZRAM_RING_SLOT_FREE)) {
		ozram_ring_slots_put(&r->slots, slot);
		r->owners[slot].oz = NULL;
		__clear_bit(slot, r->to_store);
	}
	spin_unlock(&r->lock);
}

/*
 * The caller holds the lock of the device slot that points at ref's ring
 * slot, so the ring slot can be neither released nor staged again.
 */
bool ozram_ring_stage_current(const struct ozram_stage_ref *ref)
{
	return ozram_ring_slots_current(&ozram_ring.slots, ref->ring_slot,
					ref->generation);
}

const void *ozram_ring_staged_data(u32 slot)
{
	struct ozram_ring_state *r = &ozram_ring;

	return ozram_ring_read_staging(r, array_index_nospec(slot,
							     r->slots.nr));
}

/* ---- completions ------------------------------------------------------ */

/*
 * Reaps every completion the agent published; reap_mutex held.  The agent's
 * doorbell passes !@may_reclaim (see ozram_ring_defer()).
 */
void ozram_ring_reap(bool may_reclaim)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_cqe cqe;
	u32 tail, n;

	lockdep_assert_held(&r->reap_mutex);
	tail = ozram_ring_acquire_cq_tail(r);
	n = tail - r->cq_head;
	if (!n)
		return;
	if (n > r->geo.cq_entries) {
		/* A corrupt tail: skip to it; the pages will time out. */
		ozram_ring_count(OZRAM_RING_STAT_REJECTED, 1);
		r->cq_head = tail;
		ozram_ring_release_cq_head(r, r->cq_head);
		return;
	}
	r->last_progress = jiffies;
	while (n--) {
		ozram_ring_read_cqe(r, r->cq_head++, &cqe);
		ozram_ring_complete(&cqe, may_reclaim);
		cond_resched();
	}
	ozram_ring_release_cq_head(r, r->cq_head);
	ozram_ring_count(OZRAM_RING_STAT_BATCHES, 1);
}
