/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The offload ring's own state, shared by the files that implement it:
 *
 *   ozram_ring.c           parameters, memory, module load and unload,
 *                          statistics
 *   ozram_ring_queue.c     the protocol on the shared mapping: staging,
 *                          posting, reaping, attach and detach of the
 *                          queues (the only user of ozram_ring_mapping.h)
 *   ozram_ring_slots.c     the slot rules: free, in flight, kept,
 *                          generations, take-back, result checks
 *   ozram_ring_complete.c  completions: claim a batch, verify, hand the
 *                          outcome to the owner's ops
 *   ozram_ring_admit.c     admission: whether a written page is staged
 *   ozram_ring_worker.c    the time-out, store and held workers, take-back
 *   ozram_ring_dev.c       /dev/ozram-ring: open, mmap, poll, ioctl
 *
 * Locks, outermost first:
 *   (a device's init_lock: reset, and recompress while it waits for
 *   completions)
 *   attach_mutex  one agent at a time; held across a detach's drain
 *   reap_mutex    every op of a staging's owner, and device reset;
 *                 cq_head and the scratch buffers
 *   (a device slot lock, taken by the owners' ops)
 *   lock          slots, reqs, sq_tail, attached, to_store; closing
 *                 and reopening admission (admit_closed)
 */
#ifndef OZRAM_RING_INTERNAL_H
#define OZRAM_RING_INTERNAL_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <ozram_ring.h>

#include "ozram_drv.h"
#include "ozram_ring_api.h"
#include "ozram_ring_slots.h"

/*
 * One instance of the memory shared with the agent, with where each area
 * is.  An agent gets a fresh one when its predecessor's could still be
 * mapped or pinned by someone (ozram_ring_queues_attach()).
 */
struct ozram_ring_mem {
	void *base;			/* vmalloc_user(), mapping_size bytes */
	struct ozram_ring_ctrl *ctrl;
	struct ozram_ring_sqe *sq;
	struct ozram_ring_cqe *cq;
	u8 *output;
	u8 *staging;
};

/*
 * Completions claimed together under one hold of the ring lock: a private
 * copy of each entry, the slot rules' verdict and, for a claimed slot,
 * its request as it was at the claim.
 */
#define OZRAM_RING_REAP_BATCH	32

struct ozram_ring_claim {
	struct ozram_ring_cqe cqe;
	enum ozram_ring_verdict verdict;
	struct ozram_ring_req req;
};

struct ozram_ring_state {
	/*
	 * The shared memory; ozram_ring_mapping.h has every access to it.
	 * Replaced only with attach_mutex, reap_mutex and lock all held, so
	 * any of them keeps it; readers under none of them (a device slot
	 * lock, poll) are RCU readers.
	 */
	struct ozram_ring_mem __rcu *mem;
	struct ozram_ring_header geo;	/* private copy, never re-read */

	spinlock_t lock;		/* see the list above */
	struct ozram_ring_slots slots;
	/* Each slot's request; ops is NULL while the slot is free. */
	struct ozram_ring_req *reqs;
	u32 sq_tail;
	bool attached;
	struct pid *agent;	/* the attached agent's thread group */
	/* What it compresses: 1 << enum ozram_ring_algorithm each. */
	u32 agent_algorithms;
	/* Whether it compresses at each page's level (ABI 1.5). */
	bool agent_levels;
	/*
	 * Kept slots that store_work compresses and stores: taken back,
	 * drained, or deferred because storing them needed reclaim in the
	 * agent's context.
	 */
	unsigned long *to_store;
	/*
	 * Kept slots whose store failed (the held pages), from the first
	 * failure until the owner releases the slot (stored at last,
	 * rewritten, discarded).
	 */
	unsigned long *held;

	struct mutex reap_mutex;	/* see the list above */
	u32 cq_head;
	/*
	 * The agent's last progress: a completion that claimed a slot, or
	 * sq_head moved on towards sq_tail (ozram_ring_sq_head_advanced()).
	 */
	unsigned long last_progress;
	u32 seen_sq_head;
	struct ozram_ring_claim *claims;	/* OZRAM_RING_REAP_BATCH */
	void *copy_buf;		/* output bytes copied out of the mapping */
	void *decode_buf;	/* the decoding of copy_buf */

	struct mutex attach_mutex;	/* see the list above */
	bool opened;		/* /dev/ozram-ring has its one opener */
	/*
	 * Counts attaches; each file keeps the count of its own in
	 * private_data.  A file whose count is not this one was revoked.
	 */
	unsigned long attach_gen;
	bool registered;	/* /dev/ozram-ring exists */

	wait_queue_head_t wait;
	struct workqueue_struct *wq;
	struct delayed_work timeout_work;
	struct work_struct store_work;
	/*
	 * Queues the held pages for store_work again, while any stay held.
	 * held_delay is its last wait, in jiffies (only held_work uses it);
	 * held_anew says that a page was held for the first time since, and
	 * that the waits start again from the shortest.
	 */
	struct delayed_work held_work;
	unsigned long held_delay;
	u32 held_anew;		/* a word for xchg(), used as a bool */
	/*
	 * Admission (ozram_ring_admit.c).  Writers and the park workers
	 * read these without a lock: admit_closed and admit_closed_at (in
	 * jiffies) are changed under lock, admit_next_probe (in jiffies) by
	 * whichever writer wins its cmpxchg.
	 */
	bool admit_closed;
	unsigned long admit_closed_at;
	unsigned long admit_next_probe;
	/* The counters among the ring's numbers (gauges are computed). */
	atomic64_t stats[OZRAM_RING_NR_STATS];
};

extern struct ozram_ring_state ozram_ring;

static inline void ozram_ring_count(enum ozram_ring_stat stat, u32 n)
{
	atomic64_add(n, &ozram_ring.stats[stat]);
}

/* The shared memory, for code that holds attach_mutex, reap_mutex or lock. */
static inline struct ozram_ring_mem *ozram_ring_mem(void)
{
	return rcu_dereference_protected(ozram_ring.mem,
					 lockdep_is_held(&ozram_ring.lock) ||
					 lockdep_is_held(&ozram_ring.reap_mutex) ||
					 lockdep_is_held(&ozram_ring.attach_mutex));
}

/* ozram_ring.c: the parameters and the memory. */
bool ozram_ring_verify(void);
struct ozram_ring_mem *ozram_ring_mem_alloc(void);
void ozram_ring_mem_free(struct ozram_ring_mem *a);

/* ozram_ring_queue.c: the shared mapping. */
void ozram_ring_queues_init(struct ozram_ring_mem *a);
int ozram_ring_queues_attach(void);
void ozram_ring_queues_stop(void);
bool ozram_ring_has_work(void);
u32 ozram_ring_agent_sq_head(void);
void ozram_ring_copy_output(u32 slot, u32 len, void *dst);
/* Output slot @slot, for one copy of its bytes; reap_mutex held. */
const void *ozram_ring_output_data(u32 slot);
void ozram_ring_reap(bool may_reclaim);

/* ozram_ring_complete.c */
u32 ozram_ring_claim_batch(struct ozram_ring_claim *claims, u32 n);
void ozram_ring_complete(const struct ozram_ring_claim *claim,
			 bool may_reclaim);
void ozram_ring_fail(const struct ozram_ring_req *req, bool may_reclaim);

/* ozram_ring_admit.c: lock held */
void ozram_ring_admit_close(void);
void ozram_ring_admit_drained(void);
void ozram_ring_admit_reset(void);

/* ozram_ring_worker.c */
void ozram_ring_defer(u32 slot);
bool ozram_ring_take_back(bool all, enum ozram_ring_stat counter);
void ozram_ring_timeout_fn(struct work_struct *work);
void ozram_ring_store_fn(struct work_struct *work);
void ozram_ring_held(const struct ozram_stage_ref *ref);
void ozram_ring_held_fn(struct work_struct *work);

/* ozram_ring_dev.c */
int ozram_ring_dev_register(void);
void ozram_ring_dev_unregister(void);

#endif /* OZRAM_RING_INTERNAL_H */
