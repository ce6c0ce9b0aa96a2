// SPDX-License-Identifier: GPL-2.0
/*
 * ozram block device entry points: bios and rw_page are cut into whole
 * pages of the device and handed to the data path (ozram_io.c), which owns
 * the slots.  Every request is served synchronously, in the caller's
 * context.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/pagemap.h>

#include "ozram_compat.h"
#include "ozram_devices.h"
#include "ozram_io.h"
#include "ozram_latency.h"

/*
 * Part of a page: decode the page whole into a bounce page, then copy the
 * part out, or patch it in and store the page again (read-modify-write).
 */
static int ozram_bvec_partial(struct ozram *oz, struct bio_vec *bvec,
			      u32 index, unsigned int offset, bool is_write)
{
	struct page *page;
	void *mem;
	int ret;

	page = alloc_page(GFP_NOIO | __GFP_HIGHMEM);
	if (!page)
		return -ENOMEM;
	ret = ozram_read_page(oz, page, index, NULL);
	if (!ret) {
		mem = kmap_local_page(page);
		if (is_write)
			memcpy_from_bvec(mem + offset, bvec);
		else
			memcpy_to_bvec(bvec, mem + offset);
		kunmap_local(mem);
		if (is_write)
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
		ozram_discard_page(oz, index);
		ozram_stat_inc(oz, OZRAM_STAT_NOTIFY_FREE);
		index++;
		n -= PAGE_SIZE;
	}
}

/*
 * One page or part of one.  @bio is the request a whole-page read belongs
 * to, so that a page on the backing device is read by a bio chained to it;
 * NULL from rw_page.
 */
static int ozram_bvec_rw(struct ozram *oz, struct bio_vec *bvec, u32 index,
			 unsigned int offset, bool is_write, struct bio *bio)
{
	u64 start = ozram_latency_start();
	int ret;

	if (bvec->bv_len < PAGE_SIZE)
		ret = ozram_bvec_partial(oz, bvec, index, offset, is_write);
	else if (is_write)
		ret = ozram_write_page(oz, bvec->bv_page, index);
	else
		ret = ozram_read_page(oz, bvec->bv_page, index, bio);
	if (!is_write)
		flush_dcache_page(bvec->bv_page);
	ozram_mark_accessed(oz, index);
	ozram_latency_record(oz, is_write ? OZRAM_LAT_WRITE : OZRAM_LAT_READ,
			     start);

	if (unlikely(ret))
		ozram_stat_inc(oz, is_write ? OZRAM_STAT_FAILED_WRITES :
			       OZRAM_STAT_FAILED_READS);
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
			if (ozram_bvec_rw(oz, &bv, index, offset, is_write,
					  bio)) {
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
		ozram_stat_inc(oz, OZRAM_STAT_INVALID_IO);
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

	ozram_stat_inc(oz, OZRAM_STAT_NOTIFY_FREE);
	/* Called under the swap lock: never spin on a busy slot. */
	if (!ozram_try_discard_page(oz, index))
		ozram_stat_inc(oz, OZRAM_STAT_MISS_FREE);
}

#ifdef OZRAM_HAVE_RW_PAGE
/*
 * Single-page I/O without a bio.  In this kernel, providing rw_page is what
 * makes swap treat the device as synchronous (SWP_SYNCHRONOUS_IO) and skip
 * the swap cache readahead; on any error the caller falls back to a bio.
 * Later kernels have no rw_page, and the disk is flagged synchronous
 * instead (ozram_compat_alloc_disk()).
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
		ozram_stat_inc(oz, OZRAM_STAT_INVALID_IO);
		return -EINVAL;
	}

	index = sector >> OZRAM_SECTORS_PER_PAGE_SHIFT;
	bv.bv_page = page;
	bv.bv_len = PAGE_SIZE;
	bv.bv_offset = 0;

	start_time = bdev_start_io_acct(bdev->bd_disk->part0,
					OZRAM_SECTORS_PER_PAGE, op, jiffies);
	ret = ozram_bvec_rw(oz, &bv, index, 0, is_write, NULL);
	bdev_end_io_acct(bdev->bd_disk->part0, op, start_time);
	if (ret)
		return ret;

	page_endio(page, is_write, 0);
	return 0;
}
#endif

static int ozram_open_disk(struct gendisk *disk)
{
	struct ozram *oz = disk->private_data;

	WARN_ON(!mutex_is_locked(&disk->open_mutex));
	/* Reset or removal in progress. */
	return oz->claim ? -EBUSY : 0;
}

#ifdef OZRAM_HAVE_OPEN_DISK
static int ozram_open(struct gendisk *disk, blk_mode_t mode)
{
	return ozram_open_disk(disk);
}
#else
static int ozram_open(struct block_device *bdev, fmode_t mode)
{
	return ozram_open_disk(bdev->bd_disk);
}
#endif

const struct block_device_operations ozram_devops = {
	.owner = THIS_MODULE,
	.open = ozram_open,
	.submit_bio = ozram_submit_bio,
#ifdef OZRAM_HAVE_RW_PAGE
	.rw_page = ozram_rw_page,
#endif
	.swap_slot_free_notify = ozram_slot_free_notify,
};
