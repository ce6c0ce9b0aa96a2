// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, compressed writeback: with compressed_writeback set, a
 * writeback pass stores each compressed object as it is, packed byte after
 * byte into the blocks of the backing device, an object spanning two
 * blocks where it falls across their boundary.  A raw (huge) page keeps a
 * block of its own (ozram_io_wb.c).
 *
 * Each block of packed objects counts the objects that touch it, plus one
 * while the pass that wrote it holds it (ozram_io_wb_refs.c); the last
 * reference dropped frees the block.  A slot on the device records the
 * object's byte address, size and algorithm, so that reading it back
 * reads the one or two blocks it lies in and decompresses it, with the
 * same checks as an object in memory.
 *
 * Documentation/kmod.md, "Compressed writeback", says why.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bio.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/zsmalloc.h>

#include "ozram_comp.h"
#include "ozram_drv.h"
#include "ozram_io_internal.h"
#include "ozram_io_wb.h"
#include "ozram_slot.h"

/*
 * The most objects that may touch one block, so that with the pass's
 * hold its count fits bd_refs' u8.  Objects are seldom smaller than 20
 * bytes, so this rarely closes a block early.
 */
#define OZRAM_WB_BLOCK_OBJS	(U8_MAX - 1)

/*
 * A packed object's byte address on the backing device lives in a slot's
 * unsigned long: 64 bits, since the module builds for 64-bit kernels only
 * (Kbuild), so that a backing device of any size is addressed.
 */
static_assert(sizeof(unsigned long) == sizeof(u64));

/* ---- packing objects into a batch ------------------------------------- */

/*
 * Copies the compressed object of slot @index, @size bytes, to byte @off
 * of @pages, where it may span two pages.  Slot lock held.
 */
static void ozram_wb_copy_object(struct ozram *oz, u32 index,
				 unsigned int size, struct page **pages,
				 unsigned int off)
{
	unsigned long handle = oz->table[index].handle;
	const u8 *src = zs_map_object(oz->mem_pool, handle, ZS_MM_RO);
	const u8 *p = src;

	while (size) {
		unsigned int in = offset_in_page(off);
		unsigned int n = min_t(unsigned int, size, PAGE_SIZE - in);
		u8 *dst = kmap_local_page(pages[off >> PAGE_SHIFT]);

		memcpy(dst + in, p, n);
		kunmap_local(dst);
		p += n;
		off += n;
		size -= n;
	}
	zs_unmap_object(oz->mem_pool, handle);
}

/*
 * Zeroes bytes [@from, @to) of @pages: what no object fills in a block that
 * is written.  The batch's pages held other data before (a raw batch's
 * pages, a packed batch's objects, whatever the page allocator returned),
 * which must not reach the disk.
 */
static void ozram_wb_zero_gap(struct page **pages, unsigned int from,
			      unsigned int to)
{
	while (from < to) {
		unsigned int in = offset_in_page(from);
		unsigned int n = min_t(unsigned int, to - from, PAGE_SIZE - in);

		memzero_page(pages[from >> PAGE_SHIFT], in, n);
		from += n;
	}
}

/*
 * Where in batch @b the next object of @size bytes goes: after the last
 * one, or at the next block when the last block has as many objects as
 * its count can hold.  Return: the byte offset, or -1 when it does not
 * fit the batch's run of blocks.
 */
static long ozram_wb_place(const struct ozram_wb_batch *b, unsigned int size)
{
	unsigned int off = b->used;

	if (b->nr == OZRAM_WB_MAX_OBJS)
		return -1;
	if (offset_in_page(off) && b->tail_objs >= OZRAM_WB_BLOCK_OBJS)
		off = round_up(off, PAGE_SIZE);
	if (DIV_ROUND_UP(off + size, PAGE_SIZE) > b->nr_blocks)
		return -1;
	return off;
}

/* Gives back the blocks of batch @b from its @keep'th on. */
static void ozram_wb_release_blocks(struct ozram *oz, struct ozram_wb_batch *b,
				    unsigned int keep)
{
	if (b->nr_blocks > keep)
		ozram_wb_put_blocks(oz, b->first + keep,
				    b->first + b->nr_blocks - 1);
	b->nr_blocks = keep;
}

/*
 * Writes the packed batch out: the blocks its objects lie in.  A block
 * taken for an object that was not picked after all is given back, and so
 * is a batch without objects.
 */
void ozram_wb_submit_packed(struct ozram_wb_ctl *ctl)
{
	struct ozram_wb_batch *b = ctl->packed;
	unsigned int used_blocks = DIV_ROUND_UP(b->used, PAGE_SIZE);

	ctl->packed = NULL;
	ozram_wb_release_blocks(ctl->oz, b, used_blocks);
	if (b->nr) {
		ozram_wb_zero_gap(b->pages, b->used, used_blocks << PAGE_SHIFT);
		ozram_wb_submit(ctl, b, used_blocks);
	} else {
		ozram_wb_recycle(ctl, b);
	}
}

/*
 * Starts a packed batch on a free block and the free blocks that follow
 * it, up to a bio's worth.  Taken at once, the run is not broken by the
 * raw pages that the pass writes back meanwhile, which would otherwise
 * take every other block and end each packed bio at a part-filled block;
 * what the batch does not fill goes back when it is written.  Return: the
 * batch, ERR_PTR(-ENOSPC) when the backing device is full, or
 * ERR_PTR(-ENOMEM) when the first block's counts cannot be allocated (a
 * later block's failure only ends the run there).
 */
static struct ozram_wb_batch *ozram_wb_new_packed(struct ozram_wb_ctl *ctl)
{
	struct ozram *oz = ctl->oz;
	unsigned long blk = ozram_wb_alloc_block(oz, 0);
	struct ozram_wb_batch *b;

	if (!blk)
		return ERR_PTR(-ENOSPC);
	if (ozram_wb_hold_block(oz, blk)) {
		ozram_wb_free_block(oz, blk);
		return ERR_PTR(-ENOMEM);
	}
	b = ozram_wb_get_batch(ctl);
	b->packed = true;
	b->first = blk;
	b->nr_blocks = 1;
	while (b->nr_blocks < OZRAM_WB_BATCH && ozram_wb_take_block(oz, ++blk)) {
		if (ozram_wb_hold_block(oz, blk)) {
			ozram_wb_free_block(oz, blk);
			break;
		}
		b->nr_blocks++;
	}
	ctl->packed = b;
	return b;
}

/*
 * The packed batch with room for @size bytes, at the offset
 * ozram_wb_place() gives: the current one, or a new one once it is full.
 * Return: the batch with the offset in *@off, or ozram_wb_new_packed()'s
 * error.
 */
static struct ozram_wb_batch *ozram_wb_room(struct ozram_wb_ctl *ctl,
					    unsigned int size, long *off)
{
	struct ozram_wb_batch *b = ctl->packed;

	if (b) {
		*off = ozram_wb_place(b, size);
		if (*off >= 0)
			return b;
		ozram_wb_submit_packed(ctl);
	}
	b = ozram_wb_new_packed(ctl);
	/* An object is shorter than a block: it fits a new batch. */
	if (!IS_ERR(b))
		*off = ozram_wb_place(b, size);
	return b;
}

int ozram_wb_pick_packed(struct ozram_wb_ctl *ctl, u32 index,
			 unsigned int size)
{
	struct ozram *oz = ctl->oz;
	struct ozram_wb_batch *b;
	bool picked = false;
	long off;

	b = ozram_wb_room(ctl, size, &off);
	if (IS_ERR(b))
		return PTR_ERR(b);

	ozram_slot_lock(oz, index);
	/* Rewritten since it was sized: not idle any more, or another size. */
	if (ozram_wb_candidate(oz, index, ctl->mode) &&
	    !ozram_test_flag(oz, index, OZRAM_SLOT_HUGE) &&
	    ozram_get_obj_size(oz, index) == size) {
		ozram_wb_copy_object(oz, index, size, b->pages, off);
		ozram_set_flag(oz, index, OZRAM_SLOT_UNDER_WB);
		picked = true;
	}
	ozram_slot_unlock(oz, index);
	if (!picked)
		return 0;

	/* A block closed early at its object cap: zeros up to the next one. */
	ozram_wb_zero_gap(b->pages, b->used, off);
	if (b->used && ozram_wb_last_block(off, size) ==
		       ozram_wb_last_block(0, b->used))
		b->tail_objs++;
	else
		b->tail_objs = 1;
	b->index[b->nr] = index;
	b->charge[b->nr] = ctl->charge;
	b->off[b->nr] = off;
	b->size[b->nr] = size;
	b->nr++;
	b->used = off + size;
	return 1;
}

/*
 * Applies a completed packed batch: each slot still marked drops its
 * object for its place on the device; the others, and every object of a
 * failed write, stay in memory.  Then the pass lets go of the blocks,
 * which frees those no object kept.
 */
void ozram_wb_finish_packed(struct ozram_wb_ctl *ctl, struct ozram_wb_batch *b,
			    bool ok)
{
	struct ozram *oz = ctl->oz;
	unsigned int i;

	for (i = 0; i < b->nr; i++) {
		u32 index = b->index[i];
		unsigned long pos = (b->first << PAGE_SHIFT) + b->off[i];
		bool moved = false;
		u32 prio;

		ozram_slot_lock(oz, index);
		if (ozram_test_flag(oz, index, OZRAM_SLOT_UNDER_WB)) {
			ozram_clear_flag(oz, index, OZRAM_SLOT_UNDER_WB);
			if (ok) {
				prio = ozram_get_priority(oz, index);
				ozram_free_slot(oz, index);
				ozram_wb_get_object(oz, pos, b->size[i]);
				ozram_set_flag(oz, index, OZRAM_SLOT_WB);
				ozram_set_flag(oz, index, OZRAM_SLOT_WB_PACKED);
				ozram_set_priority(oz, index, prio);
				ozram_set_obj_size(oz, index, b->size[i]);
				oz->table[index].element = pos;
				ozram_stat_add(oz, OZRAM_STAT_ORIG_DATA, PAGE_SIZE);
				moved = true;
			}
		}
		ozram_slot_unlock(oz, index);
		if (!moved)
			ozram_wb_refund(ctl, b->charge[i]);
	}
	ozram_wb_release_blocks(oz, b, 0);
}

/* ---- reading an object back ------------------------------------------- */

/* A read of one object: its blocks into @buf, then the decode into @page. */
struct ozram_wb_obj_read {
	struct work_struct work;
	struct ozram *oz;
	struct page *buf[OZRAM_WB_READ_MAX];
	struct page *page;
	struct bio *parent;
	unsigned long pos;
	unsigned int size;
	unsigned int nr;
	u32 prio;
	blk_status_t status;
	struct bio bio;
	struct bio_vec bvecs[OZRAM_WB_READ_MAX];
};

/*
 * Decompresses the object from the blocks read.  One that spans two
 * blocks is first put together in the stream's buffer, so that the read
 * needs only single pages, which GFP_NOIO allocations do not fail to get.
 */
static int ozram_wb_decode(struct ozram_wb_obj_read *r)
{
	struct ozram_comp *comp = r->oz->comps[r->prio];
	unsigned int in = offset_in_page(r->pos);
	unsigned int head = min_t(unsigned int, r->size, PAGE_SIZE - in);
	struct ozram_comp_stream *strm;
	u8 *src0, *src1 = NULL, *dst;
	int ret;

	if (!comp)
		return -EIO;
	strm = ozram_comp_stream_get(comp);
	src0 = kmap_local_page(r->buf[0]);
	if (r->nr > 1) {
		src1 = kmap_local_page(r->buf[1]);
		memcpy(strm->buffer, src0 + in, head);
		memcpy(strm->buffer + head, src1, r->size - head);
	}
	dst = kmap_local_page(r->page);
	ret = ozram_comp_decompress(strm, src1 ? strm->buffer : src0 + in,
				    r->size, dst);
	kunmap_local(dst);
	if (src1)
		kunmap_local(src1);
	kunmap_local(src0);
	ozram_comp_stream_put(comp);
	return ret;
}

static void ozram_wb_obj_read_free(struct ozram_wb_obj_read *r)
{
	unsigned int i;

	for (i = 0; i < r->nr; i++)
		if (r->buf[i])
			__free_page(r->buf[i]);
	kfree(r);
}

static struct ozram_wb_obj_read *
ozram_wb_obj_read_alloc(struct ozram *oz, unsigned long pos, unsigned int size,
			u32 prio, struct page *page)
{
	struct ozram_wb_obj_read *r;
	unsigned int i;

	/* The slot's numbers are checked, never trusted. */
	if (prio >= OZRAM_MAX_COMPS || !size || size >= PAGE_SIZE)
		return ERR_PTR(-EIO);
	r = kzalloc(sizeof(*r), GFP_NOIO);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->oz = oz;
	r->page = page;
	r->pos = pos;
	r->size = size;
	r->prio = prio;
	r->nr = ozram_wb_last_block(pos, size) - ozram_wb_first_block(pos) + 1;
	for (i = 0; i < r->nr; i++) {
		r->buf[i] = alloc_page(GFP_NOIO);
		if (!r->buf[i]) {
			ozram_wb_obj_read_free(r);
			return ERR_PTR(-ENOMEM);
		}
	}
	return r;
}

/*
 * The decode of a read chained to a request, in a worker: decompression
 * may sleep, a bio's completion may not.  A failure counts in
 * failed_reads here, since the request's own path has returned.
 */
static void ozram_wb_obj_read_work(struct work_struct *work)
{
	struct ozram_wb_obj_read *r = container_of(work,
					struct ozram_wb_obj_read, work);
	struct bio *parent = r->parent;
	blk_status_t status = r->status;

	if (status == BLK_STS_OK && ozram_wb_decode(r))
		status = BLK_STS_IOERR;
	if (status != BLK_STS_OK) {
		ozram_stat_inc(r->oz, OZRAM_STAT_FAILED_READS);
		pr_err_ratelimited("%s: a page on the backing device does not read back: %d\n",
				   r->oz->disk->disk_name,
				   blk_status_to_errno(status));
		if (!parent->bi_status)
			parent->bi_status = status;
	}
	bio_uninit(&r->bio);
	ozram_wb_obj_read_free(r);
	bio_endio(parent);
}

static void ozram_wb_obj_read_end_io(struct bio *bio)
{
	struct ozram_wb_obj_read *r = container_of(bio,
					struct ozram_wb_obj_read, bio);

	r->status = bio->bi_status;
	INIT_WORK(&r->work, ozram_wb_obj_read_work);
	queue_work(system_highpri_wq, &r->work);
}

/*
 * Reads the object into @page for request @parent: @parent completes once
 * the page is decoded, with an error if the read or the decode fails.
 * Submitted from ozram's ->submit_bio, the read is issued when that
 * returns, so that the objects of one request are read side by side.
 */
static void ozram_wb_read_packed_chained(struct ozram_wb_obj_read *r,
					 struct bio *parent)
{
	unsigned int i;

	r->parent = parent;
	bio_init(&r->bio, r->oz->bdev, r->bvecs, OZRAM_WB_READ_MAX,
		 REQ_OP_READ);
	r->bio.bi_iter.bi_sector = ozram_wb_first_block(r->pos) <<
				   (PAGE_SHIFT - SECTOR_SHIFT);
	for (i = 0; i < r->nr; i++)
		__bio_add_page(&r->bio, r->buf[i], PAGE_SIZE, 0);
	r->bio.bi_end_io = ozram_wb_obj_read_end_io;
	bio_inc_remaining(parent);
	submit_bio(&r->bio);
}

int ozram_wb_read_packed(struct ozram *oz, unsigned long pos,
			 unsigned int size, u32 prio, struct page *page,
			 struct bio *parent)
{
	struct ozram_wb_obj_read *r;
	int ret;

	ozram_stat_inc(oz, OZRAM_STAT_BD_READS);
	r = ozram_wb_obj_read_alloc(oz, pos, size, prio, page);
	if (IS_ERR(r))
		return PTR_ERR(r);
	if (parent) {
		ozram_wb_read_packed_chained(r, parent);
		return 0;
	}
	ret = ozram_wb_read_blocks(oz, ozram_wb_first_block(pos), r->buf,
				   r->nr);
	if (!ret)
		ret = ozram_wb_decode(r);
	ozram_wb_obj_read_free(r);
	return ret;
}
