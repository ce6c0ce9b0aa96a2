// SPDX-License-Identifier: GPL-2.0
/*
 * ozram recompression: zram's recompress, done by the agent in batches.
 *
 * A write to recompress picks the stored pages it selects, one algorithm
 * priority after the other, and decodes each into a bounce page.  With an
 * agent that compresses the algorithm, a copy of the page goes through the
 * offload ring, whose outcome comes back to this file's ops, while the
 * device slot keeps its object: the result replaces it only if the slot
 * still holds what was picked and the result saves memory
 * (ozram_recomp_store() in ozram_io_recomp.c).  Without one,
 * or for a page the agent fails, the kernel compresses it itself, as
 * zram's loop does.  The writer waits for the last of its pages, so it
 * returns when the work is done, as with zram.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bitmap.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_recomp.h"
#include "ozram_ring_api.h"
#include "ozram_trace.h"

/*
 * One write to recompress, for the pages of one algorithm priority.  The
 * batch lives on the writer's stack: whoever hands it a result does so
 * under its lock, and the writer takes the lock to see the last one, so
 * no one touches the batch once the writer has returned.
 */
struct ozram_recomp_batch {
	struct ozram *oz;
	const struct ozram_recomp_params *params;
	u32 prio;
	enum ozram_recomp_miss miss;	/* a page this one does not shrink */
	spinlock_t lock;	/* in_flight, returned, redo */
	u32 in_flight;		/* pages the agent has */
	u32 returned;		/* results handed back so far */
	wait_queue_head_t wait;
	unsigned long *redo;	/* pages the agent failed: the kernel's now */
	/* Pages counted against max_pages: once each, whatever tries them. */
	unsigned long *counted;
	/*
	 * Pages recompressed by this write: as in zram, the first algorithm
	 * that shrinks a page is the last to try it in the write.
	 */
	unsigned long *replaced;
};

int ozram_recomp_parse(struct ozram *oz, char *args,
		       struct ozram_recomp_params *p)
{
	bool type_set = false, threshold_set = false, max_set = false;
	char *param, *val, *algo = NULL;
	int prio = -1;

	memset(p, 0, sizeof(*p));
	p->max_pages = U64_MAX;
	args = skip_spaces(args);
	while (*args) {
		args = next_arg(args, &param, &val);
		if (!val || !*val)
			return -EINVAL;
		if (!strcmp(param, "type") && !type_set) {
			if (!strcmp(val, "idle"))
				p->mode = OZRAM_RECOMP_IDLE;
			else if (!strcmp(val, "huge"))
				p->mode = OZRAM_RECOMP_HUGE;
			else if (!strcmp(val, "huge_idle"))
				p->mode = OZRAM_RECOMP_IDLE | OZRAM_RECOMP_HUGE;
			else
				return -EINVAL;
			type_set = true;
		} else if (!strcmp(param, "threshold") && !threshold_set) {
			if (kstrtouint(val, 10, &p->threshold) ||
			    p->threshold >= ozram_huge_class_size)
				return -EINVAL;
			threshold_set = true;
		} else if (!strcmp(param, "max_pages") && !max_set) {
			if (kstrtoull(val, 10, &p->max_pages))
				return -EINVAL;
			max_set = true;
		} else if (!strcmp(param, "algo") && !algo) {
			algo = val;
		} else if (!strcmp(param, "priority") && prio < 0) {
			if (kstrtoint(val, 10, &prio) || prio <= OZRAM_PRIMARY_COMP ||
			    prio >= OZRAM_MAX_COMPS)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}

	if (algo && prio < 0) {
		for (prio = OZRAM_PRIMARY_COMP + 1; prio < OZRAM_MAX_COMPS; prio++)
			if (!strcmp(oz->comp_names[prio], algo))
				break;
	}
	if (prio < 0) {
		p->prio_min = OZRAM_PRIMARY_COMP + 1;
		p->prio_max = OZRAM_MAX_COMPS;
		return 0;
	}
	/* A named algorithm must be one the device has, at that priority. */
	if (prio >= OZRAM_MAX_COMPS || !oz->comps[prio] ||
	    (algo && strcmp(oz->comp_names[prio], algo)))
		return -EINVAL;
	p->prio_min = prio;
	p->prio_max = prio + 1;
	p->explicit_target = true;
	return 0;
}

/* Page @index of @batch has @ret, as ozram_recomp_store() returns it. */
static void ozram_recomp_note(struct ozram_recomp_batch *batch, u32 index,
			      int ret)
{
	if (ret == 1)
		set_bit(index, batch->replaced);
}

/*
 * Page @index of @batch is back, with @ret as ozram_recomp_store() returns
 * it (-EIO: no usable answer).  Its ring slot is given back already.
 */
static void ozram_recomp_returned(struct ozram_recomp_batch *batch, u32 index,
				  int ret)
{
	ozram_recomp_note(batch, index, ret);
	spin_lock_irq(&batch->lock);
	/* Not stored for want of memory or by the agent's fault: redo it. */
	if (ret == -EIO || ret == -ENOMEM)
		__set_bit(index, batch->redo);
	batch->in_flight--;
	batch->returned++;
	wake_up(&batch->wait);
	spin_unlock_irq(&batch->lock);
}

/*
 * The outcome of page @index of @batch, by @source: @len bytes at @buf,
 * checked like any result; @len PAGE_SIZE with @buf NULL when the page does
 * not compress (no bytes come with that answer); or @len 0, @buf NULL for
 * no usable answer, which the kernel then redoes.  The ring slot is given
 * back already.
 */
static void ozram_recomp_result(struct ozram_recomp_batch *batch, u32 index,
				const void *buf, unsigned int len,
				enum ozram_source source)
{
	struct ozram *oz = batch->oz;
	int ret = -EIO;

	/*
	 * A page that does not compress comes without bytes: a pointer with
	 * it would be into a ring slot released already.
	 */
	if (WARN_ON_ONCE(buf && len >= PAGE_SIZE))
		buf = NULL;
	if (len)
		ret = ozram_recomp_store(oz, index, buf, len, batch->prio,
					 source, batch->params->threshold,
					 batch->miss);
	else
		ozram_recomp_abandon(oz, index);
	ozram_recomp_returned(batch, index, ret);
}

/*
 * The ring's outcome of a staged copy.  Nothing else refers to the ring
 * slot, so it is given back first: the batch may be gone once it has its
 * last result.  The result is in the ring's private buffer; a raw answer
 * (the page does not compress) passes on no bytes at all: the staged copy
 * it came with is in the slot given back.
 */
static int ozram_recomp_stored(const struct ozram_ring_req *req,
			       const void *buf, unsigned int len,
			       enum ozram_source source, bool may_reclaim)
{
	ozram_ring_release(req->ref.ring_slot);
	ozram_recomp_result(req->priv, req->index, buf, len, source);
	return 0;
}

/*
 * The agent's result, still in its output slot: copied once into the new
 * object and checked there, against the staged copy, before the ring slot
 * goes back.  A copy the check refuses is freed (-EBADMSG), and the ring
 * then calls ->failed, which gives the slot back.
 */
static int ozram_recomp_stored_in_place(const struct ozram_ring_req *req,
					const struct ozram_ring_result *result,
					bool may_reclaim)
{
	struct ozram_recomp_batch *batch = req->priv;
	int ret;

	ret = ozram_recomp_store_result(batch->oz, req->index, result,
					batch->prio, batch->params->threshold,
					batch->miss);
	if (ret == -EBADMSG)
		return ret;
	ozram_ring_release(req->ref.ring_slot);
	ozram_recomp_returned(batch, req->index, ret);
	return 0;
}

static int ozram_recomp_raw(const struct ozram_ring_req *req,
			    const void *page, bool may_reclaim)
{
	/*
	 * It does not compress: the slot keeps its object.  @page is in the
	 * ring slot, released first, so it does not go along.
	 */
	ozram_ring_release(req->ref.ring_slot);
	ozram_recomp_result(req->priv, req->index, NULL, PAGE_SIZE,
			    OZRAM_SRC_KERNEL);
	return 0;
}

static int ozram_recomp_failed(const struct ozram_ring_req *req,
			       const void *page, bool may_reclaim)
{
	ozram_ring_release(req->ref.ring_slot);
	ozram_recomp_result(req->priv, req->index, NULL, 0, OZRAM_SRC_KERNEL);
	return 0;
}

/* A stored page is not same-filled: checked when written, so redone here. */
static int ozram_recomp_same(const struct ozram_ring_req *req,
			     unsigned long fill)
{
	return ozram_recomp_failed(req, NULL, false);
}

static const struct ozram_ring_ops ozram_recomp_ops = {
	.stored = ozram_recomp_stored,
	.stored_in_place = ozram_recomp_stored_in_place,
	.raw = ozram_recomp_raw,
	.same_filled = ozram_recomp_same,
	.failed = ozram_recomp_failed,
};

/*
 * The kernel recompresses a picked page itself.  The output is copied out
 * of the per-CPU stream, so that preemption is back on while the slot is
 * updated.  Return: as ozram_recomp_store().
 */
static int ozram_recomp_inline(struct ozram_recomp_batch *batch, u32 index,
			       struct page *page, void *copy)
{
	unsigned int len = 0;
	int ret;

	ret = ozram_comp_compress_copy(batch->oz->comps[batch->prio], page,
				       copy, PAGE_SIZE, &len);
	if (ret || len >= PAGE_SIZE) {
		len = PAGE_SIZE;	/* did not compress: a miss */
		copy = NULL;
	}
	ret = ozram_recomp_store(batch->oz, index, copy, len, batch->prio,
				 OZRAM_SRC_KERNEL, batch->params->threshold,
				 batch->miss);
	ozram_recomp_note(batch, index, ret);
	return ret;
}

/* A page the kernel does again, after the pass. */
static void ozram_recomp_redo(struct ozram_recomp_batch *batch, u32 index)
{
	spin_lock_irq(&batch->lock);
	__set_bit(index, batch->redo);
	spin_unlock_irq(&batch->lock);
}

/*
 * Hands a picked page to the agent.  The batch keeps to half the ring, so
 * that written pages still find room, and waits for one of its own pages
 * when the ring is full.  Return: false when the kernel must do it (no
 * agent, an algorithm it does not do, or a ring full of other work).
 */
static bool ozram_recomp_offload(struct ozram_recomp_batch *batch, u32 index,
				 struct page *page)
{
	u32 limit = max_t(u32, ozram_ring_capacity() / 2, 1), seen;
	struct ozram_ring_req req = {
		.ops = &ozram_recomp_ops,
		.priv = batch,
		.oz = batch->oz,
		.index = index,
		.comp = batch->oz->comps[batch->prio],
		.algorithm = batch->oz->ring_algs[batch->prio],
		.level = batch->oz->ring_levels[batch->prio],
	};
	int ret;

	for (;;) {
		spin_lock_irq(&batch->lock);
		wait_event_lock_irq(batch->wait, batch->in_flight < limit,
				    batch->lock);
		batch->in_flight++;
		spin_unlock_irq(&batch->lock);

		ret = ozram_ring_stage(&req, page);
		if (!ret) {
			trace_ozram_stage(batch->oz->id, index,
					  req.ref.ring_slot,
					  req.ref.generation, true);
			return true;
		}

		spin_lock_irq(&batch->lock);
		batch->in_flight--;
		if (ret != -EBUSY || !batch->in_flight) {
			spin_unlock_irq(&batch->lock);
			return false;
		}
		/* Full, and some of it ours: wait for one to come back. */
		seen = batch->returned;
		wait_event_lock_irq(batch->wait, batch->returned != seen,
				    batch->lock);
		spin_unlock_irq(&batch->lock);
	}
}

/* One pass: the pages @p selects, for the algorithm of priority @prio. */
static int ozram_recomp_pass(struct ozram_recomp_batch *batch,
			     struct page *page, void *copy, u64 *tried)
{
	const struct ozram_recomp_params *p = batch->params;
	struct ozram *oz = batch->oz;
	u32 nr = oz->disksize >> PAGE_SHIFT, index;
	int ret = 0, err = 0;

	for (index = 0; index < nr; index++) {
		/* Missed by an earlier algorithm: counted once, as zram does. */
		bool counted = test_bit(index, batch->counted);

		if (!counted && *tried >= p->max_pages)
			continue;
		if (test_bit(index, batch->replaced))
			continue;
		/* A long pass over a large device: its writer may be killed. */
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		ret = ozram_recomp_pick(oz, index, p->mode, p->threshold,
					batch->prio, page);
		if (ret <= 0)
			continue;
		if (!counted) {
			__set_bit(index, batch->counted);
			++*tried;
		}
		if (!ozram_recomp_offload(batch, index, page) &&
		    ozram_recomp_inline(batch, index, page, copy) == -ENOMEM)
			ozram_recomp_redo(batch, index);
		cond_resched();
	}
	/* Under the lock: the last result is handed back completely. */
	spin_lock_irq(&batch->lock);
	wait_event_lock_irq(batch->wait, !batch->in_flight, batch->lock);
	spin_unlock_irq(&batch->lock);
	if (err)
		return err;

	/*
	 * What the agent failed, or mem_limit refused, the kernel does now.
	 * A result the limit refused finds room once the pool is compacted:
	 * the objects the pass replaced left holes in zspages that others
	 * share.  When even that is not enough, the rest stays as it is.
	 */
	if (!bitmap_empty(batch->redo, nr))
		ozram_make_room(oz);
	for_each_set_bit(index, batch->redo, nr) {
		if (ozram_recomp_pick(oz, index, p->mode, p->threshold,
				      batch->prio, page) <= 0)
			continue;
		ret = ozram_recomp_inline(batch, index, page, copy);
		if (ret == -ENOMEM) {
			ozram_make_room(oz);
			if (ozram_recomp_pick(oz, index, p->mode, p->threshold,
					      batch->prio, page) > 0 &&
			    ozram_recomp_inline(batch, index, page,
						copy) == -ENOMEM)
				break;
		}
		cond_resched();
	}
	return 0;
}

int ozram_recompress(struct ozram *oz, const struct ozram_recomp_params *p)
{
	struct ozram_recomp_batch batch = { .oz = oz, .params = p };
	u32 nr = oz->disksize >> PAGE_SHIFT, prio, last = 0;
	struct page *page;
	u64 tried = 0;
	void *copy;
	int ret = 0;

	for (prio = p->prio_min; prio < p->prio_max; prio++)
		if (oz->comps[prio])
			last = prio;
	if (!last)
		return 0;	/* no recompression algorithm: nothing to do */

	page = alloc_page(GFP_KERNEL);
	copy = kmalloc(PAGE_SIZE, GFP_KERNEL);
	batch.redo = bitmap_zalloc(nr, GFP_KERNEL);
	batch.counted = bitmap_zalloc(nr, GFP_KERNEL);
	batch.replaced = bitmap_zalloc(nr, GFP_KERNEL);
	if (!page || !copy || !batch.redo || !batch.counted ||
	    !batch.replaced) {
		ret = -ENOMEM;
		goto out;
	}
	spin_lock_init(&batch.lock);
	init_waitqueue_head(&batch.wait);
	for (prio = p->prio_min; prio <= last && !ret; prio++) {
		if (!oz->comps[prio])
			continue;
		batch.prio = prio;
		if (prio < last)
			batch.miss = OZRAM_RECOMP_MISS_NEXT;
		else if (p->explicit_target)
			batch.miss = OZRAM_RECOMP_MISS_KEEP;
		else
			batch.miss = OZRAM_RECOMP_MISS_MARK;
		bitmap_zero(batch.redo, nr);
		ret = ozram_recomp_pass(&batch, page, copy, &tried);
	}
out:
	bitmap_free(batch.replaced);
	bitmap_free(batch.counted);
	bitmap_free(batch.redo);
	kfree(copy);
	if (page)
		__free_page(page);
	return ret;
}
