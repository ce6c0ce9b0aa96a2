// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path: the pages of a device.  With ozram_io_recomp.c,
 * ozram_io_idle.c, ozram_io_park.c, ozram_io_wb.c and ozram_io_wb_packed.c
 * it is the only code that writes a device's slot table.
 *
 * A slot holds nothing (reads as zeroes), a repeated word, a page staged
 * for the agent, a block of the backing device (ozram_io_wb.c), or a
 * zsmalloc object that is either compressed data or the raw page: stored
 * raw because compression does not save enough, or parked until the agent
 * takes it (ozram_io_park.c).
 *
 * Writes go through three steps (Documentation/kmod.md, "The write path"):
 * ozram_write_page() catches same-filled pages, ozram_store_page() chooses
 * how to compress, and ozram_commit_compressed() allocates, accounts and
 * installs the result whoever produced it.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "ozram_comp.h"
#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_io_internal.h"
#include "ozram_ring_api.h"
#include "ozram_slot.h"

/* Drops whatever the slot holds; the slot lock must be held. */
void ozram_free_slot(struct ozram *oz, u32 index)
{
	struct ozram_stats *st = &oz->stats;
	struct ozram_slot *slot = &oz->table[index];

	ozram_clear_flag(oz, index, OZRAM_SLOT_IDLE);
	/* A recompression of the old content must not land on the new. */
	ozram_clear_flag(oz, index, OZRAM_SLOT_RECOMPRESSING);
	/* A writeback of the old content must not land on the new. */
	ozram_clear_flag(oz, index, OZRAM_SLOT_UNDER_WB);

	if (ozram_test_flag(oz, index, OZRAM_SLOT_WB)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_WB);
		if (ozram_test_flag(oz, index, OZRAM_SLOT_WB_PACKED)) {
			ozram_clear_flag(oz, index, OZRAM_SLOT_WB_PACKED);
			ozram_set_priority(oz, index, OZRAM_PRIMARY_COMP);
			ozram_wb_put_object(oz, slot->element,
					    ozram_get_obj_size(oz, index));
		} else {
			ozram_wb_free_block(oz, slot->element);
		}
		goto out;
	}

	if (ozram_test_flag(oz, index, OZRAM_SLOT_STAGED)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_STAGED);
		ozram_ring_release(slot->handle);
		atomic64_dec(&st->staged_pages);
		goto out;
	}

	if (ozram_test_flag(oz, index, OZRAM_SLOT_SAME)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_SAME);
		atomic64_dec(&st->same_pages);
		goto out;
	}

	if (!slot->handle)
		return;

	if (ozram_test_flag(oz, index, OZRAM_SLOT_PARKED)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_PARKED);
		ozram_park_forget(oz);
		goto free_object;
	}

	if (ozram_test_flag(oz, index, OZRAM_SLOT_HUGE)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_HUGE);
		atomic64_dec(&st->huge_pages);
	} else {
		atomic64_dec(&st->source_pages[ozram_slot_source(oz, index)]);
	}
	if (ozram_get_priority(oz, index) != OZRAM_PRIMARY_COMP)
		atomic64_dec(&st->recompressed_pages);
	ozram_clear_flag(oz, index, OZRAM_SLOT_SRC_AGENT_CPU);
	ozram_clear_flag(oz, index, OZRAM_SLOT_SRC_AGENT_GPU);
	ozram_clear_flag(oz, index, OZRAM_SLOT_INCOMPRESSIBLE);
	ozram_set_priority(oz, index, OZRAM_PRIMARY_COMP);
free_object:
	zs_free(oz->mem_pool, slot->handle);
	atomic64_sub(ozram_get_obj_size(oz, index), &st->compr_data_size);
out:
	atomic64_dec(&st->pages_stored);
	slot->handle = 0;
	ozram_set_obj_size(oz, index, 0);
	WARN_ON_ONCE(slot->flags & ~BIT(OZRAM_SLOT_LOCK));
}

/* ---- read path ------------------------------------------------------- */

/* Slot lock held: the object of slot @index, stored raw or compressed. */
int ozram_read_object(struct ozram *oz, u32 index, struct page *page)
{
	unsigned long handle = oz->table[index].handle;
	unsigned int size = ozram_get_obj_size(oz, index);
	struct ozram_comp_stream *strm = NULL;
	struct ozram_comp *comp = NULL;
	void *src, *dst;
	int ret = 0;

	/*
	 * The stream before the mapping, as zram orders them: a write holds a
	 * stream while zs_malloc() takes the pool's lock, and a mapping holds
	 * locks taken under that pool lock, so decoding inside the mapping
	 * would close a cycle (lockdep reports it; where these locks sleep it
	 * can deadlock).
	 */
	if (size != PAGE_SIZE) {
		comp = oz->comps[ozram_get_priority(oz, index)];
		if (!comp)
			return -EIO;
		strm = ozram_comp_stream_get(comp);
	}
	src = zs_map_object(oz->mem_pool, handle, ZS_MM_RO);
	dst = kmap_local_page(page);
	if (strm)
		ret = ozram_comp_decompress(strm, src, size, dst);
	else
		memcpy(dst, src, PAGE_SIZE);
	kunmap_local(dst);
	zs_unmap_object(oz->mem_pool, handle);
	if (strm)
		ozram_comp_stream_put(comp);
	return ret;
}

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
	if (ozram_test_flag(oz, index, OZRAM_SLOT_STAGED)) {
		/* Waiting for the agent: the staged copy is the page. */
		dst = kmap_local_page(page);
		memcpy(dst, ozram_ring_staged_data(handle), PAGE_SIZE);
		kunmap_local(dst);
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
 * a staged page only while the slot still holds that staging (@ref).  The
 * slot lock must be held.
 */
static bool ozram_commit_allowed(struct ozram *oz, u32 index,
				 const struct ozram_stage_ref *ref)
{
	if (!ref)
		return true;
	return ozram_test_flag(oz, index, OZRAM_SLOT_STAGED) &&
	       oz->table[index].handle == ref->ring_slot &&
	       ozram_ring_stage_current(ref);
}

static int ozram_store_same(struct ozram *oz, u32 index,
			    unsigned long element,
			    const struct ozram_stage_ref *ref)
{
	ozram_slot_lock(oz, index);
	if (!ozram_commit_allowed(oz, index, ref)) {
		ozram_slot_unlock(oz, index);
		return -ESTALE;
	}
	ozram_free_slot(oz, index);
	ozram_set_flag(oz, index, OZRAM_SLOT_SAME);
	oz->table[index].element = element;
	ozram_slot_unlock(oz, index);

	atomic64_inc(&oz->stats.same_pages);
	atomic64_inc(&oz->stats.pages_stored);
	return 0;
}

/**
 * ozram_commit_compressed() - store a compressed page in slot @index
 * @oz: the device
 * @index: the slot
 * @buf: LZ4 data, or the raw page when @len is PAGE_SIZE
 * @len: bytes in @buf, 1..PAGE_SIZE
 * @prio: the priority of the device algorithm that produced @buf
 * @source: the path that produced @buf, for backend_stat
 * @gfp: OZRAM_GFP_NOWAIT from atomic context, OZRAM_GFP_WAIT otherwise
 * @ref: for a page compressed from a staging slot, that staging: the
 *       result is dropped if the slot has been overwritten since; or NULL
 *
 * This is the one place that allocates storage, enforces mem_limit and
 * accounts a page, whichever path compressed it.
 *
 * Return: 0, -EAGAIN when a non-sleeping allocation failed (the caller may
 * retry where it can sleep), -ENOMEM when out of memory or over mem_limit,
 * -EINVAL on a bad length, -ESTALE when @ref is no longer current.
 */
static int ozram_commit_compressed(struct ozram *oz, u32 index,
				   const void *buf, unsigned int len, u32 prio,
				   enum ozram_source source, gfp_t gfp,
				   const struct ozram_stage_ref *ref)
{
	unsigned long handle, pages;
	void *dst;

	might_sleep_if(gfpflags_allow_blocking(gfp));
	if (!len || len > PAGE_SIZE)
		return -EINVAL;

	handle = zs_malloc(oz->mem_pool, len, gfp);
	if (IS_ERR_VALUE(handle))
		return (gfp & __GFP_DIRECT_RECLAIM) ? -ENOMEM : -EAGAIN;

	pages = zs_get_total_pages(oz->mem_pool);
	ozram_stats_update_used_max(&oz->stats, pages);
	if (oz->limit_pages && pages > oz->limit_pages) {
		zs_free(oz->mem_pool, handle);
		return -ENOMEM;
	}

	dst = zs_map_object(oz->mem_pool, handle, ZS_MM_WO);
	memcpy(dst, buf, len);
	zs_unmap_object(oz->mem_pool, handle);

	ozram_slot_lock(oz, index);
	if (!ozram_commit_allowed(oz, index, ref)) {
		ozram_slot_unlock(oz, index);
		zs_free(oz->mem_pool, handle);
		return -ESTALE;
	}
	ozram_install_object(oz, index, handle, len, prio, source);
	ozram_slot_unlock(oz, index);
	return 0;
}

void ozram_install_object(struct ozram *oz, u32 index, unsigned long handle,
			  unsigned int len, u32 prio, enum ozram_source source)
{
	ozram_free_slot(oz, index);
	oz->table[index].handle = handle;
	ozram_set_obj_size(oz, index, len);
	if (len == PAGE_SIZE) {
		ozram_set_flag(oz, index, OZRAM_SLOT_HUGE);
		atomic64_inc(&oz->stats.huge_pages);
		atomic64_inc(&oz->stats.huge_pages_since);
	} else {
		ozram_set_priority(oz, index, prio);
		ozram_set_slot_source(oz, index, source);
		atomic64_inc(&oz->stats.source_pages[source]);
	}
	atomic64_add(len, &oz->stats.compr_data_size);
	atomic64_inc(&oz->stats.pages_stored);
}

static int ozram_commit_raw(struct ozram *oz, u32 index, struct page *page,
			    gfp_t gfp, const struct ozram_stage_ref *ref)
{
	void *src = kmap_local_page(page);
	int ret;

	ret = ozram_commit_compressed(oz, index, src, PAGE_SIZE,
				      OZRAM_PRIMARY_COMP, OZRAM_SRC_KERNEL, gfp, ref);
	kunmap_local(src);
	return ret;
}

/*
 * The slow path of inline compression: the per-CPU stream cannot be held
 * across a sleeping allocation, so compress again into a private copy and
 * commit that with an allocation that may reclaim.
 */
static int ozram_compress_inline_slow(struct ozram *oz, struct page *page,
				      u32 index,
				      const struct ozram_stage_ref *ref)
{
	struct ozram_comp *comp = oz->comps[OZRAM_PRIMARY_COMP];
	unsigned int len;
	void *copy;
	int ret;

	atomic64_inc(&oz->stats.writestall);
	copy = kmalloc(PAGE_SIZE, GFP_NOIO);
	if (!copy)
		return -ENOMEM;

	ret = ozram_comp_compress_copy(comp, page, copy, ozram_huge_class_size,
				       &len);

	if (!ret) {
		if (len < ozram_huge_class_size)
			ret = ozram_commit_compressed(oz, index, copy, len,
						      OZRAM_PRIMARY_COMP,
						      OZRAM_SRC_KERNEL,
						      OZRAM_GFP_WAIT, ref);
		else
			ret = ozram_commit_raw(oz, index, page, OZRAM_GFP_WAIT,
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
		return ozram_commit_raw(oz, index, page, may_reclaim ?
					OZRAM_GFP_WAIT : OZRAM_GFP_NOWAIT, ref);
	}

	ret = ozram_commit_compressed(oz, index, strm->buffer, len,
				      OZRAM_PRIMARY_COMP, OZRAM_SRC_KERNEL, OZRAM_GFP_NOWAIT,
				      ref);
	ozram_comp_stream_put(comp);
	if (ret == -EAGAIN && may_reclaim)
		ret = ozram_compress_inline_slow(oz, page, index, ref);
	return ret;
}

/*
 * Hands @page to the agent through the ring.  The slot is marked staged
 * under the lock it was staged under, so that a result for the staging,
 * which commits under the same lock, finds the slot naming it.
 */
static int ozram_stage_page(struct ozram *oz, struct page *page, u32 index)
{
	struct ozram_stage_ref ref;
	int ret;

	ozram_slot_lock(oz, index);
	ret = ozram_ring_stage(oz, index, page,
			       oz->ring_algs[OZRAM_PRIMARY_COMP], &ref);
	if (!ret)
		ozram_set_staged(oz, index, ref.ring_slot);
	ozram_slot_unlock(oz, index);
	return ret;
}

void ozram_set_staged(struct ozram *oz, u32 index, u32 ring_slot)
{
	/* The old content may be staged itself, in another ring slot. */
	ozram_free_slot(oz, index);
	ozram_set_flag(oz, index, OZRAM_SLOT_STAGED);
	oz->table[index].handle = ring_slot;
	atomic64_inc(&oz->stats.pages_stored);
	atomic64_inc(&oz->stats.staged_pages);
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

/* ---- results for staged pages, from the offload ring ----------------- */

int ozram_store_staged_inline(struct ozram *oz, u32 index, struct page *page,
			      bool may_reclaim,
			      const struct ozram_stage_ref *ref)
{
	return ozram_compress_inline(oz, page, index, may_reclaim, ref);
}

int ozram_store_staged_compressed(struct ozram *oz, u32 index,
				  const void *buf, unsigned int len, u32 prio,
				  enum ozram_source source, bool may_reclaim,
				  const struct ozram_stage_ref *ref)
{
	return ozram_commit_compressed(oz, index, buf, len, prio, source,
				       may_reclaim ? OZRAM_GFP_WAIT :
				       OZRAM_GFP_NOWAIT, ref);
}

int ozram_store_staged_same(struct ozram *oz, u32 index,
			    unsigned long element,
			    const struct ozram_stage_ref *ref)
{
	return ozram_store_same(oz, index, element, ref);
}

int ozram_decode(struct ozram *oz, u32 prio, const void *src,
		 unsigned int len, void *dst)
{
	struct ozram_comp *comp = oz->comps[prio];
	struct ozram_comp_stream *strm;
	int ret;

	if (!comp)
		return -EIO;
	strm = ozram_comp_stream_get(comp);
	ret = ozram_comp_decompress(strm, src, len, dst);
	ozram_comp_stream_put(comp);
	return ret;
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

	oz->table = kvcalloc(disksize >> PAGE_SHIFT, sizeof(*oz->table),
			     GFP_KERNEL | __GFP_NOWARN);
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
