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
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "ozram_drv.h"
#include "ozram_latency.h"
#include "ozram_trace.h"
#include "ozram_ring_mapping.h"

/* Where each area of a new instance is, from the kernel's own header. */
void ozram_ring_queues_init(struct ozram_ring_mem *a)
{
	struct ozram_ring_header *geo = &ozram_ring.geo;

	a->ctrl = a->base + geo->ctrl.offset;
	a->sq = a->base + geo->sq.offset;
	a->cq = a->base + geo->cq.offset;
	a->output = a->base + geo->output.offset;
	a->staging = a->base + geo->staging.offset;
	ozram_ring_reset_shared(a, geo, 0, 0);
	ozram_ring_write_flags(a, OZRAM_RING_F_NEED_WAKEUP);
}

/*
 * Whether anything but the kernel still holds a page of @a: a mapping of an
 * earlier agent's file (a fork of it, a file passed on) or a pin (vmsplice,
 * a driver's registration) keeps a reference on the page.
 */
static bool ozram_ring_mem_reachable(struct ozram_ring_mem *a)
{
	size_t off;

	for (off = 0; off < ozram_ring.geo.mapping_size; off += PAGE_SIZE) {
		if (page_count(vmalloc_to_page(a->base + off)) > 1)
			return true;
	}
	return false;
}

/*
 * Gives the next agent memory that no one else can reach.  The pages the
 * kernel keeps staged move to the fresh area; a reader of the old one
 * holds a device slot lock, an RCU reader, so it is freed after a grace
 * period, and its pages live on only as long as what still maps or pins
 * them.  attach_mutex and reap_mutex held, no agent attached.
 */
static int ozram_ring_renew_mem(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_mem *old = ozram_ring_mem(), *fresh;
	u32 slot;

	fresh = ozram_ring_mem_alloc();
	if (!fresh)
		return -ENOMEM;
	ozram_ring_queues_init(fresh);
	/* Only stage() writes a staging slot, and no agent is attached. */
	for (slot = 0; slot < r->slots.nr; slot++) {
		if (READ_ONCE(r->slots.states[slot]) != OZRAM_RING_SLOT_FREE)
			ozram_ring_write_staging(fresh, slot,
						 ozram_ring_read_staging(old, slot));
	}
	spin_lock(&r->lock);
	rcu_assign_pointer(r->mem, fresh);
	spin_unlock(&r->lock);
	synchronize_rcu();
	ozram_ring_mem_free(old);
	pr_info("the last agent's ring memory is still mapped or pinned: the next agent gets fresh memory\n");
	return 0;
}

/*
 * A new agent starts clean, attach_mutex and reap_mutex held: whatever an
 * old agent left in the queues is stale, the header is the kernel's again,
 * and no page it could read belongs to anything but the pages the kernel
 * keeps staged.
 */
int ozram_ring_queues_attach(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_mem *a;
	u32 slot;
	int ret;

	if (ozram_ring_mem_reachable(ozram_ring_mem())) {
		ret = ozram_ring_renew_mem();
		if (ret)
			return ret;
	}
	a = ozram_ring_mem();
	for (slot = 0; slot < r->slots.nr; slot++) {
		/* Freed slots keep discarded or overwritten pages. */
		spin_lock(&r->lock);
		if (r->slots.states[slot] == OZRAM_RING_SLOT_FREE)
			ozram_ring_clear_staging(a, slot);
		spin_unlock(&r->lock);
		cond_resched();
	}
	ozram_ring_clear_output(a, &r->geo);
	/* Not attached: nothing stages, so sq_tail stands still. */
	ozram_ring_reset_shared(a, &r->geo, r->sq_tail, r->cq_head);
	/* Always set: agents of ABI 1.0 and 1.1 ring only while it is. */
	ozram_ring_write_flags(a, OZRAM_RING_F_NEED_WAKEUP);
	r->seen_sq_head = r->sq_tail;
	return 0;
}

/* No new entries will come: the agent finishes what it took and leaves. */
void ozram_ring_queues_stop(void)
{
	ozram_ring_write_flags(ozram_ring_mem(), OZRAM_RING_F_NEED_WAKEUP |
			       OZRAM_RING_F_STOPPING);
}

/* Whether the SQ holds entries the agent has not taken. */
bool ozram_ring_has_work(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	bool work;

	rcu_read_lock();
	work = READ_ONCE(r->sq_tail) !=
	       ozram_ring_read_sq_head(rcu_dereference(r->mem));
	rcu_read_unlock();
	return work;
}

u32 ozram_ring_agent_sq_head(void)
{
	return ozram_ring_read_sq_head(ozram_ring_mem());
}

void ozram_ring_copy_output(u32 slot, u32 len, void *dst)
{
	ozram_ring_read_output(ozram_ring_mem(), slot, len, dst);
}

const void *ozram_ring_output_data(u32 slot)
{
	return ozram_ring_output(ozram_ring_mem(), slot);
}

/* ---- staging ---------------------------------------------------------- */

/*
 * Copies @page into a free staging slot for @req and posts it for the agent
 * to compress.  A full ring closes admission for a written page that
 * admission let through; the writer counts what it does next.
 */
int ozram_ring_stage(struct ozram_ring_req *req, struct page *page)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_mem *a;
	struct ozram_ring_sqe sqe;
	int algorithm = req->algorithm;
	u32 slot, gen;
	void *src;

	if (!READ_ONCE(r->attached))
		return -ENODEV;

	spin_lock(&r->lock);
	if (!r->attached) {
		spin_unlock(&r->lock);
		return -ENODEV;
	}
	if (algorithm < 0 || !(r->agent_algorithms & BIT(algorithm)) ||
	    (req->level && !r->agent_levels)) {
		spin_unlock(&r->lock);
		ozram_ring_count(OZRAM_RING_STAT_UNSUPPORTED, 1);
		return -EOPNOTSUPP;
	}
	a = ozram_ring_mem();
	/* The agent's sq_head is only a hint: a bad one just means "full". */
	if (r->sq_tail - ozram_ring_read_sq_head(a) >= r->geo.sq_entries ||
	    !ozram_ring_slots_get(&r->slots, jiffies, algorithm, &slot, &gen)) {
		/* Writers stop trying until the agent drains (admission). */
		if (req->admission)
			ozram_ring_admit_close();
		spin_unlock(&r->lock);
		return -EBUSY;
	}
	req->ref.ring_slot = slot;
	req->ref.generation = gen;
	req->staged_ns = ozram_latency_ring_start();
	req->from_reclaim = current->flags & PF_MEMALLOC;
	r->reqs[slot] = *req;

	src = kmap_local_page(page);
	ozram_ring_write_staging(a, slot, src);
	kunmap_local(src);

	sqe.slot = slot;
	sqe.generation = gen;
	sqe.device_id = req->oz->id;
	sqe.flags = ozram_ring_sqe_flags(algorithm, req->level);
	ozram_ring_write_sqe(a, &r->geo, r->sq_tail, &sqe);
	/* ozram_ring_has_work() reads it without the lock. */
	WRITE_ONCE(r->sq_tail, r->sq_tail + 1);
	ozram_ring_publish_sq_tail(a, r->sq_tail);
	spin_unlock(&r->lock);

	ozram_ring_count(OZRAM_RING_STAT_SUBMITTED, 1);
	/*
	 * A busy agent is not asleep in poll(): no wake-up, and no lock of
	 * the wait queue.  wq_has_sleeper()'s barrier pairs with the one in
	 * ozram_ring_poll(), so that either it sees the agent waiting or the
	 * agent sees the new sq_tail.
	 */
	if (wq_has_sleeper(&r->wait))
		wake_up_interruptible(&r->wait);
	/*
	 * Queued already, or running: it queues itself again while a slot is
	 * in flight (ozram_ring_timeout_fn()), and a slot posted under the
	 * lock before it scans is one it sees.
	 */
	if (!delayed_work_pending(&r->timeout_work))
		queue_delayed_work(r->wq, &r->timeout_work,
				   ozram_ring_timeout());
	return 0;
}

bool ozram_ring_attached(void)
{
	return READ_ONCE(ozram_ring.attached);
}

u32 ozram_ring_capacity(void)
{
	return READ_ONCE(ozram_ring.slots.nr);
}

void ozram_ring_release(u32 slot)
{
	struct ozram_ring_state *r = &ozram_ring;

	if (WARN_ON_ONCE(slot >= r->slots.nr))
		return;
	spin_lock(&r->lock);
	if (!WARN_ON_ONCE(r->slots.states[slot] == OZRAM_RING_SLOT_FREE)) {
		ozram_ring_slots_put(&r->slots, slot);
		r->reqs[slot].ops = NULL;
		__clear_bit(slot, r->to_store);
		__clear_bit(slot, r->held);
	}
	spin_unlock(&r->lock);
}

void ozram_ring_forget(u32 slot)
{
	struct ozram_ring_state *r = &ozram_ring;

	if (WARN_ON_ONCE(slot >= r->slots.nr))
		return;
	spin_lock(&r->lock);
	ozram_ring_clear_staging(ozram_ring_mem(), slot);
	spin_unlock(&r->lock);
}

bool ozram_ring_stage_current(const struct ozram_stage_ref *ref)
{
	return ozram_ring_slots_current(&ozram_ring.slots, ref->ring_slot,
					ref->generation);
}

/*
 * A device slot lock is a bit spinlock, so its holder is an RCU reader;
 * an op runs under reap_mutex.
 */
const void *ozram_ring_staged_data(u32 slot)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_mem *a;

	a = rcu_dereference_check(r->mem, rcu_read_lock_sched_held() ||
				  lockdep_is_held(&r->reap_mutex));
	return ozram_ring_read_staging(a, array_index_nospec(slot,
							     r->slots.nr));
}

/* ---- completions ------------------------------------------------------ */

/*
 * Reaps every completion the agent published; reap_mutex held.  The agent's
 * doorbell passes !@may_reclaim (see ozram_ring_defer()).  Entries are
 * copied out and claimed OZRAM_RING_REAP_BATCH at a time, under one hold
 * of the ring lock, then checked and stored one by one without it.
 */
void ozram_ring_reap(bool may_reclaim)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_mem *a = ozram_ring_mem();
	u32 tail, n, batch, i, claimed;

	lockdep_assert_held(&r->reap_mutex);
	tail = ozram_ring_acquire_cq_tail(a);
	n = tail - r->cq_head;
	if (!n)
		return;
	if (n > r->geo.cq_entries) {
		/* A corrupt tail: skip to it; the pages will time out. */
		ozram_ring_count(OZRAM_RING_STAT_REJECTED, 1);
		r->cq_head = tail;
		ozram_ring_release_cq_head(a, r->cq_head);
		return;
	}
	while (n) {
		batch = min_t(u32, n, OZRAM_RING_REAP_BATCH);
		for (i = 0; i < batch; i++)
			ozram_ring_read_cqe(a, &r->geo, r->cq_head++,
					    &r->claims[i].cqe);
		/* Entries that claim nothing could be written to look alive. */
		claimed = ozram_ring_claim_batch(r->claims, batch);
		if (claimed)
			r->last_progress = jiffies;
		for (i = 0; i < batch; i++) {
			ozram_ring_complete(&r->claims[i], may_reclaim);
			cond_resched();
		}
		/*
		 * Claims are evidence that the agent drains, which a closed
		 * admission waits for; the slots they freed are back by now.
		 * Those that claim nothing are not: an agent that only feigns
		 * progress would reopen it each time its pages are taken back.
		 */
		if (claimed && !ozram_ring_admit_open()) {
			spin_lock(&r->lock);
			ozram_ring_admit_drained();
			spin_unlock(&r->lock);
		}
		n -= batch;
	}
	ozram_ring_release_cq_head(a, r->cq_head);
	ozram_ring_count(OZRAM_RING_STAT_BATCHES, 1);
}
