// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, writeback: reading a page back from its block of the
 * backing device (ozram_io_wb_dev.c).  A read for a request is chained to
 * the request's bio, so that the pages of one request are read side by
 * side; any other read is waited for.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "ozram_drv.h"
#include "ozram_io_internal.h"
#include "ozram_io_wb.h"

/* ---- reading a page back ---------------------------------------------- */

struct ozram_wb_read {
	struct work_struct work;
	struct block_device *bdev;
	struct page **pages;
	unsigned int nr;
	unsigned long blk;
	int ret;
};

/* Reads @nr (at most OZRAM_WB_READ_MAX) blocks from @blk into @pages. */
static int ozram_wb_read_sync(struct block_device *bdev, struct page **pages,
			      unsigned int nr, unsigned long blk)
{
	struct bio_vec bv[OZRAM_WB_READ_MAX];
	struct bio bio;
	unsigned int i;
	int ret;

	bio_init(&bio, bdev, bv, nr, REQ_OP_READ);
	bio.bi_iter.bi_sector = ozram_wb_sector(blk);
	for (i = 0; i < nr; i++)
		__bio_add_page(&bio, pages[i], PAGE_SIZE, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

static void ozram_wb_read_work(struct work_struct *work)
{
	struct ozram_wb_read *r = container_of(work, struct ozram_wb_read, work);

	r->ret = ozram_wb_read_sync(r->bdev, r->pages, r->nr, r->blk);
}

/*
 * Reads @nr blocks from @blk into @pages and waits for them.  Inside a
 * ->submit_bio (current->bio_list set) a bio submitted and waited for here
 * would only be queued until that returns: the read is then done by a
 * worker.  rw_page reads directly.
 */
int ozram_wb_read_blocks(struct ozram *oz, unsigned long blk,
			 struct page **pages, unsigned int nr)
{
	struct ozram_wb_read r = {
		.bdev = oz->bdev,
		.pages = pages,
		.nr = nr,
		.blk = blk,
	};

	if (WARN_ON_ONCE(!nr || nr > OZRAM_WB_READ_MAX))
		return -EINVAL;
	if (!current->bio_list)
		return ozram_wb_read_sync(oz->bdev, pages, nr, blk);

	INIT_WORK_ONSTACK(&r.work, ozram_wb_read_work);
	queue_work(system_unbound_wq, &r.work);
	flush_work(&r.work);
	destroy_work_on_stack(&r.work);
	return r.ret;
}

/*
 * The end of a read chained to a request.  The request's own path returned
 * before the read was issued, so a failure is counted in failed_reads here;
 * then the status passes on to the request, as bio_chain() would.
 */
static void ozram_wb_read_end_io(struct bio *bio)
{
	struct bio *parent = bio->bi_private;
	struct ozram *oz = parent->bi_bdev->bd_disk->private_data;

	if (bio->bi_status) {
		ozram_stat_inc(oz, OZRAM_STAT_FAILED_READS);
		if (!parent->bi_status)
			parent->bi_status = bio->bi_status;
	}
	bio_put(bio);
	bio_endio(parent);
}

/*
 * A read for a request: @parent completes only once the block is in @page,
 * with the read's error if it fails.  Submitted from ozram's ->submit_bio,
 * it is queued and issued when that returns.
 */
static int ozram_wb_read_chained(struct ozram *oz, unsigned long blk,
				 struct page *page, struct bio *parent)
{
	struct bio *bio = bio_alloc(oz->bdev, 1, REQ_OP_READ, GFP_NOIO);

	bio->bi_iter.bi_sector = ozram_wb_sector(blk);
	__bio_add_page(bio, page, PAGE_SIZE, 0);
	bio->bi_private = parent;
	bio->bi_end_io = ozram_wb_read_end_io;
	bio_inc_remaining(parent);
	submit_bio(bio);
	return 0;
}

/* Reads block @blk into @page: chained to @parent if given, or waited for. */
int ozram_wb_read(struct ozram *oz, unsigned long blk, struct page *page,
		  struct bio *parent)
{
	ozram_stat_inc(oz, OZRAM_STAT_BD_READS);
	if (parent)
		return ozram_wb_read_chained(oz, blk, page, parent);
	return ozram_wb_read_blocks(oz, blk, &page, 1);
}

