// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path: parked pages (Documentation/kmod.md, "Parked pages").
 *
 * A written page that finds the ring full, or admission closed, would be
 * compressed by its writer: the write then costs what a zram write costs.
 * Instead, while an agent is attached, the page is parked: held raw in a
 * zsmalloc object of a page, at the cost of a 4 KiB copy, as staging costs.
 * The device's worker stages parked pages as the agent drains the ring,
 * oldest first, and from then on they are staged pages like any other; it
 * compresses them in the kernel when the agent stalls or goes.  Reclaim
 * never parks (a page held raw frees no memory), nor does a writer past
 * the limit on the memory that parked pages may hold.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kfifo.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/zsmalloc.h>

#include "ozram_comp.h"
#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_io_internal.h"
#include "ozram_ring_api.h"
#include "ozram_slot.h"
#include "ozram_trace.h"

/*
 * The memory every device's parked pages may hold together, in MiB; -1
 * for a tenth of the RAM, the kernel's own default share of memory that
 * may wait dirty in the page cache (vm.dirty_background_ratio); 0 to
 * compress in the writer whenever the agent cannot take a page.
 */
static int park_limit_mb = -1;
module_param(park_limit_mb, int, 0444);
MODULE_PARM_DESC(park_limit_mb,
		 "MiB that pages written while the agent is busy may hold uncompressed, -1 for 10% of RAM (default), 0 for none");

/* A queue of slots holds at most this many (4 GiB of parked pages). */
#define OZRAM_PARK_QUEUE_MAX	BIT(20)
/* Pages the worker stages before it lets others run. */
#define OZRAM_PARK_BATCH	256

/* Parked pages of every device. */
static atomic_long_t ozram_parked_pages = ATOMIC_LONG_INIT(0);

/*
 * The workers run on their own rescuer-backed workqueue: compressing a
 * parked page frees memory, so it must progress under memory pressure.
 */
static struct workqueue_struct *ozram_park_wq;

static unsigned long ozram_park_limit_pages(void)
{
	if (park_limit_mb < 0)
		return totalram_pages() / 10;
	return (unsigned long)park_limit_mb << (20 - PAGE_SHIFT);
}

static void ozram_park_kick(struct ozram *oz, unsigned long delay)
{
	queue_delayed_work(ozram_park_wq, &oz->park_work, delay);
}

/*
 * An ozram_store_check_t: the slot is queued for the worker under its
 * lock, so that the worker finds it marked parked.
 */
static int ozram_park_queue(struct ozram *oz, u32 index, const void *arg)
{
	bool queued;

	spin_lock(&oz->park_lock);
	queued = kfifo_put(&oz->park_fifo, index);
	spin_unlock(&oz->park_lock);
	return queued ? 0 : -EBUSY;
}

int ozram_park_page(struct ozram *oz, struct page *page, u32 index)
{
	struct ozram_obj obj = { .len = PAGE_SIZE, .parked = true };
	void *src;
	int ret;

	if (!kfifo_initialized(&oz->park_fifo) ||
	    (current->flags & PF_MEMALLOC) || !ozram_ring_attached() ||
	    atomic_long_read(&ozram_parked_pages) >=
	    ozram_park_limit_pages())
		return -EBUSY;

	/* No reclaim for a page that is only held: compress it instead. */
	src = kmap_local_page(page);
	obj.buf = src;
	ret = ozram_store_object(oz, index, &obj, OZRAM_GFP_NOWAIT,
				 ozram_park_queue, NULL);
	kunmap_local(src);
	if (ret)
		return ret;

	trace_ozram_park(oz->id, index);
	ozram_park_kick(oz, 0);
	return 0;
}

void ozram_park_count(struct ozram *oz, bool parked)
{
	if (parked) {
		atomic_long_inc(&ozram_parked_pages);
		ozram_stat_inc(oz, OZRAM_STAT_PARKED_PAGES);
		ozram_stat_inc(oz, OZRAM_STAT_PARKED);
	} else {
		atomic_long_dec(&ozram_parked_pages);
		ozram_stat_dec(oz, OZRAM_STAT_PARKED_PAGES);
	}
}

/*
 * Compresses parked slot @index, whose raw page @page holds, in the
 * kernel: no agent takes it.  Slot lock held, as zram's recompression
 * holds it, so the slot cannot change under the result; hence the
 * allocation may not sleep.  A page that does not compress, or whose
 * smaller object mem_limit has no room for, stays as it is, stored raw.
 * Return: 0, or -EAGAIN to try again later.
 */
static int ozram_park_compress_locked(struct ozram *oz, u32 index,
				      struct page *page)
{
	struct ozram_comp *comp = oz->comps[OZRAM_PRIMARY_COMP];
	const struct ozram_obj raw = { .len = PAGE_SIZE };
	struct ozram_comp_stream *strm;
	struct ozram_obj obj = {
		.prio = OZRAM_PRIMARY_COMP,
		.source = OZRAM_SRC_KERNEL,
		.replacing = true,
	};
	unsigned long handle;
	int ret;

	strm = ozram_comp_stream_get(comp);
	ret = ozram_comp_compress(strm, page, &obj.len);
	if (!ret && obj.len < ozram_huge_class_size) {
		obj.buf = strm->buffer;
		ret = ozram_obj_alloc(oz, &obj, OZRAM_GFP_NOWAIT, &handle);
		if (!ret)
			ozram_obj_install(oz, index, &obj, handle);
	} else {
		ret = -E2BIG;
	}
	ozram_comp_stream_put(comp);
	if (ret == -EAGAIN || !ret)
		return ret;
	/* Stored raw after all: the object is the page already. */
	ozram_obj_unaccount(oz, index);
	ozram_obj_account(oz, index, &raw);
	return 0;
}

/*
 * Hands parked slot @index to the agent (@stage), or compresses it in the
 * kernel; @page is scratch.  Return: 0 when done or when the slot was
 * rewritten since (nothing to do), -EBUSY while the ring is full, -EAGAIN
 * when out of memory for now.
 */
static int ozram_park_flush(struct ozram *oz, u32 index, struct page *page,
			    bool stage)
{
	int ret;

	ozram_slot_lock(oz, index);
	if (!ozram_test_flag(oz, index, OZRAM_SLOT_PARKED)) {
		ozram_slot_unlock(oz, index);
		return 0;
	}
	ret = ozram_read_object(oz, index, page);
	if (ret)
		goto out;
	if (stage) {
		/* No fallback event: the page stays parked, its writer gone. */
		ret = ozram_stage_locked(oz, index, page);
		if (ret != -ENODEV && ret != -EOPNOTSUPP)
			goto out;
	}
	ret = ozram_park_compress_locked(oz, index, page);
out:
	ozram_slot_unlock(oz, index);
	return ret;
}

/* What the worker does with its pages this round. */
enum ozram_park_action {
	OZRAM_PARK_STAGE,	/* hand them to the agent */
	OZRAM_PARK_WAIT,	/* wait for the agent to drain the ring */
	OZRAM_PARK_COMPRESS,	/* compress them in the kernel */
};

/*
 * The worker stages while admission is open: the agent drains the ring.
 * While it is closed the worker waits, polling every tick, for the agent
 * to empty half the ring and open it again; refilling the slots it frees
 * would keep admission from ever opening.  Once admission has stayed
 * closed for ring_timeout_ms the agent is stalled, and the kernel
 * compresses what it holds, as it does with the agent's own pages
 * (Documentation/kmod.md, "Time-out and take-back").  Without an agent,
 * the kernel compresses at once.
 */
static enum ozram_park_action ozram_park_next(struct ozram *oz)
{
	if (!ozram_ring_attached())
		return OZRAM_PARK_COMPRESS;
	if (ozram_ring_admit_open()) {
		oz->park_waiting_since = 0;
		return OZRAM_PARK_STAGE;
	}
	if (!oz->park_waiting_since)
		oz->park_waiting_since = jiffies | 1;
	if (time_before(jiffies, oz->park_waiting_since +
			ozram_ring_timeout()))
		return OZRAM_PARK_WAIT;
	return OZRAM_PARK_COMPRESS;
}

/* The device's worker: a batch of parked pages, oldest first. */
static void ozram_park_fn(struct work_struct *work)
{
	struct ozram *oz = container_of(to_delayed_work(work), struct ozram,
					park_work);
	enum ozram_park_action action;
	unsigned long delay = 1;
	struct page *page;
	int n, ret = 0;
	u32 index;

	/* Never wait for init_lock: a reset holds it and cancels this work. */
	if (!down_read_trylock(&oz->init_lock))
		goto again;
	if (!ozram_init_done(oz) || !kfifo_initialized(&oz->park_fifo) ||
	    kfifo_is_empty(&oz->park_fifo)) {
		up_read(&oz->init_lock);
		return;
	}
	action = ozram_park_next(oz);
	if (action == OZRAM_PARK_WAIT) {
		up_read(&oz->init_lock);
		goto again;
	}
	page = alloc_page(GFP_NOIO);
	if (!page) {
		up_read(&oz->init_lock);
		goto again;
	}
	for (n = 0; n < OZRAM_PARK_BATCH; n++) {
		if (!kfifo_peek(&oz->park_fifo, &index))
			break;
		ret = ozram_park_flush(oz, index, page,
				       action == OZRAM_PARK_STAGE);
		if (ret)
			break;
		kfifo_skip(&oz->park_fifo);
	}
	__free_page(page);
	if (!ret && kfifo_is_empty(&oz->park_fifo)) {
		up_read(&oz->init_lock);
		return;
	}
	up_read(&oz->init_lock);
	if (!ret)
		delay = 0;	/* a full batch: more to do at once */
	else if (ret != -EBUSY && ret != -EAGAIN)
		pr_warn_ratelimited("%s: parked page %u: %d\n",
				    oz->disk->disk_name, index, ret);
again:
	ozram_park_kick(oz, delay);
}

int ozram_park_alloc(struct ozram *oz, u64 disksize)
{
	unsigned long n = min_t(unsigned long, disksize >> PAGE_SHIFT,
				ozram_park_limit_pages());
	u32 *buf;

	if (n < 2)
		return 0;		/* no parking */
	n = min_t(unsigned long, roundup_pow_of_two(n), OZRAM_PARK_QUEUE_MAX);
	buf = kvmalloc_array(n, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	return kfifo_init(&oz->park_fifo, buf, n * sizeof(*buf));
}

void ozram_park_free(struct ozram *oz)
{
	kvfree(oz->park_fifo.kfifo.data);
	memset(&oz->park_fifo, 0, sizeof(oz->park_fifo));
}

void ozram_park_init(struct ozram *oz)
{
	spin_lock_init(&oz->park_lock);
	INIT_DELAYED_WORK(&oz->park_work, ozram_park_fn);
}

void ozram_park_stop(struct ozram *oz)
{
	cancel_delayed_work_sync(&oz->park_work);
}

int ozram_park_wq_create(void)
{
	ozram_park_wq = alloc_workqueue("ozram_park",
					WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return ozram_park_wq ? 0 : -ENOMEM;
}

void ozram_park_wq_destroy(void)
{
	destroy_workqueue(ozram_park_wq);
}
