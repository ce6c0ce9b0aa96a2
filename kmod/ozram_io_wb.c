// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, writeback: a pass that sends pages to the backing
 * device (ozram_io_wb_dev.c), as zram's CONFIG_ZRAM_WRITEBACK does.
 *
 * A pass (ozram_writeback()) scans the slots in order, decodes each page it
 * picks into a batch, and gives the batch contiguous blocks of the backing
 * device, so that a batch is one bio of up to OZRAM_WB_BATCH pages.  With
 * compressed_writeback set, compressed objects go instead, undecoded, into
 * a second batch that packs them (ozram_io_wb_packed.c).  Up to
 * OZRAM_WB_INFLIGHT bios are in flight.  While its bio is in flight a slot
 * keeps its object and is marked OZRAM_SLOT_UNDER_WB: a reader is served
 * from memory, and a rewrite or discard clears the mark.  Completions are
 * applied by the pass itself, in process context: a slot still marked
 * drops its object for the block; a slot rewritten meanwhile, or a page
 * whose write failed, keeps what it holds and the block is freed.
 *
 * Documentation/kmod.md, "Writeback", says why.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/wait.h>

#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_io_internal.h"
#include "ozram_io_wb.h"
#include "ozram_slot.h"

/* Bios in flight at once. */
#define OZRAM_WB_INFLIGHT	8

#define OZRAM_WB_IDLE		BIT(0)
#define OZRAM_WB_HUGE		BIT(1)
#define OZRAM_WB_ONE		BIT(2)

/* ---- a writeback pass ------------------------------------------------- */

static void ozram_wb_end_io(struct bio *bio)
{
	struct ozram_wb_batch *b = container_of(bio, struct ozram_wb_batch, bio);
	struct ozram_wb_ctl *ctl = b->ctl;
	unsigned long flags;

	b->status = bio->bi_status;
	/*
	 * Woken under the lock: once the pass can see the batch done, it may
	 * return and free ctl, so nothing here touches ctl after the unlock.
	 */
	spin_lock_irqsave(&ctl->lock, flags);
	list_add_tail(&b->node, &ctl->done);
	wake_up(&ctl->wait);
	spin_unlock_irqrestore(&ctl->lock, flags);
}

/* An emptied batch, ready to be filled again. */
void ozram_wb_recycle(struct ozram_wb_ctl *ctl, struct ozram_wb_batch *b)
{
	b->nr = 0;
	b->packed = false;
	b->nr_blocks = 0;
	b->used = 0;
	b->tail_objs = 0;
	list_add(&b->node, &ctl->idle);
}

/*
 * Applies a completed raw batch: each slot still marked takes its block;
 * the others, and every page of a failed write, keep their memory and the
 * block is freed.
 */
static void ozram_wb_finish_raw(struct ozram_wb_ctl *ctl,
				struct ozram_wb_batch *b, bool ok)
{
	struct ozram *oz = ctl->oz;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		u32 index = b->index[i];
		bool moved = false;

		ozram_slot_lock(oz, index);
		if (ozram_test_flag(oz, index, OZRAM_SLOT_UNDER_WB)) {
			ozram_clear_flag(oz, index, OZRAM_SLOT_UNDER_WB);
			if (ok) {
				/* Its idle mark goes, as in zram's writeback. */
				ozram_free_slot(oz, index);
				ozram_set_flag(oz, index, OZRAM_SLOT_WB);
				oz->table[index].element = b->first + i;
				ozram_stat_add(oz, OZRAM_STAT_ORIG_DATA, PAGE_SIZE);
				moved = true;
			}
		}
		ozram_slot_unlock(oz, index);
		if (!moved) {
			ozram_wb_free_block(oz, b->first + i);
			ozram_wb_refund(ctl, b->charge[i]);
		}
	}
}

/* Applies a completed batch and makes it ready for reuse. */
static void ozram_wb_finish(struct ozram_wb_ctl *ctl, struct ozram_wb_batch *b)
{
	struct ozram *oz = ctl->oz;
	bool ok = b->status == BLK_STS_OK;

	if (ok) {
		ozram_stat_add(oz, OZRAM_STAT_BD_WRITES, b->nr);
	} else {
		ctl->io_err = blk_status_to_errno(b->status);
		ozram_stat_add(oz, OZRAM_STAT_BD_WRITE_FAILED, b->nr);
		pr_err_ratelimited("%s: writeback of %u pages failed: %d\n",
				   oz->disk->disk_name, b->nr, ctl->io_err);
	}
	if (b->packed)
		ozram_wb_finish_packed(ctl, b, ok);
	else
		ozram_wb_finish_raw(ctl, b, ok);
	bio_uninit(&b->bio);
	ozram_wb_recycle(ctl, b);
}

static bool ozram_wb_reap_ready(struct ozram_wb_ctl *ctl, unsigned int max)
{
	bool ready;

	spin_lock_irq(&ctl->lock);
	ready = !list_empty(&ctl->done) || ctl->inflight <= max;
	spin_unlock_irq(&ctl->lock);
	return ready;
}

/* Applies completions until at most @max bios remain in flight. */
static void ozram_wb_reap(struct ozram_wb_ctl *ctl, unsigned int max)
{
	struct ozram_wb_batch *b;

	for (;;) {
		wait_event(ctl->wait, ozram_wb_reap_ready(ctl, max));
		spin_lock_irq(&ctl->lock);
		b = list_first_entry_or_null(&ctl->done, struct ozram_wb_batch,
					     node);
		if (b) {
			list_del(&b->node);
			ctl->inflight--;
		}
		spin_unlock_irq(&ctl->lock);
		if (b)
			ozram_wb_finish(ctl, b);
		else if (ctl->inflight <= max)
			return;
	}
}

/* Writes the first @nr_pages pages of batch @b to its blocks. */
void ozram_wb_submit(struct ozram_wb_ctl *ctl, struct ozram_wb_batch *b,
		     unsigned int nr_pages)
{
	unsigned int i;

	bio_init(&b->bio, ctl->oz->bdev, b->bvecs, OZRAM_WB_BATCH,
		 REQ_OP_WRITE | REQ_SYNC);
	b->bio.bi_iter.bi_sector = ozram_wb_sector(b->first);
	b->bio.bi_end_io = ozram_wb_end_io;
	for (i = 0; i < nr_pages; i++)
		__bio_add_page(&b->bio, b->pages[i], PAGE_SIZE, 0);
	spin_lock_irq(&ctl->lock);
	ctl->inflight++;
	spin_unlock_irq(&ctl->lock);
	submit_bio(&b->bio);
}

static void ozram_wb_submit_raw(struct ozram_wb_ctl *ctl)
{
	struct ozram_wb_batch *b = ctl->raw;

	ctl->raw = NULL;
	if (b->nr)
		ozram_wb_submit(ctl, b, b->nr);
	else
		ozram_wb_recycle(ctl, b);
}

/*
 * A batch to fill, waiting for one to complete if none is idle.  The pass
 * has at least two batches, so that with one being filled of each kind
 * another is in flight to wait for.
 */
struct ozram_wb_batch *ozram_wb_get_batch(struct ozram_wb_ctl *ctl)
{
	struct ozram_wb_batch *b;

	if (list_empty(&ctl->idle))
		ozram_wb_reap(ctl, ctl->inflight - 1);
	b = list_first_entry(&ctl->idle, struct ozram_wb_batch, node);
	list_del(&b->node);
	return b;
}

static void ozram_wb_free_batch(struct ozram_wb_batch *b)
{
	unsigned int i;

	for (i = 0; i < OZRAM_WB_BATCH; i++)
		if (b->pages[i])
			__free_page(b->pages[i]);
	kfree(b);
}

static void ozram_wb_free_batches(struct ozram_wb_ctl *ctl)
{
	struct ozram_wb_batch *b, *tmp;

	list_for_each_entry_safe(b, tmp, &ctl->idle, node)
		ozram_wb_free_batch(b);
}

/* A batch with all its pages, or NULL: batches are full size. */
static struct ozram_wb_batch *ozram_wb_alloc_batch(struct ozram_wb_ctl *ctl)
{
	struct ozram_wb_batch *b;
	unsigned int i;

	/* From a slab, not pages of their own: writeback runs short of memory. */
	BUILD_BUG_ON(sizeof(*b) > KMALLOC_MAX_CACHE_SIZE);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return NULL;
	b->ctl = ctl;
	for (i = 0; i < OZRAM_WB_BATCH; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_NOWARN);
		if (!b->pages[i]) {
			ozram_wb_free_batch(b);
			return NULL;
		}
	}
	return b;
}

/*
 * At least two batches; fewer than OZRAM_WB_INFLIGHT when memory is short.
 * Return: 0 or -ENOMEM.
 */
static int ozram_wb_alloc_batches(struct ozram_wb_ctl *ctl)
{
	struct ozram_wb_batch *b;
	unsigned int n;

	for (n = 0; n < OZRAM_WB_INFLIGHT; n++) {
		b = ozram_wb_alloc_batch(ctl);
		if (!b)
			break;
		list_add(&b->node, &ctl->idle);
	}
	if (n < 2) {
		ozram_wb_free_batches(ctl);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Whether slot @index is one the pass writes back: a settled object, of
 * the kind @mode asks for.  Slot lock held.
 */
bool ozram_wb_candidate(struct ozram *oz, u32 index, unsigned int mode)
{
	if (!ozram_slot_settled(oz, index))
		return false;
	if ((mode & OZRAM_WB_IDLE) && !ozram_test_flag(oz, index, OZRAM_SLOT_IDLE))
		return false;
	if ((mode & OZRAM_WB_HUGE) && !ozram_test_flag(oz, index, OZRAM_SLOT_HUGE))
		return false;
	return true;
}

/*
 * What the pass does with slot @index, looked at once under its lock:
 * -1 when it is no candidate, 0 when its page goes to a block of its own
 * (without packing, or a raw page, which gains nothing from it and reads
 * back in one I/O without a decode), otherwise the size of the compressed
 * object to pack.  The pick looks again, since the lock is dropped between.
 */
static int ozram_wb_classify(struct ozram_wb_ctl *ctl, u32 index, bool packing)
{
	struct ozram *oz = ctl->oz;
	int size = -1;

	ozram_slot_lock(oz, index);
	if (ozram_wb_candidate(oz, index, ctl->mode))
		size = packing && !ozram_test_flag(oz, index, OZRAM_SLOT_HUGE) ?
		       ozram_get_obj_size(oz, index) : 0;
	ozram_slot_unlock(oz, index);
	return size;
}

/*
 * Decodes slot @index into the raw batch, at the block after its last
 * one.  Return: 1 picked, 0 not a candidate, -ENOSPC.
 */
static int ozram_wb_pick_raw(struct ozram_wb_ctl *ctl, u32 index)
{
	struct ozram *oz = ctl->oz;
	struct ozram_wb_batch *cur = ctl->raw;
	bool picked = false;

	if (!ctl->spare) {
		ctl->spare = ozram_wb_alloc_block(oz, cur && cur->nr ?
						  cur->first + cur->nr : 0);
		/* The packed batch's unfilled run may be all that is free. */
		if (!ctl->spare && ctl->packed) {
			ozram_wb_submit_packed(ctl);
			ctl->spare = ozram_wb_alloc_block(oz, 0);
		}
		if (!ctl->spare)
			return -ENOSPC;
	}
	/* A block that does not continue the run starts a new bio. */
	if (cur && cur->nr && ctl->spare != cur->first + cur->nr)
		ozram_wb_submit_raw(ctl);
	if (!ctl->raw)
		ctl->raw = ozram_wb_get_batch(ctl);
	cur = ctl->raw;

	ozram_slot_lock(oz, index);
	if (ozram_wb_candidate(oz, index, ctl->mode) &&
	    !ozram_read_object(oz, index, cur->pages[cur->nr])) {
		ozram_set_flag(oz, index, OZRAM_SLOT_UNDER_WB);
		picked = true;
	}
	ozram_slot_unlock(oz, index);
	if (!picked)
		return 0;
	if (!cur->nr)
		cur->first = ctl->spare;
	cur->charge[cur->nr] = ctl->charge;
	cur->index[cur->nr++] = index;
	ctl->spare = 0;
	if (cur->nr == OZRAM_WB_BATCH)
		ozram_wb_submit_raw(ctl);
	return 1;
}

/*
 * Sends the batches being filled and waits for every write: pages that
 * failed or went stale give their blocks and budget back.  Return: whether
 * any batch was open or in flight.
 */
static bool ozram_wb_settle(struct ozram_wb_ctl *ctl)
{
	bool busy = ctl->raw || ctl->packed || ctl->inflight;

	if (ctl->raw)
		ozram_wb_submit_raw(ctl);
	if (ctl->packed)
		ozram_wb_submit_packed(ctl);
	ozram_wb_reap(ctl, 0);
	return busy;
}

/*
 * Picks slot @index, if it is a candidate: as ozram_wb_pick_raw(), and
 * -ENOMEM from ozram_wb_pick_packed().
 */
static int ozram_wb_pick(struct ozram_wb_ctl *ctl, u32 index, bool packing)
{
	int size = ozram_wb_classify(ctl, index, packing);

	if (size < 0)
		return 0;
	if (size)
		return ozram_wb_pick_packed(ctl, index, size);
	return ozram_wb_pick_raw(ctl, index);
}

/*
 * One pass over slots [@index, @index + @count).  Return: 0; -EIO when the
 * limit ran out before the end, or a write failed (zram's errno, the last
 * one); -ENOSPC when the backing device is full; -ENOMEM.
 */
static int ozram_wb_pass(struct ozram *oz, unsigned int mode, u32 index,
			 u32 count)
{
	struct ozram_wb_ctl ctl = { .oz = oz, .mode = mode, .stamp = 1 };
	bool packing = READ_ONCE(oz->wb_compressed);
	bool looked = false;
	int ret = 0;

	spin_lock_init(&ctl.lock);
	INIT_LIST_HEAD(&ctl.done);
	INIT_LIST_HEAD(&ctl.idle);
	init_waitqueue_head(&ctl.wait);
	ret = ozram_wb_alloc_batches(&ctl);
	if (ret)
		return ret;

	for (; count; index++, count--) {
		int picked;

		/*
		 * Pages in flight give their budget and blocks back if they
		 * fail or go stale: out of either, let them land before
		 * deciding.  zram, a page at a time, has them back at once.
		 */
		if (!ozram_wb_take_budget(&ctl)) {
			ozram_wb_settle(&ctl);
			if (!ozram_wb_take_budget(&ctl)) {
				ret = -EIO;
				break;
			}
		}
		/*
		 * zram takes a block for a page before it looks at the page,
		 * so on a backing device full from the start its pass fails
		 * at the first page, a candidate or not: page_index= of a
		 * page already written back, say.
		 */
		if (!looked && ozram_wb_full(oz)) {
			ozram_wb_refund(&ctl, ctl.charge);
			ret = -ENOSPC;
			break;
		}
		looked = true;
		picked = ozram_wb_pick(&ctl, index, packing);
		if (picked == -ENOSPC && ozram_wb_settle(&ctl))
			picked = ozram_wb_pick(&ctl, index, packing);
		if (picked <= 0)
			ozram_wb_refund(&ctl, ctl.charge);
		if (picked < 0) {
			ret = picked;
			break;
		}
		cond_resched();
	}

	if (ctl.raw)
		ozram_wb_submit_raw(&ctl);
	if (ctl.packed)
		ozram_wb_submit_packed(&ctl);
	if (ctl.spare)
		ozram_wb_free_block(oz, ctl.spare);
	ozram_wb_reap(&ctl, 0);
	ozram_wb_free_batches(&ctl);
	if (!ret && ctl.io_err)
		ret = ctl.io_err;
	return ret;
}

/*
 * "idle", "huge", "huge_idle" or "page_index=N", zram 6.1's requests.
 * Return: 0, or zram's errno: -EINVAL for a bad request or an
 * uninitialised device, -ENODEV without a backing device, and those of
 * ozram_wb_pass().
 */
int ozram_writeback(struct ozram *oz, const char *buf)
{
	u32 nr_pages, first = 0, count;
	unsigned int mode;
	long page;
	int ret;

	if (sysfs_streq(buf, "idle")) {
		mode = OZRAM_WB_IDLE;
	} else if (sysfs_streq(buf, "huge")) {
		mode = OZRAM_WB_HUGE;
	} else if (sysfs_streq(buf, "huge_idle")) {
		mode = OZRAM_WB_IDLE | OZRAM_WB_HUGE;
	} else if (str_has_prefix(buf, "page_index=")) {
		if (kstrtol(buf + strlen("page_index="), 10, &page))
			return -EINVAL;
		mode = OZRAM_WB_ONE;
	} else {
		return -EINVAL;
	}

	down_read(&oz->init_lock);
	if (!ozram_init_done(oz)) {
		ret = -EINVAL;
		goto out;
	}
	if (!oz->backing_file) {
		ret = -ENODEV;
		goto out;
	}
	nr_pages = oz->disksize >> PAGE_SHIFT;
	count = nr_pages;
	if (mode == OZRAM_WB_ONE) {
		if (page < 0 || page >= nr_pages) {
			ret = -EINVAL;
			goto out;
		}
		first = page;
		count = 1;
	}
	mutex_lock(&oz->wb_mutex);
	ret = ozram_wb_pass(oz, mode, first, count);
	mutex_unlock(&oz->wb_mutex);
out:
	up_read(&oz->init_lock);
	return ret;
}
