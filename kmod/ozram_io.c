// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path: reads, writes, discards and swap slot frees.
 *
 * A slot holds nothing (reads as zeroes), a repeated word, or a zsmalloc
 * object that is either LZ4 data or, when LZ4 does not save enough, the raw
 * page.  Every request is served synchronously, in the caller's context.
 *
 * Writes go through three steps so that an asynchronous offload path can
 * be added without reshaping them (Documentation/kmod.md):
 * ozram_write_page() catches same-filled pages, ozram_store_page() chooses
 * how to compress, and ozram_commit_compressed() allocates, accounts and
 * installs the result whoever produced it.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "ozram_comp.h"
#include "ozram_drv.h"
#include "ozram_offload.h"
#include "ozram_slot.h"

/* zsmalloc flags for allocations that must not sleep. */
#define OZRAM_GFP_NOWAIT (__GFP_KSWAPD_RECLAIM | __GFP_NOWARN | \
			  __GFP_HIGHMEM | __GFP_MOVABLE)
/* zsmalloc flags for allocations that may reclaim. */
#define OZRAM_GFP_WAIT (GFP_NOIO | __GFP_HIGHMEM | __GFP_MOVABLE)

/* Drops whatever the slot holds; the slot lock must be held. */
void ozram_free_slot(struct ozram *oz, u32 index)
{
	struct ozram_stats *st = &oz->stats;
	struct ozram_slot *slot = &oz->table[index];

	ozram_clear_flag(oz, index, OZRAM_SLOT_IDLE);

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

	if (ozram_test_flag(oz, index, OZRAM_SLOT_HUGE)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_HUGE);
		atomic64_dec(&st->huge_pages);
	} else {
		atomic64_dec(&st->source_pages[ozram_slot_source(oz, index)]);
	}
	ozram_clear_flag(oz, index, OZRAM_SLOT_SRC_AGENT_CPU);
	ozram_clear_flag(oz, index, OZRAM_SLOT_SRC_AGENT_GPU);

	zs_free(oz->mem_pool, slot->handle);
	atomic64_sub(ozram_get_obj_size(oz, index), &st->compr_data_size);
out:
	atomic64_dec(&st->pages_stored);
	slot->handle = 0;
	ozram_set_obj_size(oz, index, 0);
	WARN_ON_ONCE(slot->flags & ~BIT(OZRAM_SLOT_LOCK));
}

static void ozram_free_slot_locked(struct ozram *oz, u32 index)
{
	ozram_slot_lock(oz, index);
	ozram_free_slot(oz, index);
	ozram_slot_unlock(oz, index);
}

/* ---- read path ------------------------------------------------------- */

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

/* Decodes slot @index into the whole of @page. */
static int ozram_read_page(struct ozram *oz, struct page *page, u32 index)
{
	unsigned long handle;
	unsigned int size;
	void *src, *dst;
	int ret = 0;

	ozram_slot_lock(oz, index);
	handle = oz->table[index].handle;
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

	size = ozram_get_obj_size(oz, index);
	src = zs_map_object(oz->mem_pool, handle, ZS_MM_RO);
	dst = kmap_local_page(page);
	if (size == PAGE_SIZE)
		memcpy(dst, src, PAGE_SIZE);
	else
		ret = ozram_comp_decompress(src, size, dst);
	kunmap_local(dst);
	zs_unmap_object(oz->mem_pool, handle);
	ozram_slot_unlock(oz, index);

	if (ret)
		pr_err_ratelimited("%s: page %u does not decompress\n",
				   oz->disk->disk_name, index);
	return ret;
}

static int ozram_bvec_read(struct ozram *oz, struct bio_vec *bvec, u32 index,
			   unsigned int offset)
{
	struct page *page;
	void *src;
	int ret;

	if (bvec->bv_len == PAGE_SIZE)
		return ozram_read_page(oz, bvec->bv_page, index);

	/* Part of a page: decode it whole, then copy out the part. */
	page = alloc_page(GFP_NOIO | __GFP_HIGHMEM);
	if (!page)
		return -ENOMEM;
	ret = ozram_read_page(oz, page, index);
	if (!ret) {
		src = kmap_local_page(page);
		memcpy_to_bvec(bvec, src + offset);
		kunmap_local(src);
	}
	__free_page(page);
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
				   const void *buf, unsigned int len,
				   enum ozram_source source, gfp_t gfp,
				   const struct ozram_stage_ref *ref)
{
	unsigned long handle, pages;
	void *dst;

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
	ozram_free_slot(oz, index);
	oz->table[index].handle = handle;
	ozram_set_obj_size(oz, index, len);
	if (len == PAGE_SIZE) {
		ozram_set_flag(oz, index, OZRAM_SLOT_HUGE);
	} else {
		ozram_set_slot_source(oz, index, source);
		atomic64_inc(&oz->stats.source_pages[source]);
	}
	ozram_slot_unlock(oz, index);

	if (len == PAGE_SIZE) {
		atomic64_inc(&oz->stats.huge_pages);
		atomic64_inc(&oz->stats.huge_pages_since);
	}
	atomic64_add(len, &oz->stats.compr_data_size);
	atomic64_inc(&oz->stats.pages_stored);
	return 0;
}

static int ozram_commit_raw(struct ozram *oz, u32 index, struct page *page,
			    gfp_t gfp, const struct ozram_stage_ref *ref)
{
	void *src = kmap_local_page(page);
	int ret;

	ret = ozram_commit_compressed(oz, index, src, PAGE_SIZE,
				      OZRAM_SRC_KERNEL_LZ4, gfp, ref);
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
	struct ozram_comp_stream *strm;
	unsigned int len;
	void *copy, *src;
	int ret;

	atomic64_inc(&oz->stats.writestall);
	copy = kmalloc(PAGE_SIZE, GFP_NOIO);
	if (!copy)
		return -ENOMEM;

	strm = ozram_comp_stream_get();
	src = kmap_local_page(page);
	ret = ozram_comp_compress(strm, src, &len);
	kunmap_local(src);
	if (!ret && len < ozram_huge_class_size)
		memcpy(copy, strm->buffer, len);
	ozram_comp_stream_put();

	if (!ret) {
		if (len < ozram_huge_class_size)
			ret = ozram_commit_compressed(oz, index, copy, len,
						      OZRAM_SRC_KERNEL_LZ4,
						      OZRAM_GFP_WAIT, ref);
		else
			ret = ozram_commit_raw(oz, index, page, OZRAM_GFP_WAIT,
					       ref);
	}
	kfree(copy);
	return ret;
}

/*
 * Compresses @page with the in-kernel LZ4 and stores it.  Without
 * @may_reclaim, an allocation that would have to reclaim fails with -EAGAIN
 * instead: the agent's context must never wait on reclaim.
 */
static int ozram_compress_inline(struct ozram *oz, struct page *page,
				 u32 index, bool may_reclaim,
				 const struct ozram_stage_ref *ref)
{
	struct ozram_comp_stream *strm;
	unsigned int len;
	void *src;
	int ret;

	strm = ozram_comp_stream_get();
	src = kmap_local_page(page);
	ret = ozram_comp_compress(strm, src, &len);
	kunmap_local(src);
	if (ret) {
		ozram_comp_stream_put();
		pr_err_ratelimited("%s: compression failed: %d\n",
				   oz->disk->disk_name, ret);
		return ret;
	}

	if (len >= ozram_huge_class_size) {
		ozram_comp_stream_put();
		return ozram_commit_raw(oz, index, page, may_reclaim ?
					OZRAM_GFP_WAIT : OZRAM_GFP_NOWAIT, ref);
	}

	ret = ozram_commit_compressed(oz, index, strm->buffer, len,
				      OZRAM_SRC_KERNEL_LZ4, OZRAM_GFP_NOWAIT,
				      ref);
	ozram_comp_stream_put();
	if (ret == -EAGAIN && may_reclaim)
		ret = ozram_compress_inline_slow(oz, page, index, ref);
	return ret;
}

/*
 * Chooses how a page that is not same-filled gets compressed: staged for
 * the agent when one is attached and the ring has room (the write then
 * completes at once), otherwise by the in-kernel LZ4.
 */
static int ozram_store_page(struct ozram *oz, struct page *page, u32 index)
{
	if (!ozram_ring_stage(oz, index, page))
		return 0;
	return ozram_compress_inline(oz, page, index, true, NULL);
}

/* ---- results for staged pages (called by ozram_ring.c) ---------------- */

/*
 * Both return -EAGAIN, storing nothing, when @may_reclaim is false and the
 * storage cannot be had without reclaim; the ring then retries from its
 * worker.
 */

/* Compresses the staged copy @page in the kernel: take-back and refusals. */
int ozram_store_staged_inline(struct ozram *oz, u32 index, struct page *page,
			      bool may_reclaim,
			      const struct ozram_stage_ref *ref)
{
	return ozram_compress_inline(oz, page, index, may_reclaim, ref);
}

/* Stores bytes an agent produced and the kernel checked. */
int ozram_store_staged_compressed(struct ozram *oz, u32 index,
				  const void *buf, unsigned int len,
				  enum ozram_source source, bool may_reclaim,
				  const struct ozram_stage_ref *ref)
{
	return ozram_commit_compressed(oz, index, buf, len, source,
				       may_reclaim ? OZRAM_GFP_WAIT :
				       OZRAM_GFP_NOWAIT, ref);
}

int ozram_store_staged_same(struct ozram *oz, u32 index,
			    unsigned long element,
			    const struct ozram_stage_ref *ref)
{
	return ozram_store_same(oz, index, element, ref);
}

static int ozram_write_page(struct ozram *oz, struct page *page, u32 index)
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

static int ozram_bvec_write(struct ozram *oz, struct bio_vec *bvec, u32 index,
			    unsigned int offset)
{
	struct page *page;
	void *dst;
	int ret;

	if (bvec->bv_len == PAGE_SIZE)
		return ozram_write_page(oz, bvec->bv_page, index);

	/* Part of a page: read the page, patch it, write it back whole. */
	page = alloc_page(GFP_NOIO | __GFP_HIGHMEM);
	if (!page)
		return -ENOMEM;
	ret = ozram_read_page(oz, page, index);
	if (!ret) {
		dst = kmap_local_page(page);
		memcpy_from_bvec(dst + offset, bvec);
		kunmap_local(dst);
		ret = ozram_write_page(oz, page, index);
	}
	__free_page(page);
	return ret;
}

/* ---- bio handling ---------------------------------------------------- */

static bool ozram_valid_io(struct ozram *oz, sector_t start, unsigned int size)
{
	u64 end, bound;

	if (unlikely(start & (OZRAM_SECTORS_PER_LOGICAL_BLOCK - 1)))
		return false;
	if (unlikely(size & (OZRAM_LOGICAL_BLOCK_SIZE - 1)))
		return false;

	end = start + (size >> SECTOR_SHIFT);
	bound = oz->disksize >> SECTOR_SHIFT;
	return start < bound && end <= bound && start <= end;
}

/*
 * Discard and write-zeroes free whole pages: a free slot reads as zeroes.
 * The logical block is a page, so requests are always page aligned.
 */
static void ozram_bio_discard(struct ozram *oz, struct bio *bio)
{
	u32 index = bio->bi_iter.bi_sector >> OZRAM_SECTORS_PER_PAGE_SHIFT;
	size_t n = bio->bi_iter.bi_size;

	while (n >= PAGE_SIZE) {
		ozram_free_slot_locked(oz, index);
		atomic64_inc(&oz->stats.notify_free);
		index++;
		n -= PAGE_SIZE;
	}
}

static void ozram_mark_accessed(struct ozram *oz, u32 index)
{
	ozram_slot_lock(oz, index);
	ozram_clear_flag(oz, index, OZRAM_SLOT_IDLE);
	ozram_slot_unlock(oz, index);
}

static int ozram_bvec_rw(struct ozram *oz, struct bio_vec *bvec, u32 index,
			 unsigned int offset, bool is_write)
{
	int ret;

	if (is_write) {
		atomic64_inc(&oz->stats.num_writes);
		ret = ozram_bvec_write(oz, bvec, index, offset);
	} else {
		atomic64_inc(&oz->stats.num_reads);
		ret = ozram_bvec_read(oz, bvec, index, offset);
		flush_dcache_page(bvec->bv_page);
	}
	ozram_mark_accessed(oz, index);

	if (unlikely(ret))
		atomic64_inc(is_write ? &oz->stats.failed_writes :
				 &oz->stats.failed_reads);
	return ret;
}

static void ozram_bio_rw(struct ozram *oz, struct bio *bio)
{
	bool is_write = op_is_write(bio_op(bio));
	unsigned long start_time;
	struct bvec_iter iter;
	struct bio_vec bvec;
	unsigned int offset;
	u32 index;

	index = bio->bi_iter.bi_sector >> OZRAM_SECTORS_PER_PAGE_SHIFT;
	offset = (bio->bi_iter.bi_sector & (OZRAM_SECTORS_PER_PAGE - 1))
		 << SECTOR_SHIFT;

	start_time = bio_start_io_acct(bio);
	bio_for_each_segment(bvec, bio, iter) {
		struct bio_vec bv = bvec;
		unsigned int left = bvec.bv_len;

		/* Split segments that straddle two pages of the device. */
		while (left) {
			bv.bv_len = min_t(unsigned int, PAGE_SIZE - offset,
					  left);
			if (ozram_bvec_rw(oz, &bv, index, offset, is_write)) {
				bio->bi_status = BLK_STS_IOERR;
				goto out;
			}
			bv.bv_offset += bv.bv_len;
			left -= bv.bv_len;
			offset += bv.bv_len;
			if (offset == PAGE_SIZE) {
				offset = 0;
				index++;
			}
		}
	}
out:
	bio_end_io_acct(bio, start_time);
	bio_endio(bio);
}

static void ozram_submit_bio(struct bio *bio)
{
	struct ozram *oz = bio->bi_bdev->bd_disk->private_data;

	if (!ozram_valid_io(oz, bio->bi_iter.bi_sector,
			    bio->bi_iter.bi_size)) {
		atomic64_inc(&oz->stats.invalid_io);
		bio_io_error(bio);
		return;
	}

	switch (bio_op(bio)) {
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		ozram_bio_discard(oz, bio);
		bio_endio(bio);
		return;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		ozram_bio_rw(oz, bio);
		return;
	case REQ_OP_FLUSH:
		/* Data lives in memory: nothing to flush. */
		bio_endio(bio);
		return;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}
}

static void ozram_slot_free_notify(struct block_device *bdev,
				   unsigned long index)
{
	struct ozram *oz = bdev->bd_disk->private_data;

	atomic64_inc(&oz->stats.notify_free);
	/* Called under the swap lock: never spin on a busy slot. */
	if (!ozram_slot_trylock(oz, index)) {
		atomic64_inc(&oz->stats.miss_free);
		return;
	}
	ozram_free_slot(oz, index);
	ozram_slot_unlock(oz, index);
}

/*
 * Single-page I/O without a bio.  In this kernel, providing rw_page is what
 * makes swap treat the device as synchronous (SWP_SYNCHRONOUS_IO) and skip
 * the swap cache readahead; on any error the caller falls back to a bio.
 */
static int ozram_rw_page(struct block_device *bdev, sector_t sector,
			 struct page *page, enum req_op op)
{
	struct ozram *oz = bdev->bd_disk->private_data;
	bool is_write = op_is_write(op);
	unsigned long start_time;
	struct bio_vec bv;
	u32 index;
	int ret;

	if (PageTransHuge(page))
		return -EOPNOTSUPP;
	if (!ozram_valid_io(oz, sector, PAGE_SIZE)) {
		atomic64_inc(&oz->stats.invalid_io);
		return -EINVAL;
	}

	index = sector >> OZRAM_SECTORS_PER_PAGE_SHIFT;
	bv.bv_page = page;
	bv.bv_len = PAGE_SIZE;
	bv.bv_offset = 0;

	start_time = bdev_start_io_acct(bdev->bd_disk->part0,
					OZRAM_SECTORS_PER_PAGE, op, jiffies);
	ret = ozram_bvec_rw(oz, &bv, index, 0, is_write);
	bdev_end_io_acct(bdev->bd_disk->part0, op, start_time);
	if (ret)
		return ret;

	page_endio(page, is_write, 0);
	return 0;
}

static int ozram_open(struct block_device *bdev, fmode_t mode)
{
	struct ozram *oz = bdev->bd_disk->private_data;

	WARN_ON(!mutex_is_locked(&bdev->bd_disk->open_mutex));
	/* Reset or removal in progress. */
	return oz->claim ? -EBUSY : 0;
}

const struct block_device_operations ozram_devops = {
	.owner = THIS_MODULE,
	.open = ozram_open,
	.submit_bio = ozram_submit_bio,
	.rw_page = ozram_rw_page,
	.swap_slot_free_notify = ozram_slot_free_notify,
};
