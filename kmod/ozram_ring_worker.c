// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: the three workers, on one WQ_MEM_RECLAIM workqueue.
 * The time-out worker reaps what the agent posted without a doorbell and
 * takes back the pages it held too long; the store worker hands to their
 * owners' ->failed, one page per hold of reap_mutex, the pages taken back,
 * drained, deferred because storing them needed reclaim in the agent's
 * context, or held because storing them failed; the held worker queues
 * the held pages for it again, while any stay held.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/sched.h>

#include "ozram_drv.h"
#include "ozram_latency.h"
#include "ozram_ring_internal.h"
#include "ozram_trace.h"

/*
 * In the agent's context storage that needs reclaim is not waited for: the
 * agent serves the memory pressure that reclaim would wait on.  The slot
 * goes to the store worker, whose ->failed compresses the staged copy again
 * and may reclaim.
 */
void ozram_ring_defer(u32 slot)
{
	struct ozram_ring_state *r = &ozram_ring;

	spin_lock(&r->lock);
	__set_bit(slot, r->to_store);
	spin_unlock(&r->lock);
	ozram_ring_count(OZRAM_RING_STAT_DEFERRED, 1);
	queue_work(r->wq, &r->store_work);
}

/*
 * Takes back the slots in flight (all of them, or those past the age the
 * slot rules give): they leave flight at once, and the store worker
 * hands them to their owners, one at a time, so that the agent's
 * doorbell never waits for a whole pass.  reap_mutex held.
 * Return: whether slots remain in flight.
 */
bool ozram_ring_take_back(bool all, enum ozram_ring_stat counter)
{
	struct ozram_ring_state *r = &ozram_ring;
	unsigned long now = jiffies, age = 0;
	bool pending = false;
	u32 slot, n = 0, head;

	lockdep_assert_held(&r->reap_mutex);
	/* The agent moving sq_head on is progress too: it took pages. */
	head = ozram_ring_agent_sq_head();
	if (ozram_ring_sq_head_advanced(r->seen_sq_head, head,
					READ_ONCE(r->sq_tail))) {
		r->seen_sq_head = head;
		r->last_progress = now;
	}
	if (!all)
		age = ozram_ring_take_back_age(now, r->last_progress,
					       ozram_ring_timeout());
	spin_lock(&r->lock);
	for (slot = 0; slot < r->slots.nr; slot++) {
		switch (ozram_ring_slots_take_back(&r->slots, slot, now, age)) {
		case OZRAM_RING_TAKEN_BACK:
			ozram_latency_ring_taken_back(r->reqs[slot].oz,
						      r->reqs[slot].index, slot,
						      all, r->reqs[slot].staged_ns);
			__set_bit(slot, r->to_store);
			n++;
			break;
		case OZRAM_RING_LEFT_IN_FLIGHT:
			pending = true;
			break;
		case OZRAM_RING_NOT_IN_FLIGHT:
			break;
		}
	}
	spin_unlock(&r->lock);
	if (all)
		trace_ozram_drain(n);
	if (n) {
		ozram_ring_count(counter, n);
		queue_work(r->wq, &r->store_work);
	}
	return pending;
}

void ozram_ring_timeout_fn(struct work_struct *work)
{
	struct ozram_ring_state *r = &ozram_ring;
	bool pending;

	mutex_lock(&r->reap_mutex);
	/* Completions the agent posted without a doorbell count first. */
	ozram_ring_reap(true);
	pending = ozram_ring_take_back(false, OZRAM_RING_STAT_TIMEOUTS);
	mutex_unlock(&r->reap_mutex);
	if (pending)
		queue_delayed_work(r->wq, &r->timeout_work,
				   ozram_ring_timeout() / 2 + 1);
}

/* Hands the slots queued in to_store to their owners, one at a time. */
void ozram_ring_store_fn(struct work_struct *work)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_req req;
	bool kept;
	u32 slot;

	for (;;) {
		/* Dropped between slots: the agent's doorbell needs it too. */
		mutex_lock(&r->reap_mutex);
		spin_lock(&r->lock);
		slot = find_first_bit(r->to_store, r->slots.nr);
		if (slot >= r->slots.nr) {
			spin_unlock(&r->lock);
			mutex_unlock(&r->reap_mutex);
			return;
		}
		__clear_bit(slot, r->to_store);
		/* Released slots leave the bitmap: this is still the page. */
		kept = r->slots.states[slot] == OZRAM_RING_SLOT_KEPT &&
		       r->reqs[slot].ops;
		req = r->reqs[slot];
		spin_unlock(&r->lock);
		if (kept)
			ozram_ring_fail(&req, true);
		mutex_unlock(&r->reap_mutex);
		cond_resched();
	}
}

/*
 * Marks for store_work the held pages of @oz (of every device if NULL).
 * Under reap_mutex, so that none is in the middle of an op.  Return: how
 * many are held, those queued already included: they stay held until
 * their store succeeds, and the held worker tries them until then.
 */
static u32 ozram_ring_mark_held(const struct ozram *oz)
{
	struct ozram_ring_state *r = &ozram_ring;
	u32 slot, n = 0;

	mutex_lock(&r->reap_mutex);
	spin_lock(&r->lock);
	for_each_set_bit(slot, r->held, r->slots.nr) {
		if (!oz || r->reqs[slot].oz == oz) {
			__set_bit(slot, r->to_store);
			n++;
		}
	}
	spin_unlock(&r->lock);
	mutex_unlock(&r->reap_mutex);
	return n;
}

void ozram_ring_retry_held(struct ozram *oz)
{
	lockdep_assert_not_held(&oz->init_lock);
	if (ozram_ring_mark_held(oz))
		queue_work(ozram_ring.wq, &ozram_ring.store_work);
}

/*
 * The first try after a page is held, and the longest wait between tries
 * while pages stay held.  The ring cannot see memory come back (another
 * device's pages freed, reclaim), so it tries on a clock, and the wait
 * doubles, so that a device that stays at mem_limit compresses its held
 * pages again only now and then.  A page held for the first time starts
 * the waits again: it is tried within a second, whatever the others wait,
 * and so are they; a device that keeps holding new pages keeps every
 * held page on a clock of a second or two.
 */
#define OZRAM_RING_HELD_FIRST	HZ
#define OZRAM_RING_HELD_LONGEST	(64 * HZ)

/*
 * The owner of staging @ref could not store its page: it is held, and
 * tried again later.  The page may have been rewritten since the op and
 * its slot released, or staged anew: only a slot still of @ref is marked.
 */
void ozram_ring_held(const struct ozram_stage_ref *ref)
{
	struct ozram_ring_state *r = &ozram_ring;
	u32 slot = ref->ring_slot;
	bool first = false;

	spin_lock(&r->lock);
	if (r->reqs[slot].ops &&
	    ozram_ring_slots_current(&r->slots, slot, ref->generation))
		first = !__test_and_set_bit(slot, r->held);
	spin_unlock(&r->lock);
	/* A slot held already is the worker's: it tries until none is. */
	if (!first)
		return;
	/* Set before the timer moves, so that the run it brings sees it. */
	WRITE_ONCE(r->held_anew, 1);
	/*
	 * A first hold brings the next try forward to a second from now, but
	 * never puts it off: pages held anew less than a second apart must
	 * not keep every try away.
	 */
	if (!delayed_work_pending(&r->held_work))
		queue_delayed_work(r->wq, &r->held_work, OZRAM_RING_HELD_FIRST);
	else if (time_after(READ_ONCE(r->held_work.timer.expires),
			    jiffies + OZRAM_RING_HELD_FIRST))
		mod_delayed_work(r->wq, &r->held_work, OZRAM_RING_HELD_FIRST);
}

void ozram_ring_held_fn(struct work_struct *work)
{
	struct ozram_ring_state *r = &ozram_ring;

	if (xchg(&r->held_anew, 0))
		r->held_delay = 0;
	if (!ozram_ring_mark_held(NULL)) {
		r->held_delay = 0;
		return;
	}
	/*
	 * Queued again before the stores, so that a page that fails in them
	 * again finds this work pending and leaves the wait as it is: it
	 * doubles until a try finds no page held, or one is held anew.
	 */
	r->held_delay = clamp_t(unsigned long, 2 * r->held_delay,
				2 * OZRAM_RING_HELD_FIRST,
				OZRAM_RING_HELD_LONGEST);
	queue_delayed_work(r->wq, &r->held_work, r->held_delay);
	queue_work(r->wq, &r->store_work);
}
