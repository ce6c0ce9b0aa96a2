// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path: the pages of a device, read and written.  One of the
 * slot table's writers (ozram_slot.h says which); what a slot holds is in
 * ozram_io_slot.c.
 *
 * Writes go through three steps (Documentation/kmod.md, "The write path"):
 * ozram_write_page() catches same-filled pages, ozram_store_page() chooses
 * how to compress, and ozram_store_object() allocates, accounts and
 * installs the result whoever produced it.  A page staged for the agent is
 * the ring's to carry; its outcome comes back to the ops below.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "ozram_comp.h"
#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_io_internal.h"
#include "ozram_ring_api.h"
#include "ozram_slot.h"
#include "ozram_trace.h"

/* ---- read path ------------------------------------------------------- */

int ozram_read_page(struct ozram *oz, struct page *page, u32 index,
		    struct bio *parent)
{
	unsigned long handle;
	unsigned int size;
	u32 prio;
	void *dst;
	int ret;

	ozram_slot_lock(oz, index);
	handle = oz->table[index].handle;
	if (ozram_test_flag(oz, index, OZRAM_SLOT_WB)) {
		/*
		 * On the backing device: read without the slot lock, which
		 * cannot be held across I/O.  A discard that races the read
		 * leaves its result undefined, as in zram.
		 */
		size = ozram_get_obj_size(oz, index);
		prio = ozram_get_priority(oz, index);
		if (!ozram_test_flag(oz, index, OZRAM_SLOT_WB_PACKED))
			size = 0;
		ozram_slot_unlock(oz, index);
		if (size)
			ret = ozram_wb_read_packed(oz, handle, size, prio,
						   page, parent);
		else
			ret = ozram_wb_read(oz, handle, page, parent);
		if (ret)
			pr_err_ratelimited("%s: page %u: backing device read failed: %d\n",
					   oz->disk->disk_name, index, ret);
		return ret;
	}
	if (ozram_slot_waits_for_agent(oz, index)) {
		/* The staged copy, or the page that holds it parked, is it. */
		if (ozram_test_flag(oz, index, OZRAM_SLOT_STAGED)) {
			dst = kmap_local_page(page);
			memcpy(dst, ozram_ring_staged_data(handle), PAGE_SIZE);
			kunmap_local(dst);
		} else {
			copy_highpage(page, ozram_parked_page(oz, index));
		}
		ozram_slot_unlock(oz, index);
		return 0;
	}
	if (!handle || ozram_test_flag(oz, index, OZRAM_SLOT_SAME)) {
		dst = kmap_local_page(page);
		memset_l(dst, handle, PAGE_SIZE / sizeof(unsigned long));
		kunmap_local(dst);
		ozram_slot_unlock(oz, index);
		return 0;
	}

	ret = ozram_read_object(oz, index, page);
	ozram_slot_unlock(oz, index);

	if (ret)
		pr_err_ratelimited("%s: page %u does not decompress\n",
				   oz->disk->disk_name, index);
	return ret;
}

/* ---- write path ------------------------------------------------------ */

/*
 * Whether a result may replace slot @index: always for a direct write; for
 * a staged page only while the slot still holds that staging (@arg, the
 * struct ozram_stage_ref).  An ozram_store_check_t: slot lock held.
 */
static int ozram_store_allowed(struct ozram *oz, u32 index, const void *arg)
{
	const struct ozram_stage_ref *ref = arg;

	if (!ref || (ozram_test_flag(oz, index, OZRAM_SLOT_STAGED) &&
		     oz->table[index].handle == ref->ring_slot &&
		     ozram_ring_stage_current(ref)))
		return 0;
	return -ESTALE;
}

static int ozram_store_same(struct ozram *oz, u32 index,
			    unsigned long element,
			    const struct ozram_stage_ref *ref)
{
	bool idle;
	int ret;

	ozram_slot_lock(oz, index);
	ret = ozram_store_allowed(oz, index, ref);
	if (!ret) {
		/* A staged page's result keeps its idle mark (ozram_obj). */
		idle = ref && ozram_test_flag(oz, index, OZRAM_SLOT_IDLE);
		ozram_free_slot(oz, index);
		if (idle)
			ozram_set_flag(oz, index, OZRAM_SLOT_IDLE);
		ozram_set_flag(oz, index, OZRAM_SLOT_SAME);
		oz->table[index].element = element;
		ozram_stat_inc(oz, OZRAM_STAT_SAME_PAGES);
		ozram_stat_add(oz, OZRAM_STAT_ORIG_DATA, PAGE_SIZE);
	}
	ozram_slot_unlock(oz, index);
	return ret;
}

/*
 * Stores @len bytes that @source compressed with the device's algorithm,
 * or the raw page when @len is PAGE_SIZE, in slot @index: for a direct
 * write (@ref NULL), or for the staging @ref.  Return: as
 * ozram_store_object(), -ESTALE when @ref is no longer current.
 */
static int ozram_store_compressed(struct ozram *oz, u32 index,
				  const void *buf, unsigned int len,
				  enum ozram_source source, gfp_t gfp,
				  const struct ozram_stage_ref *ref)
{
	const struct ozram_obj obj = {
		.buf = buf,
		.len = len,
		.prio = OZRAM_PRIMARY_COMP,
		.source = source,
		.same_page = !!ref,
	};

	return ozram_store_object(oz, index, &obj, gfp, ozram_store_allowed,
				  ref);
}

static int ozram_store_raw(struct ozram *oz, u32 index, struct page *page,
			   gfp_t gfp, const struct ozram_stage_ref *ref)
{
	void *src = kmap_local_page(page);
	int ret;

	ret = ozram_store_compressed(oz, index, src, PAGE_SIZE,
				     OZRAM_SRC_KERNEL, gfp, ref);
	kunmap_local(src);
	return ret;
}

/*
 * The slow path of inline compression: the per-CPU stream cannot be held
 * across a sleeping allocation, so compress again into a private copy and
 * store that with an allocation that may reclaim.
 */
static int ozram_compress_inline_slow(struct ozram *oz, struct page *page,
				      u32 index,
				      const struct ozram_stage_ref *ref)
{
	struct ozram_comp *comp = oz->comps[OZRAM_PRIMARY_COMP];
	unsigned int len;
	void *copy;
	int ret;

	ozram_stat_inc(oz, OZRAM_STAT_WRITESTALL);
	copy = kmalloc(PAGE_SIZE, GFP_NOIO);
	if (!copy)
		return -ENOMEM;

	ret = ozram_comp_compress_copy(comp, page, copy, ozram_huge_class_size,
				       &len);
	if (!ret) {
		if (len < ozram_huge_class_size)
			ret = ozram_store_compressed(oz, index, copy, len,
						     OZRAM_SRC_KERNEL,
						     OZRAM_GFP_WAIT, ref);
		else
			ret = ozram_store_raw(oz, index, page, OZRAM_GFP_WAIT,
					      ref);
	}
	kfree(copy);
	return ret;
}

/*
 * Compresses @page with the device's algorithm and stores it.  Without
 * @may_reclaim, an allocation that would have to reclaim fails with -EAGAIN
 * instead: the agent's context must never wait on reclaim.
 */
static int ozram_compress_inline(struct ozram *oz, struct page *page,
				 u32 index, bool may_reclaim,
				 const struct ozram_stage_ref *ref)
{
	struct ozram_comp *comp = oz->comps[OZRAM_PRIMARY_COMP];
	struct ozram_comp_stream *strm;
	unsigned int len;
	int ret;

	strm = ozram_comp_stream_get(comp);
	ret = ozram_comp_compress(strm, page, &len);
	if (ret) {
		ozram_comp_stream_put(comp);
		pr_err_ratelimited("%s: compression failed: %d\n",
				   oz->disk->disk_name, ret);
		return ret;
	}

	if (len >= ozram_huge_class_size) {
		ozram_comp_stream_put(comp);
		/* As zram: reclaim only once the allocation has to wait. */
		ret = ozram_store_raw(oz, index, page, OZRAM_GFP_NOWAIT, ref);
		if (ret == -EAGAIN && may_reclaim) {
			ozram_stat_inc(oz, OZRAM_STAT_WRITESTALL);
			ret = ozram_store_raw(oz, index, page, OZRAM_GFP_WAIT,
					      ref);
		}
		return ret;
	}

	ret = ozram_store_compressed(oz, index, strm->buffer, len,
				     OZRAM_SRC_KERNEL, OZRAM_GFP_NOWAIT, ref);
	ozram_comp_stream_put(comp);
	if (ret == -EAGAIN && may_reclaim)
		ret = ozram_compress_inline_slow(oz, page, index, ref);
	return ret;
}

/* ---- the staging of a written page ------------------------------------ */

/*
 * The outcome of a written page's staging, from the offload ring: each
 * replaces the device slot only while it still holds that staging
 * (-ESTALE otherwise), which gives the ring slot back.
 */
static gfp_t ozram_ring_gfp(bool may_reclaim)
{
	return may_reclaim ? OZRAM_GFP_WAIT : OZRAM_GFP_NOWAIT;
}

static int ozram_staged_stored(const struct ozram_ring_req *req,
			       const void *buf, unsigned int len,
			       enum ozram_source source, bool may_reclaim)
{
	return ozram_store_compressed(req->oz, req->index, buf, len, source,
				      ozram_ring_gfp(may_reclaim), &req->ref);
}

/* Copied once from the agent's output slot into its object, checked there. */
static int ozram_staged_stored_in_place(const struct ozram_ring_req *req,
					const struct ozram_ring_result *result,
					bool may_reclaim)
{
	struct ozram_obj obj = ozram_obj_of_result(result, OZRAM_PRIMARY_COMP,
						   false);

	obj.same_page = true;
	return ozram_store_object(req->oz, req->index, &obj,
				  ozram_ring_gfp(may_reclaim),
				  ozram_store_allowed, &req->ref);
}

static int ozram_staged_raw(const struct ozram_ring_req *req,
			    const void *page, bool may_reclaim)
{
	return ozram_store_compressed(req->oz, req->index, page, PAGE_SIZE,
				      OZRAM_SRC_KERNEL,
				      ozram_ring_gfp(may_reclaim), &req->ref);
}

static int ozram_staged_same(const struct ozram_ring_req *req,
			     unsigned long fill)
{
	return ozram_store_same(req->oz, req->index, fill, &req->ref);
}

/* The kernel compresses the staged copy, the ring's vmalloc memory. */
static int ozram_staged_failed(const struct ozram_ring_req *req,
			       const void *page, bool may_reclaim)
{
	return ozram_compress_inline(req->oz, vmalloc_to_page(page),
				     req->index, may_reclaim, &req->ref);
}

static const struct ozram_ring_ops ozram_staged_ops = {
	.stored = ozram_staged_stored,
	.stored_in_place = ozram_staged_stored_in_place,
	.raw = ozram_staged_raw,
	.same_filled = ozram_staged_same,
	.failed = ozram_staged_failed,
};

/*
 * The slot is marked staged under the lock it was staged under, so that a
 * result for the staging, which is stored under the same lock, finds the
 * slot naming it.
 */
int ozram_stage_locked(struct ozram *oz, u32 index, struct page *page)
{
	struct ozram_ring_req req = {
		.ops = &ozram_staged_ops,
		.oz = oz,
		.index = index,
		.comp = oz->comps[OZRAM_PRIMARY_COMP],
		.algorithm = oz->ring_algs[OZRAM_PRIMARY_COMP],
		.level = oz->ring_levels[OZRAM_PRIMARY_COMP],
		.admission = true,
	};
	int ret;

	ret = ozram_ring_stage(&req, page);
	if (ret)
		return ret;
	/* The old content may be staged itself, in another ring slot. */
	ozram_free_slot(oz, index);
	ozram_set_flag(oz, index, OZRAM_SLOT_STAGED);
	oz->table[index].handle = req.ref.ring_slot;
	ozram_stat_inc(oz, OZRAM_STAT_STAGED_PAGES);
	ozram_stat_add(oz, OZRAM_STAT_ORIG_DATA, PAGE_SIZE);
	trace_ozram_stage(oz->id, index, req.ref.ring_slot, req.ref.generation,
			  false);
	return 0;
}

static int ozram_stage_page(struct ozram *oz, struct page *page, u32 index)
{
	int ret;

	ozram_slot_lock(oz, index);
	ret = ozram_stage_locked(oz, index, page);
	ozram_slot_unlock(oz, index);
	if (ret)
		trace_ozram_fallback(oz->id, index, ret);
	return ret;
}

/*
 * Chooses how a page that is not same-filled gets compressed: staged for
 * the agent when one is attached, admission is open and the ring has room
 * (the write then completes at once).  When the agent is not keeping up
 * (the ring is full, or admission closed and skips the attempt), the page
 * is held raw for the agent to take later, as far as the parking limit
 * allows (ozram_io_park.c); otherwise it is compressed in the kernel.
 */
static int ozram_store_page(struct ozram *oz, struct page *page, u32 index)
{
	bool admitted = ozram_ring_admit();

	if (admitted) {
		int ret = ozram_stage_page(oz, page, index);

		if (!ret)
			return 0;
		/* No agent, or one that does not do the algorithm. */
		if (ret != -EBUSY)
			goto compress;
	}
	if (!ozram_park_page(oz, page, index))
		return 0;
	ozram_ring_count_inline(!admitted);
compress:
	return ozram_compress_inline(oz, page, index, true, NULL);
}

static bool page_same_filled(const void *ptr, unsigned long *element)
{
	const unsigned long *words = ptr;
	unsigned int last = PAGE_SIZE / sizeof(*words) - 1;
	unsigned long val = words[0];
	unsigned int pos;

	/* The last word first: most pages that differ, differ there too. */
	if (val != words[last])
		return false;
	for (pos = 1; pos < last; pos++) {
		if (val != words[pos])
			return false;
	}
	*element = val;
	return true;
}

int ozram_write_page(struct ozram *oz, struct page *page, u32 index)
{
	unsigned long element;
	bool same;
	void *mem;

	mem = kmap_local_page(page);
	same = page_same_filled(mem, &element);
	kunmap_local(mem);
	if (same)
		return ozram_store_same(oz, index, element, NULL);
	return ozram_store_page(oz, page, index);
}

/* ---- freeing slots ------------------------------------------------------ */

void ozram_discard_page(struct ozram *oz, u32 index)
{
	ozram_slot_lock(oz, index);
	ozram_free_slot(oz, index);
	ozram_slot_unlock(oz, index);
}

bool ozram_try_discard_page(struct ozram *oz, u32 index)
{
	if (!ozram_slot_trylock(oz, index))
		return false;
	ozram_free_slot(oz, index);
	ozram_slot_unlock(oz, index);
	return true;
}

int ozram_alloc_slots(struct ozram *oz, u64 disksize)
{
	int ret;

	/*
	 * vmalloc, as zram's table: kvmalloc() refuses more than INT_MAX
	 * bytes, a device of about 341 GiB.
	 */
	oz->table = __vmalloc(array_size(disksize >> PAGE_SHIFT,
					 sizeof(*oz->table)),
			      GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!oz->table)
		return -ENOMEM;
	ret = ozram_park_alloc(oz, disksize);
	if (ret) {
		kvfree(oz->table);
		oz->table = NULL;
	}
	return ret;
}

/*
 * Nothing else can reach the slots: the device has no openers, and the
 * ring's completions and stores are excluded (ozram_ring_lock_devices()).
 * A staged page gives its ring slot back, cleared.
 */
void ozram_free_slots(struct ozram *oz, u64 disksize)
{
	u32 num_pages = disksize >> PAGE_SHIFT;
	u32 index;

	for (index = 0; index < num_pages; index++) {
		if (ozram_test_flag(oz, index, OZRAM_SLOT_STAGED))
			ozram_ring_forget(oz->table[index].handle);
		ozram_free_slot(oz, index);
		/* A large device under the ring's reap mutex: let others run. */
		cond_resched();
	}
	kvfree(oz->table);
	oz->table = NULL;
	ozram_park_free(oz);
}
