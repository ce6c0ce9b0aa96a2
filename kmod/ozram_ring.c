// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: /dev/ozram-ring, write-behind staging, completions,
 * time-outs and take-back.  The ABI is shared/ozram_ring.h; the design and
 * the locking rules are in Documentation/kmod.md, "The offload ring".
 *
 * One ring serves every device.  The kernel is the producer: it copies a
 * written page into a staging slot, posts a submission and completes the
 * write at once; the agent compresses staging slot i into output slot i and
 * posts a completion.  Nothing the agent writes is trusted: every
 * completion is copied field by field and checked, its bytes are copied
 * out of the mapping before use and (with verify=1) decoded and compared
 * with the staged copy.  Whatever fails, the kernel compresses the staged
 * copy itself, so a written page is never lost.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/jiffies.h>
#include <linux/lz4.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/zsmalloc.h>

#include <ozram_ring.h>

#include "ozram_drv.h"
#include "ozram_offload.h"
#include "ozram_slot.h"

static unsigned int ring_slots = 1024;
module_param(ring_slots, uint, 0444);
MODULE_PARM_DESC(ring_slots,
		 "Staging slots of the offload ring (power of two, 1..32768)");

static unsigned int ring_timeout_ms = 1000;
module_param(ring_timeout_ms, uint, 0644);
MODULE_PARM_DESC(ring_timeout_ms,
		 "Milliseconds without progress from the agent before the kernel compresses the pages it holds (min 10)");

/*
 * A page is taken back after ring_timeout_ms when the agent made no
 * progress in that time, and after this many times ring_timeout_ms even
 * when it did: an agent that answers for some pages and never for others.
 */
#define OZRAM_RING_HARD_TIMEOUTS 8

static bool verify = true;
module_param(verify, bool, 0644);
MODULE_PARM_DESC(verify,
		 "Decode every page the agent compressed and compare it with the staged copy");

enum ozram_rslot_state {
	OZRAM_RSLOT_FREE,	/* on the free stack */
	OZRAM_RSLOT_INFLIGHT,	/* posted; the agent may complete it */
	OZRAM_RSLOT_KERNEL,	/* the kernel is storing it, or keeps it */
};

/* Kernel-private state of one staging slot; never visible to the agent. */
struct ozram_rslot {
	struct ozram *oz;
	u32 index;		/* page of @oz staged here */
	u32 stage_gen;		/* generation posted in the SQ entry */
	unsigned long posted;	/* jiffies, for the time-out */
	u8 state;		/* enum ozram_rslot_state */
};

struct ozram_ring_counters {
	atomic64_t submitted;
	atomic64_t completed;
	atomic64_t rejected;
	atomic64_t timeouts;
	atomic64_t inline_fallbacks;
	atomic64_t batches;
	atomic64_t stale;
	atomic64_t verify_failures;
	atomic64_t agent_errors;
	atomic64_t drained;
	atomic64_t deferred;
};

struct ozram_ring_state {
	/* The shared mapping and where its areas are, from our own header. */
	void *mem;
	struct ozram_ring_header geo;	/* private copy, never re-read */
	struct ozram_ring_ctrl *ctrl;
	struct ozram_ring_sqe *sq;
	struct ozram_ring_cqe *cq;
	u8 *output;
	u8 *staging;
	u32 slots;

	/*
	 * lock: slot states, generations, the free stack, the SQ tail and
	 * attached.  Taken inside a device slot lock, never the other way.
	 */
	spinlock_t lock;
	u32 *generations;
	struct ozram_rslot *rslots;
	u32 *free_stack;
	u32 nr_free;
	u32 sq_tail;
	bool attached;
	pid_t agent_pid;

	/*
	 * reap_mutex: serialises everything that turns a slot into stored
	 * data outside the write path (completions, time-outs, drains) and
	 * device reset/removal, so a device cannot vanish under them.  Also
	 * guards cq_head and the scratch buffers.
	 */
	struct mutex reap_mutex;
	u32 cq_head;
	/* Progress of the agent: a completion reaped or sq_head moved. */
	unsigned long last_progress;
	u32 seen_sq_head;
	void *copy_buf;		/* output bytes copied out of the mapping */
	void *decode_buf;	/* LZ4 decoding of copy_buf */
	/*
	 * KERNEL slots that store_work compresses and stores, one per hold
	 * of reap_mutex: taken back, drained, or deferred because storing
	 * them needed reclaim in the agent's context.  Under lock.
	 */
	unsigned long *to_store;
	struct work_struct store_work;

	bool registered;	/* /dev/ozram-ring exists */
	/* At most one opener: the agent. */
	atomic_t opened;
	/* The opener's file is being released (its pages drained). */
	bool releasing;
	wait_queue_head_t wait;
	struct workqueue_struct *wq;
	struct delayed_work timeout_work;
	struct ozram_ring_counters cnt;
};

static struct ozram_ring_state ring;

static inline void *ring_slot_addr(u8 *area, u32 slot)
{
	return area + (size_t)slot * PAGE_SIZE;
}

static unsigned long ring_timeout_jiffies(void)
{
	return msecs_to_jiffies(max(READ_ONCE(ring_timeout_ms), 10U));
}

/* ---- staging (write path) ------------------------------------------- */

int ozram_ring_stage(struct ozram *oz, u32 index, struct page *page)
{
	struct ozram_ring_sqe *sqe;
	struct ozram_rslot *rs;
	u32 slot, gen;
	void *src;

	if (!READ_ONCE(ring.attached))
		return -ENODEV;

	ozram_slot_lock(oz, index);
	spin_lock(&ring.lock);
	if (!ring.attached) {
		spin_unlock(&ring.lock);
		ozram_slot_unlock(oz, index);
		return -ENODEV;
	}
	/* The agent's sq_head is only a hint: a bad one just means "full". */
	if (!ring.nr_free ||
	    ring.sq_tail - READ_ONCE(ring.ctrl->sq_head.value) >=
	    ring.geo.sq_entries) {
		spin_unlock(&ring.lock);
		ozram_slot_unlock(oz, index);
		atomic64_inc(&ring.cnt.inline_fallbacks);
		return -EBUSY;
	}
	slot = ring.free_stack[--ring.nr_free];
	gen = ++ring.generations[slot];
	rs = &ring.rslots[slot];
	rs->oz = oz;
	rs->index = index;
	rs->stage_gen = gen;
	rs->posted = jiffies;
	rs->state = OZRAM_RSLOT_INFLIGHT;

	src = kmap_local_page(page);
	memcpy(ring_slot_addr(ring.staging, slot), src, PAGE_SIZE);
	kunmap_local(src);

	sqe = &ring.sq[ring.sq_tail & (ring.geo.sq_entries - 1)];
	WRITE_ONCE(sqe->slot, slot);
	WRITE_ONCE(sqe->generation, gen);
	WRITE_ONCE(sqe->device_id, oz->id);
	WRITE_ONCE(sqe->flags, 0);
	ring.sq_tail++;
	/* Publishes the entry and the staged page before the new tail. */
	smp_store_release(&ring.ctrl->sq_tail.value, ring.sq_tail);
	spin_unlock(&ring.lock);

	/* Replace the old content; it may be staged itself (another slot). */
	ozram_free_slot(oz, index);
	ozram_set_flag(oz, index, OZRAM_SLOT_STAGED);
	oz->table[index].handle = slot;
	ozram_slot_unlock(oz, index);

	atomic64_inc(&oz->stats.pages_stored);
	atomic64_inc(&oz->stats.staged_pages);
	atomic64_inc(&ring.cnt.submitted);
	wake_up_interruptible(&ring.wait);
	queue_delayed_work(ring.wq, &ring.timeout_work, ring_timeout_jiffies());
	return 0;
}

void ozram_ring_release(u32 slot)
{
	if (WARN_ON_ONCE(slot >= ring.slots))
		return;
	spin_lock(&ring.lock);
	if (!WARN_ON_ONCE(ring.rslots[slot].state == OZRAM_RSLOT_FREE)) {
		/* Whatever the agent still posts for it is now stale. */
		ring.generations[slot]++;
		ring.rslots[slot].state = OZRAM_RSLOT_FREE;
		ring.rslots[slot].oz = NULL;
		__clear_bit(slot, ring.to_store);
		ring.free_stack[ring.nr_free++] = slot;
	}
	spin_unlock(&ring.lock);
}

/*
 * The caller holds the lock of the device slot that points at ref's ring
 * slot, so the ring slot can be neither released nor staged again.
 */
bool ozram_ring_stage_current(const struct ozram_stage_ref *ref)
{
	return ref->ring_slot < ring.slots &&
	       READ_ONCE(ring.rslots[ref->ring_slot].stage_gen) ==
	       ref->generation;
}

const void *ozram_ring_staged_data(u32 slot)
{
	return ring_slot_addr(ring.staging, slot);
}

void ozram_ring_lock_devices(void)
{
	mutex_lock(&ring.reap_mutex);
}

void ozram_ring_unlock_devices(void)
{
	mutex_unlock(&ring.reap_mutex);
}

/* ---- storing staged pages (reap_mutex held) ------------------------- */

/*
 * In the agent's context (@may_reclaim false) storage that needs reclaim is
 * not waited for: the agent serves the memory pressure that reclaim would
 * wait on.  The slot goes to store_work, on the WQ_MEM_RECLAIM workqueue,
 * which compresses the staged copy again and may reclaim.
 */
static void ozram_ring_defer(u32 slot)
{
	spin_lock(&ring.lock);
	__set_bit(slot, ring.to_store);
	spin_unlock(&ring.lock);
	atomic64_inc(&ring.cnt.deferred);
	queue_work(ring.wq, &ring.store_work);
}

/*
 * The kernel compresses the staged copy itself.  A failure (mem_limit,
 * no memory) leaves the page in its staging slot, still readable, until it
 * is overwritten, discarded, the device is reset, or mem_limit is written
 * (ozram_ring_retry_held() tries again): nothing is lost.
 */
static void ozram_ring_store_inline(u32 slot, const struct ozram_rslot *rs,
				    bool may_reclaim)
{
	struct ozram_stage_ref ref = { slot, rs->stage_gen };
	void *data = ring_slot_addr(ring.staging, slot);
	int ret;

	ret = ozram_store_staged_inline(rs->oz, rs->index,
					vmalloc_to_page(data), may_reclaim,
					&ref);
	if (ret == -ESTALE)
		atomic64_inc(&ring.cnt.stale);
	else if (ret == -EAGAIN)
		ozram_ring_defer(slot);
}

static bool page_is_filled_with(const void *page, u64 fill)
{
	const u64 *words = page;
	unsigned int i;

	for (i = 0; i < PAGE_SIZE / sizeof(u64); i++)
		if (words[i] != fill)
			return false;
	return true;
}

/* Checks and stores an accepted completion; false if it must be redone. */
static bool ozram_ring_store_result(u32 slot, const struct ozram_rslot *rs,
				    const struct ozram_ring_cqe *cqe,
				    bool may_reclaim)
{
	struct ozram_stage_ref ref = { slot, rs->stage_gen };
	const void *staged = ring_slot_addr(ring.staging, slot);
	/* The flag is the agent's word: it only picks a counter. */
	enum ozram_source source = cqe->flags & OZRAM_RING_CQE_F_GPU ?
				   OZRAM_SRC_AGENT_GPU : OZRAM_SRC_AGENT_CPU;
	bool check = READ_ONCE(verify);
	int ret, len;

	switch (cqe->encoding) {
	case OZRAM_RING_ENC_LZ4:
		/* Copy once: the agent may change the output slot any time. */
		memcpy(ring.copy_buf, ring_slot_addr(ring.output, slot),
		       cqe->length);
		if (check) {
			len = LZ4_decompress_safe(ring.copy_buf,
						  ring.decode_buf,
						  cqe->length, PAGE_SIZE);
			if (len != PAGE_SIZE ||
			    memcmp(ring.decode_buf, staged, PAGE_SIZE))
				return false;
		}
		if (cqe->length >= ozram_huge_class_size)
			ret = ozram_store_staged_compressed(rs->oz, rs->index,
							    staged, PAGE_SIZE,
							    source, may_reclaim,
							    &ref);
		else
			ret = ozram_store_staged_compressed(rs->oz, rs->index,
							    ring.copy_buf,
							    cqe->length,
							    source, may_reclaim,
							    &ref);
		break;
	case OZRAM_RING_ENC_RAW:
		if (check && memcmp(ring_slot_addr(ring.output, slot), staged,
				    PAGE_SIZE))
			return false;
		/* The staged copy is the page: store that, not the output. */
		ret = ozram_store_staged_compressed(rs->oz, rs->index, staged,
						    PAGE_SIZE, source,
						    may_reclaim, &ref);
		break;
	case OZRAM_RING_ENC_SAME_FILLED:
		/* A slot keeps an unsigned long: a wider word would be cut. */
		if (cqe->fill != (unsigned long)cqe->fill)
			return false;
		if (check && !page_is_filled_with(staged, cqe->fill))
			return false;
		ret = ozram_store_staged_same(rs->oz, rs->index,
					      (unsigned long)cqe->fill, &ref);
		break;
	default:
		return false;
	}
	if (ret == -ESTALE)
		atomic64_inc(&ring.cnt.stale);
	else if (ret == -EAGAIN)
		ozram_ring_defer(slot);
	else if (!ret)
		atomic64_inc(&ring.cnt.completed);
	return true;
}

/*
 * Whether the page of @rs was overwritten or discarded since its completion
 * was accepted: its ring slot was freed and maybe staged again, so the
 * staged bytes a check compared may be another page's.  Staging writes a
 * slot under ring.lock, so with the lock held a copy that the check may have
 * seen is complete and its new generation visible.
 */
static bool ozram_ring_superseded(u32 slot, const struct ozram_rslot *rs)
{
	bool superseded;

	spin_lock(&ring.lock);
	superseded = ring.rslots[slot].state != OZRAM_RSLOT_KERNEL ||
		     ring.rslots[slot].stage_gen != rs->stage_gen;
	spin_unlock(&ring.lock);
	return superseded;
}

/* One completion, already copied out of the mapping. */
static void ozram_ring_handle_cqe(const struct ozram_ring_cqe *cqe,
				  bool may_reclaim)
{
	enum ozram_ring_verdict verdict;
	struct ozram_rslot rs;

	spin_lock(&ring.lock);
	verdict = ozram_ring_check_cqe(cqe, ring.slots,
				       ring.geo.huge_threshold,
				       ring.generations);
	if (verdict != OZRAM_RING_BAD_SLOT && verdict != OZRAM_RING_STALE &&
	    ring.rslots[cqe->slot].state != OZRAM_RSLOT_INFLIGHT)
		verdict = OZRAM_RING_STALE;	/* a repeat */
	if (verdict == OZRAM_RING_BAD_SLOT || verdict == OZRAM_RING_STALE) {
		spin_unlock(&ring.lock);
		atomic64_inc(verdict == OZRAM_RING_STALE ? &ring.cnt.stale :
			     &ring.cnt.rejected);
		return;
	}
	/* The slot leaves flight: later completions for it are stale. */
	ring.generations[cqe->slot]++;
	ring.rslots[cqe->slot].state = OZRAM_RSLOT_KERNEL;
	rs = ring.rslots[cqe->slot];
	spin_unlock(&ring.lock);

	if (verdict != OZRAM_RING_OK) {
		atomic64_inc(&ring.cnt.rejected);
	} else if (cqe->status != OZRAM_RING_STATUS_OK) {
		atomic64_inc(&ring.cnt.agent_errors);
	} else {
		if (ozram_ring_store_result(cqe->slot, &rs, cqe, may_reclaim))
			return;
		if (ozram_ring_superseded(cqe->slot, &rs)) {
			/* Not the agent's fault: the page changed under the check. */
			atomic64_inc(&ring.cnt.stale);
			return;
		}
		atomic64_inc(&ring.cnt.rejected);
		atomic64_inc(&ring.cnt.verify_failures);
	}
	ozram_ring_store_inline(cqe->slot, &rs, may_reclaim);
}

/*
 * Reaps every completion the agent published; reap_mutex held.  The agent's
 * doorbell passes !@may_reclaim (see ozram_ring_defer()).
 */
static void ozram_ring_reap(bool may_reclaim)
{
	struct ozram_ring_cqe cqe, *shared;
	u32 tail, n;

	lockdep_assert_held(&ring.reap_mutex);
	/* Pairs with the agent's release: entries and output are visible. */
	tail = smp_load_acquire(&ring.ctrl->cq_tail.value);
	n = tail - ring.cq_head;
	if (!n)
		return;
	if (n > ring.geo.cq_entries) {
		/* A corrupt tail: skip to it; the pages will time out. */
		atomic64_inc(&ring.cnt.rejected);
		ring.cq_head = tail;
		/* Entries were read: the agent may reuse them. */
		smp_store_release(&ring.ctrl->cq_head.value, ring.cq_head);
		return;
	}
	ring.last_progress = jiffies;
	while (n--) {
		shared = &ring.cq[ring.cq_head & (ring.geo.cq_entries - 1)];
		cqe.slot = READ_ONCE(shared->slot);
		cqe.generation = READ_ONCE(shared->generation);
		cqe.status = READ_ONCE(shared->status);
		cqe.encoding = READ_ONCE(shared->encoding);
		cqe.length = READ_ONCE(shared->length);
		cqe.flags = READ_ONCE(shared->flags);
		cqe.fill = READ_ONCE(shared->fill);
		ring.cq_head++;
		ozram_ring_handle_cqe(&cqe, may_reclaim);
		cond_resched();
	}
	/* Entries were read: the agent may reuse them. */
	smp_store_release(&ring.ctrl->cq_head.value, ring.cq_head);
	atomic64_inc(&ring.cnt.batches);
}

/*
 * Takes back the slots in flight (all of them, or those past the time-out,
 * see OZRAM_RING_HARD_TIMEOUTS): they leave flight at once, and store_work
 * compresses them in the kernel, one at a time, so that the agent's doorbell
 * never waits for a whole pass.  reap_mutex held.
 * Return: whether slots remain in flight.
 */
static bool ozram_ring_take_back(bool all, atomic64_t *counter)
{
	unsigned long timeout = ring_timeout_jiffies();
	unsigned long deadline = timeout;
	bool pending = false;
	u32 slot, n = 0, head;

	lockdep_assert_held(&ring.reap_mutex);
	/* The agent moving sq_head is progress too: it took pages. */
	head = READ_ONCE(ring.ctrl->sq_head.value);
	if (head != ring.seen_sq_head) {
		ring.seen_sq_head = head;
		ring.last_progress = jiffies;
	}
	/* A slow agent that keeps answering is waited for, up to a point. */
	if (time_before(jiffies, ring.last_progress + timeout))
		deadline = timeout * OZRAM_RING_HARD_TIMEOUTS;
	spin_lock(&ring.lock);
	for (slot = 0; slot < ring.slots; slot++) {
		struct ozram_rslot *r = &ring.rslots[slot];

		if (r->state != OZRAM_RSLOT_INFLIGHT)
			continue;
		if (!all && time_before(jiffies, r->posted + deadline)) {
			pending = true;
			continue;
		}
		ring.generations[slot]++;
		r->state = OZRAM_RSLOT_KERNEL;
		__set_bit(slot, ring.to_store);
		n++;
	}
	spin_unlock(&ring.lock);
	if (n) {
		atomic64_add(n, counter);
		queue_work(ring.wq, &ring.store_work);
	}
	return pending;
}

static void ozram_ring_timeout_fn(struct work_struct *work)
{
	bool pending;

	mutex_lock(&ring.reap_mutex);
	/* Completions the agent posted without a doorbell count first. */
	ozram_ring_reap(true);
	pending = ozram_ring_take_back(false, &ring.cnt.timeouts);
	mutex_unlock(&ring.reap_mutex);
	if (pending)
		queue_delayed_work(ring.wq, &ring.timeout_work,
				   ring_timeout_jiffies() / 2 + 1);
}

/* Stores the slots queued in to_store, one at a time. */
static void ozram_ring_store_fn(struct work_struct *work)
{
	struct ozram_rslot rs;
	u32 slot;

	for (;;) {
		/* Dropped between slots: the agent's doorbell needs it too. */
		mutex_lock(&ring.reap_mutex);
		spin_lock(&ring.lock);
		slot = find_first_bit(ring.to_store, ring.slots);
		if (slot < ring.slots) {
			__clear_bit(slot, ring.to_store);
			rs = ring.rslots[slot];
		}
		spin_unlock(&ring.lock);
		if (slot >= ring.slots) {
			mutex_unlock(&ring.reap_mutex);
			return;
		}
		/* Released slots leave the bitmap: this is still the page. */
		if (rs.state == OZRAM_RSLOT_KERNEL && rs.oz)
			ozram_ring_store_inline(slot, &rs, true);
		mutex_unlock(&ring.reap_mutex);
		cond_resched();
	}
}

void ozram_ring_retry_held(struct ozram *oz)
{
	u32 slot, n = 0;

	/*
	 * Stores run under reap_mutex, so with it held a slot the kernel
	 * keeps and that waits for no store is one whose store failed.
	 */
	mutex_lock(&ring.reap_mutex);
	spin_lock(&ring.lock);
	for (slot = 0; slot < ring.slots; slot++) {
		if (ring.rslots[slot].state == OZRAM_RSLOT_KERNEL &&
		    ring.rslots[slot].oz == oz &&
		    !test_bit(slot, ring.to_store)) {
			__set_bit(slot, ring.to_store);
			n++;
		}
	}
	spin_unlock(&ring.lock);
	mutex_unlock(&ring.reap_mutex);
	if (n)
		queue_work(ring.wq, &ring.store_work);
}

/*
 * The agent leaves (ioctl or close): no new pages, take back the rest for
 * store_work.  In the agent's context, so what needs reclaim is deferred.
 */
static void ozram_ring_detach(void)
{
	mutex_lock(&ring.reap_mutex);
	spin_lock(&ring.lock);
	ring.attached = false;
	ring.agent_pid = 0;
	WRITE_ONCE(ring.ctrl->flags.value,
		   OZRAM_RING_F_NEED_WAKEUP | OZRAM_RING_F_STOPPING);
	spin_unlock(&ring.lock);
	ozram_ring_reap(false);
	ozram_ring_take_back(true, &ring.cnt.drained);
	mutex_unlock(&ring.reap_mutex);
	wake_up_interruptible(&ring.wait);
}

/* ---- /dev/ozram-ring ------------------------------------------------ */

static int ozram_ring_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	while (atomic_cmpxchg(&ring.opened, 0, 1)) {
		/*
		 * A live agent has the ring: EBUSY.  The last agent's file is
		 * being released (a restart after a crash): wait until its
		 * pages are drained instead of failing.  The acquire pairs
		 * with the release in ozram_ring_release_file().
		 */
		if (!smp_load_acquire(&ring.releasing)) {
			if (atomic_read(&ring.opened))
				return -EBUSY;
			continue;
		}
		if (wait_event_interruptible(ring.wait,
					     !atomic_read(&ring.opened)))
			return -ERESTARTSYS;
	}

	mutex_lock(&ring.reap_mutex);
	spin_lock(&ring.lock);
	/*
	 * Start clean: whatever an old agent left in the queues is stale, and
	 * the header page it could write to is the kernel's again.
	 */
	*(struct ozram_ring_header *)ring.mem = ring.geo;
	WRITE_ONCE(ring.ctrl->sq_tail.value, ring.sq_tail);
	WRITE_ONCE(ring.ctrl->sq_head.value, ring.sq_tail);
	WRITE_ONCE(ring.ctrl->cq_tail.value, ring.cq_head);
	WRITE_ONCE(ring.ctrl->cq_head.value, ring.cq_head);
	/* The kernel does not poll the CQ: the agent rings the doorbell. */
	WRITE_ONCE(ring.ctrl->flags.value, OZRAM_RING_F_NEED_WAKEUP);
	ring.agent_pid = task_tgid_vnr(current);
	ring.last_progress = jiffies;
	ring.seen_sq_head = READ_ONCE(ring.ctrl->sq_head.value);
	ring.attached = true;
	spin_unlock(&ring.lock);
	mutex_unlock(&ring.reap_mutex);
	pr_info("agent %d attached to the offload ring\n", ring.agent_pid);
	return 0;
}

static int ozram_ring_release_file(struct inode *inode, struct file *file)
{
	pid_t pid = ring.agent_pid;

	WRITE_ONCE(ring.releasing, true);
	if (READ_ONCE(ring.attached)) {
		ozram_ring_detach();
		pr_info("agent %d detached from the offload ring\n", pid);
	}
	atomic_set(&ring.opened, 0);
	/* An opener that sees releasing clear also sees opened clear. */
	smp_store_release(&ring.releasing, false);
	wake_up_interruptible(&ring.wait);
	return 0;
}

static bool ozram_ring_has_work(void)
{
	u32 flags = READ_ONCE(ring.ctrl->flags.value);
	u32 tail;

	/* Pairs with the release in ozram_ring_stage(). */
	tail = smp_load_acquire(&ring.ctrl->sq_tail.value);
	return READ_ONCE(ring.ctrl->sq_head.value) != tail ||
	       (flags & OZRAM_RING_F_STOPPING);
}

static __poll_t ozram_ring_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &ring.wait, wait);
	if (!READ_ONCE(ring.attached))
		return EPOLLHUP;
	if (ozram_ring_has_work())
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

/* Waits for work; returns the SQ entries pending as a u32. */
static ssize_t ozram_ring_read(struct file *file, char __user *buf,
			       size_t count, loff_t *ppos)
{
	u32 pending;
	int ret;

	if (count < sizeof(pending))
		return -EINVAL;
	if (!READ_ONCE(ring.attached))
		return 0;
	if (!ozram_ring_has_work()) {
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(ring.wait,
					       ozram_ring_has_work() ||
					       !READ_ONCE(ring.attached));
		if (ret)
			return ret;
		/* Woken because the agent detached: end of file. */
		if (!READ_ONCE(ring.attached))
			return 0;
	}
	pending = READ_ONCE(ring.ctrl->sq_tail.value) -
		  READ_ONCE(ring.ctrl->sq_head.value);
	if (copy_to_user(buf, &pending, sizeof(pending)))
		return -EFAULT;
	return sizeof(pending);
}

static void ozram_ring_complete(void)
{
	mutex_lock(&ring.reap_mutex);
	if (ring.attached)
		ozram_ring_reap(false);
	mutex_unlock(&ring.reap_mutex);
}

/* Any write is the completion doorbell; its bytes are ignored. */
static ssize_t ozram_ring_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	ozram_ring_complete();
	return count;
}

static long ozram_ring_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	switch (cmd) {
	case OZRAM_RING_IOC_COMPLETE:
		ozram_ring_complete();
		return 0;
	case OZRAM_RING_IOC_DETACH:
		if (READ_ONCE(ring.attached)) {
			pr_info("agent %d detached from the offload ring\n",
				ring.agent_pid);
			ozram_ring_detach();
		}
		return 0;
	default:
		return -ENOTTY;
	}
}

/* vm_flags is written through helpers from 6.3 on (see Kbuild). */
static void ozram_vma_forbid_write(struct vm_area_struct *vma)
{
#ifdef OZRAM_HAVE_VM_FLAGS_CLEAR
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
}

/*
 * Offset 0: [0, staging.offset) read-write (a shorter read-only mapping of
 * the header alone is fine).  Offset staging.offset: the staging area,
 * read-only for good.  Nothing else.
 */
static int ozram_ring_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;

	if (offset == 0) {
		if (len > ring.geo.staging.offset)
			return -EINVAL;
	} else if (offset == ring.geo.staging.offset) {
		if (len > ring.geo.staging.size)
			return -EINVAL;
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		ozram_vma_forbid_write(vma);
	} else {
		return -EINVAL;
	}
	/* Also marks the mapping VM_DONTEXPAND | VM_DONTDUMP. */
	return remap_vmalloc_range(vma, ring.mem, vma->vm_pgoff);
}

static const struct file_operations ozram_ring_fops = {
	.owner = THIS_MODULE,
	.open = ozram_ring_open,
	.release = ozram_ring_release_file,
	.read = ozram_ring_read,
	.write = ozram_ring_write,
	.poll = ozram_ring_poll,
	.unlocked_ioctl = ozram_ring_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ozram_ring_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice ozram_ring_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "ozram-ring",
	.fops = &ozram_ring_fops,
	.mode = 0600,
};

/* ---- statistics ------------------------------------------------------ */

void ozram_ring_snapshot(struct ozram_snapshot *snap)
{
	struct ozram_ring_counters *c = &ring.cnt;

	spin_lock(&ring.lock);
	snap->agent_attached = ring.attached;
	snap->agent_pid = ring.agent_pid;
	snap->ring.occupancy = ring.slots - ring.nr_free;
	spin_unlock(&ring.lock);
	snap->ring.submitted = atomic64_read(&c->submitted);
	snap->ring.completed = atomic64_read(&c->completed);
	snap->ring.rejected = atomic64_read(&c->rejected);
	snap->ring.timeouts = atomic64_read(&c->timeouts);
	snap->ring.inline_fallbacks = atomic64_read(&c->inline_fallbacks);
	snap->ring.batches = atomic64_read(&c->batches);
	snap->ring.stale = atomic64_read(&c->stale);
	snap->ring.verify_failures = atomic64_read(&c->verify_failures);
	snap->ring.agent_errors = atomic64_read(&c->agent_errors);
	snap->ring.drained = atomic64_read(&c->drained);
	snap->ring.deferred = atomic64_read(&c->deferred);
}

/* ---- module load and unload ----------------------------------------- */

/* The size from which zsmalloc stores a page whole; needs a pool to ask. */
static int ozram_ring_probe_huge_class(void)
{
	struct zs_pool *pool = zs_create_pool("ozram-probe");

	if (!pool)
		return -ENOMEM;
	ozram_huge_class_size = zs_huge_class_size(pool);
	zs_destroy_pool(pool);
	return 0;
}

static void ozram_ring_free(void)
{
	vfree(ring.mem);
	kvfree(ring.generations);
	kvfree(ring.rslots);
	kvfree(ring.free_stack);
	bitmap_free(ring.to_store);
	kfree(ring.copy_buf);
	kfree(ring.decode_buf);
	if (ring.wq)
		destroy_workqueue(ring.wq);
}

int ozram_ring_init(void)
{
	struct ozram_ring_header *hdr;
	u32 slot;
	int ret;

	BUILD_BUG_ON(sizeof(struct ozram_ring_header) != 136);
	BUILD_BUG_ON(sizeof(struct ozram_ring_ctrl) != 320);
	BUILD_BUG_ON(sizeof(struct ozram_ring_sqe) != 16);
	BUILD_BUG_ON(sizeof(struct ozram_ring_cqe) != 32);
	BUILD_BUG_ON(PAGE_SIZE != OZRAM_RING_PAGE_SIZE);

	if (!ring_slots || ring_slots > OZRAM_RING_MAX_SLOTS / 2 ||
	    !is_power_of_2(ring_slots)) {
		pr_err("ring_slots %u: must be a power of two, 1..%u\n",
		       ring_slots, OZRAM_RING_MAX_SLOTS / 2);
		return -EINVAL;
	}
	ret = ozram_ring_probe_huge_class();
	if (ret)
		return ret;

	memset(&ring, 0, sizeof(ring));
	spin_lock_init(&ring.lock);
	mutex_init(&ring.reap_mutex);
	init_waitqueue_head(&ring.wait);
	INIT_DELAYED_WORK(&ring.timeout_work, ozram_ring_timeout_fn);
	INIT_WORK(&ring.store_work, ozram_ring_store_fn);
	ring.slots = ring_slots;

	/* Twice as many entries as slots: a taken-back slot may be queued twice. */
	ozram_ring_init_header(&ring.geo, ring.slots, 2 * ring.slots,
			       ozram_huge_class_size - 1);
	ring.mem = vmalloc_user(ring.geo.mapping_size);
	ring.generations = kvcalloc(ring.slots, sizeof(u32), GFP_KERNEL);
	ring.rslots = kvcalloc(ring.slots, sizeof(*ring.rslots), GFP_KERNEL);
	ring.free_stack = kvcalloc(ring.slots, sizeof(u32), GFP_KERNEL);
	ring.to_store = bitmap_zalloc(ring.slots, GFP_KERNEL);
	ring.copy_buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	ring.decode_buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	ring.wq = alloc_workqueue("ozram_ring", WQ_MEM_RECLAIM, 1);
	if (!ring.mem || !ring.generations || !ring.rslots ||
	    !ring.free_stack || !ring.to_store || !ring.copy_buf ||
	    !ring.decode_buf || !ring.wq) {
		ozram_ring_free();
		return -ENOMEM;
	}

	hdr = ring.mem;
	*hdr = ring.geo;
	ring.ctrl = ring.mem + ring.geo.ctrl.offset;
	ring.sq = ring.mem + ring.geo.sq.offset;
	ring.cq = ring.mem + ring.geo.cq.offset;
	ring.output = ring.mem + ring.geo.output.offset;
	ring.staging = ring.mem + ring.geo.staging.offset;
	ring.ctrl->flags.value = OZRAM_RING_F_NEED_WAKEUP;
	/* Slot 0 on top, so a quiet system keeps using the same pages. */
	for (slot = 0; slot < ring.slots; slot++)
		ring.free_stack[slot] = ring.slots - 1 - slot;
	ring.nr_free = ring.slots;
	return 0;
}

/*
 * The last step of module init: once the device exists an agent can open
 * it and take a reference on the module, so nothing may fail after this.
 */
int ozram_ring_register(void)
{
	int ret = misc_register(&ozram_ring_misc);

	if (ret) {
		pr_err("cannot register /dev/ozram-ring: %d\n", ret);
		return ret;
	}
	ring.registered = true;
	return 0;
}

/* After every device is gone: nothing can be staged any more. */
void ozram_ring_exit(void)
{
	if (ring.registered)
		misc_deregister(&ozram_ring_misc);
	cancel_delayed_work_sync(&ring.timeout_work);
	cancel_work_sync(&ring.store_work);
	ozram_ring_free();
}
