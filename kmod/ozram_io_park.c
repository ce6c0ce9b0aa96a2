// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path: parked pages (Documentation/kmod.md, "Parked pages").
 *
 * A written page that finds the ring full, or admission closed, would be
 * compressed by its writer: the write then costs what a zram write costs.
 * Instead, while an agent is attached, the page is parked: held raw in a
 * page of its own, at the cost of a 4 KiB copy, as staging costs.  The
 * device's worker stages parked pages as the agent drains the ring, oldest
 * first, straight from those pages, and from then on they are staged pages
 * like any other; it compresses them in the kernel when the agent stalls
 * or goes.  Reclaim never parks (a page held raw frees no memory), nor does
 * a writer past the limit on the memory that parked pages may hold, nor
 * one past mem_limit, which counts the pages that hold parked pages.
 *
 * The pages are not zsmalloc objects: a parked page fills a page, which
 * zsmalloc would take from the page allocator for each one, zeroed (the
 * kernel zeroes every page it allocates when init_on_alloc is on, as in
 * Debian's kernels), and give back when it is staged.  While pages are
 * being parked, the device's pool keeps a batch of the pages that staging
 * frees for the next writers instead.  They are not movable: a parked page
 * waits only until the agent drains the ring, and the pool is emptied once
 * a second has passed with nothing parked.
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
/* Freed pages that a device keeps for parking: one batch of the worker. */
#define OZRAM_PARK_POOL		OZRAM_PARK_BATCH

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
 * A page to park into: one of the pool's, or a new one that mem_limit has
 * room for.  Every page a device holds for parking is counted in
 * park_held, so in mem_used_total.
 */
static struct page *ozram_park_hold(struct ozram *oz)
{
	struct page *page = NULL;
	unsigned long limit;

	spin_lock(&oz->park_lock);
	if (oz->park_pool_nr) {
		page = list_first_entry(&oz->park_pool, struct page, lru);
		list_del(&page->lru);
		oz->park_pool_nr--;
	}
	spin_unlock(&oz->park_lock);
	if (page)
		return page;

	/*
	 * Full already: refused before a page is taken, cleared and given
	 * back, for each write at the limit.  The check after the taking
	 * is the one that holds the limit.  Neither counts as a refusal:
	 * the writer compresses the page, and its store is what may be
	 * refused.
	 */
	limit = READ_ONCE(oz->limit_pages);
	if (limit && ozram_mem_used_pages(oz) >= limit)
		return NULL;
	/* Not movable: nothing migrates a parked page. */
	page = alloc_page(OZRAM_GFP_NOWAIT & ~__GFP_MOVABLE);
	if (!page)
		return NULL;
	atomic_long_inc(&oz->park_held);
	if (ozram_mem_taken_over_limit(oz, 0)) {
		__free_page(page);
		atomic_long_dec(&oz->park_held);
		return NULL;
	}
	return page;
}

/*
 * Slot lock held, or the page not installed.  The pool keeps the page
 * unless the device is at mem_limit, where the page would keep memory
 * from objects, or has no queue (reset).
 */
void ozram_park_release(struct ozram *oz, struct page *page)
{
	bool keep = !oz->limit_pages ||
		    ozram_mem_used_pages(oz) < oz->limit_pages;

	spin_lock(&oz->park_lock);
	if (keep && oz->park_pool_nr < OZRAM_PARK_POOL &&
	    kfifo_initialized(&oz->park_fifo)) {
		list_add(&page->lru, &oz->park_pool);
		oz->park_pool_nr++;
		page = NULL;
	}
	spin_unlock(&oz->park_lock);
	if (page) {
		__free_page(page);
		atomic_long_dec(&oz->park_held);
	}
}

/* Frees the pages that the pool keeps. */
static void ozram_park_empty_pool(struct ozram *oz)
{
	struct page *page, *next;
	LIST_HEAD(pages);

	spin_lock(&oz->park_lock);
	list_splice_init(&oz->park_pool, &pages);
	oz->park_pool_nr = 0;
	spin_unlock(&oz->park_lock);
	list_for_each_entry_safe(page, next, &pages, lru) {
		__free_page(page);
		atomic_long_dec(&oz->park_held);
	}
}

int ozram_park_page(struct ozram *oz, struct page *page, u32 index)
{
	struct page *held;
	bool queued;

	if (!kfifo_initialized(&oz->park_fifo) ||
	    (current->flags & PF_MEMALLOC) || !ozram_ring_attached() ||
	    atomic_long_read(&ozram_parked_pages) >=
	    ozram_park_limit_pages())
		return -EBUSY;

	/* No reclaim for a page that is only held: compress it instead. */
	held = ozram_park_hold(oz);
	if (!held)
		return -ENOMEM;
	copy_highpage(held, page);

	/* Queued under the slot lock: the worker finds the slot parked. */
	ozram_slot_lock(oz, index);
	spin_lock(&oz->park_lock);
	queued = kfifo_put(&oz->park_fifo, index);
	spin_unlock(&oz->park_lock);
	if (queued)
		ozram_obj_install_parked(oz, index, held);
	ozram_slot_unlock(oz, index);
	if (!queued) {
		ozram_park_release(oz, held);
		return -EBUSY;
	}

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
 * Stores parked slot @index, whose page @page holds, raw: it does not
 * compress, or mem_limit has no room for its compressed object.  The raw
 * object replaces the page, which is then freed.  Slot lock held.
 */
static int ozram_park_store_raw_locked(struct ozram *oz, u32 index,
				       struct page *page)
{
	struct ozram_obj obj = { .len = PAGE_SIZE, .replacing = true };
	unsigned long handle;
	int ret;

	obj.buf = kmap_local_page(page);
	ret = ozram_obj_alloc(oz, &obj, OZRAM_GFP_NOWAIT, &handle);
	kunmap_local(obj.buf);
	if (!ret)
		ozram_obj_install(oz, index, &obj, handle);
	return ret;
}

/*
 * Compresses parked slot @index, whose page @page holds, in the kernel: no
 * agent takes it.  Slot lock held, as zram's recompression holds it, so
 * the slot cannot change under the result; hence the allocation may not
 * sleep.  A page that does not compress, or whose smaller object mem_limit
 * has no room for, is stored raw.
 * Return: 0, -EAGAIN to try again later, or -ENOMEM at mem_limit.
 */
static int ozram_park_compress_locked(struct ozram *oz, u32 index,
				      struct page *page)
{
	struct ozram_comp *comp = oz->comps[OZRAM_PRIMARY_COMP];
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
	return ozram_park_store_raw_locked(oz, index, page);
}

/*
 * Hands parked slot @index to the agent (@stage), or compresses it in the
 * kernel, from the page that holds it.  Return: 0 when done or when the
 * slot was rewritten since (nothing to do), -EBUSY while the ring is full,
 * -EAGAIN when out of memory for now, -ENOMEM at mem_limit.
 */
static int ozram_park_flush(struct ozram *oz, u32 index, bool stage)
{
	struct page *page;
	bool idle;
	int ret;

	ozram_slot_lock(oz, index);
	if (!ozram_test_flag(oz, index, OZRAM_SLOT_PARKED)) {
		ozram_slot_unlock(oz, index);
		return 0;
	}
	/* The page staged or stored keeps its idle mark (ozram_obj). */
	idle = ozram_test_flag(oz, index, OZRAM_SLOT_IDLE);
	page = ozram_parked_page(oz, index);
	if (stage) {
		/* No fallback event: the page stays parked, its writer gone. */
		ret = ozram_stage_locked(oz, index, page);
		if (ret != -ENODEV && ret != -EOPNOTSUPP)
			goto out;
	}
	ret = ozram_park_compress_locked(oz, index, page);
out:
	if (!ret && idle)
		ozram_set_flag(oz, index, OZRAM_SLOT_IDLE);
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
 * closed for ring_timeout_ms since it closed, the agent is stalled, and
 * the kernel compresses what it holds, as it does with the agent's own
 * pages (Documentation/kmod.md, "Time-out and take-back").  The time is
 * the ring's, not the worker's: a worker that finds admission closed by a
 * burst long after a stall waits for this one.  Without an agent, the
 * kernel compresses at once.
 */
static enum ozram_park_action ozram_park_next(void)
{
	if (!ozram_ring_attached())
		return OZRAM_PARK_COMPRESS;
	if (ozram_ring_admit_open())
		return OZRAM_PARK_STAGE;
	if (!ozram_ring_admit_stalled())
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
	int n, ret = 0;
	u32 index;

	/* Never wait for init_lock: a reset holds it and cancels this work. */
	if (!down_read_trylock(&oz->init_lock))
		goto again;
	if (!ozram_init_done(oz) || !kfifo_initialized(&oz->park_fifo)) {
		up_read(&oz->init_lock);
		return;
	}
	if (kfifo_is_empty(&oz->park_fifo)) {
		/*
		 * Nothing parked, whoever staged the last page, a batch or a
		 * probe: keep the pool a second for the next writer.
		 */
		queue_delayed_work(ozram_park_wq, &oz->park_pool_work, HZ);
		up_read(&oz->init_lock);
		return;
	}
	action = ozram_park_next();
	if (action == OZRAM_PARK_WAIT) {
		/*
		 * Admission reopens when a probe comes back, and writers may
		 * have stopped: the worker offers its oldest page as one.
		 */
		if (ozram_ring_admit() && kfifo_peek(&oz->park_fifo, &index) &&
		    !ozram_park_flush(oz, index, true))
			kfifo_skip(&oz->park_fifo);
		up_read(&oz->init_lock);
		goto again;
	}
	for (n = 0; n < OZRAM_PARK_BATCH; n++) {
		if (!kfifo_peek(&oz->park_fifo, &index))
			break;
		ret = ozram_park_flush(oz, index, action == OZRAM_PARK_STAGE);
		if (ret)
			break;
		kfifo_skip(&oz->park_fifo);
		/* A batch may compress 256 pages, zstd's at that. */
		cond_resched();
	}
	up_read(&oz->init_lock);
	if (!ret)
		delay = 0;	/* a full batch, or the last: look again at once */
	else if (ret == -ENOMEM)
		ozram_make_room(oz);	/* at mem_limit: compact, then retry */
	else if (ret != -EBUSY && ret != -EAGAIN)
		pr_warn_ratelimited("%s: parked page %u: %d\n",
				    oz->disk->disk_name, index, ret);
again:
	ozram_park_kick(oz, delay);
}

/*
 * The pool's timer: frees the pool once a second has passed with no page
 * parked, and looks again a second later otherwise.  Pages parked in
 * bursts, as writers meet a full ring, reuse the pages of the last burst.
 */
static void ozram_park_pool_fn(struct work_struct *work)
{
	struct ozram *oz = container_of(to_delayed_work(work), struct ozram,
					park_pool_work);
	u64 parked = ozram_stat_read(oz, OZRAM_STAT_PARKED);

	if (parked != oz->park_pool_parked) {
		oz->park_pool_parked = parked;
		queue_delayed_work(ozram_park_wq, &oz->park_pool_work, HZ);
		return;
	}
	ozram_park_empty_pool(oz);
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

/* After the slots are freed, so that no page is parked any more. */
void ozram_park_free(struct ozram *oz)
{
	kvfree(oz->park_fifo.kfifo.data);
	memset(&oz->park_fifo, 0, sizeof(oz->park_fifo));
	ozram_park_empty_pool(oz);
	WARN_ON_ONCE(atomic_long_read(&oz->park_held));
}

void ozram_park_init(struct ozram *oz)
{
	spin_lock_init(&oz->park_lock);
	INIT_LIST_HEAD(&oz->park_pool);
	INIT_DELAYED_WORK(&oz->park_work, ozram_park_fn);
	INIT_DELAYED_WORK(&oz->park_pool_work, ozram_park_pool_fn);
}

/* The pool's timer after the worker, which queues it. */
void ozram_park_stop(struct ozram *oz)
{
	cancel_delayed_work_sync(&oz->park_work);
	cancel_delayed_work_sync(&oz->park_pool_work);
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
