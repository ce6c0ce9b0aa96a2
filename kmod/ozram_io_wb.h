/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the files of writeback: the backing device and its blocks
 * (ozram_io_wb_dev.c), reading back (ozram_io_wb_read.c), the pass
 * (ozram_io_wb.c) and its budget (ozram_io_wb_budget.c), its compressed
 * objects (ozram_io_wb_packed.c) and the counts of their blocks
 * (ozram_io_wb_refs.c).
 * Nothing else includes it.
 */
#ifndef OZRAM_IO_WB_H
#define OZRAM_IO_WB_H

#include <linux/bio.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "ozram_drv.h"

/* The first sector of block @blk of the backing device. */
static inline sector_t ozram_wb_sector(unsigned long blk)
{
	return (sector_t)blk << OZRAM_SECTORS_PER_PAGE_SHIFT;
}

/* The blocks that a packed object at byte @pos, @size bytes, lies in. */
static inline unsigned long ozram_wb_first_block(unsigned long pos)
{
	return pos >> PAGE_SHIFT;
}

static inline unsigned long ozram_wb_last_block(unsigned long pos,
						unsigned int size)
{
	return (pos + size - 1) >> PAGE_SHIFT;
}

/*
 * Blocks whose counts share a chunk of oz->bd_refs: a page of them, for
 * 16 MiB of the backing device.
 */
#define OZRAM_WB_REFS_CHUNK	PAGE_SIZE

/* Blocks per bio: 256 KiB, a common max_sectors of the devices below. */
#define OZRAM_WB_BATCH		64
/*
 * Compressed objects per bio: 8 per block on average, beyond what text
 * and binaries compress to, so that a batch is seldom closed by this.
 */
#define OZRAM_WB_MAX_OBJS	(8 * OZRAM_WB_BATCH)

struct ozram_wb_ctl;

/*
 * One bio: up to OZRAM_WB_BATCH contiguous blocks from @first.  A raw
 * batch holds a decoded page per block, @nr of them.  A packed batch holds
 * @nr compressed objects, object i of @size[i] bytes at byte @off[i] of
 * its pages, in @nr_blocks blocks that the pass holds (bd_refs) until the
 * write completes; @tail_objs objects touch its last block.
 */
struct ozram_wb_batch {
	struct list_head node;
	struct ozram_wb_ctl *ctl;
	struct bio bio;
	struct bio_vec bvecs[OZRAM_WB_BATCH];
	struct page *pages[OZRAM_WB_BATCH];
	unsigned long first;
	unsigned int nr;
	bool packed;
	unsigned int nr_blocks;
	unsigned int used;
	unsigned int tail_objs;
	blk_status_t status;
	u32 index[OZRAM_WB_MAX_OBJS];
	/*
	 * The budget each page took: its pass's stamp then, 0 for none.  16
	 * bits keep the batch within a slab (8 KiB); a stamp seen again would
	 * take 65,535 writes of the limit while one page is in flight.
	 */
	u16 charge[OZRAM_WB_MAX_OBJS];
	u32 off[OZRAM_WB_MAX_OBJS];
	u16 size[OZRAM_WB_MAX_OBJS];
};

/* A pass's state. */
struct ozram_wb_ctl {
	struct ozram *oz;
	/* The slots the pass picks: OZRAM_WB_* of ozram_io_wb.c. */
	unsigned int mode;
	/* Protects done; the completions add to it. */
	spinlock_t lock;
	struct list_head done;
	struct list_head idle;
	wait_queue_head_t wait;
	unsigned int inflight;
	/* The batches being filled, NULL for none. */
	struct ozram_wb_batch *raw;
	struct ozram_wb_batch *packed;
	/* A block taken for the raw batch and not used yet, 0 for none. */
	unsigned long spare;
	/* The last failed write's errno, 0 if none failed. */
	int io_err;
	/*
	 * The user's writes of writeback_limit and writeback_limit_enable:
	 * limit_writes is the device's wb_limit_writes as the pass last saw
	 * it, and stamp, never 0, changes with it.  A page's budget is given
	 * back only under the stamp it was taken under, so that a page picked
	 * before a write never gives back what one picked after it took.
	 * Under the device's wb_limit_lock.
	 */
	u64 limit_writes;
	u16 stamp;
	/* What the page being picked took: the stamp, or 0 for nothing. */
	u16 charge;
};

/* The most blocks one object lies in: it may span two. */
#define OZRAM_WB_READ_MAX	2

/* ozram_io_wb_read.c: reads @nr blocks from @blk into @pages, waiting. */
int ozram_wb_read_blocks(struct ozram *oz, unsigned long blk,
			 struct page **pages, unsigned int nr);
/*
 * ozram_io_wb_dev.c: takes block @blk if it is free;
 * ozram_wb_alloc_block() takes any, preferring @want.
 */
bool ozram_wb_take_block(struct ozram *oz, unsigned long blk);
unsigned long ozram_wb_alloc_block(struct ozram *oz, unsigned long want);
/* Whether every block of the backing device is taken. */
bool ozram_wb_full(struct ozram *oz);
/* ozram_io_wb.c, for ozram_io_wb_packed.c. */
bool ozram_wb_candidate(struct ozram *oz, u32 index, unsigned int mode);
struct ozram_wb_batch *ozram_wb_get_batch(struct ozram_wb_ctl *ctl);
void ozram_wb_submit(struct ozram_wb_ctl *ctl, struct ozram_wb_batch *b,
		     unsigned int nr_pages);
void ozram_wb_recycle(struct ozram_wb_ctl *ctl, struct ozram_wb_batch *b);

/*
 * ozram_io_wb_budget.c: ozram_wb_take_budget() takes a page's worth of
 * writeback_limit for the page about to be picked (false when it is spent),
 * and leaves in ctl->charge what it took; ozram_wb_refund() gives back
 * @charge, what a page that did not go to the backing device took.
 */
bool ozram_wb_take_budget(struct ozram_wb_ctl *ctl);
void ozram_wb_refund(struct ozram_wb_ctl *ctl, u16 charge);

/*
 * ozram_io_wb_refs.c, the counts of packed blocks:
 * ozram_wb_hold_block() gives block @blk, just taken, the pass's hold (0,
 * or -ENOMEM when its chunk of counts cannot be allocated);
 * ozram_wb_put_blocks() drops a reference to each block of [@first,
 * @last] and frees those left unused; ozram_wb_get_object() counts an
 * object of @size bytes at byte @pos in the blocks it lies in.
 */
int ozram_wb_hold_block(struct ozram *oz, unsigned long blk);
void ozram_wb_put_blocks(struct ozram *oz, unsigned long first,
			 unsigned long last);
void ozram_wb_get_object(struct ozram *oz, unsigned long pos,
			 unsigned int size);

/*
 * ozram_io_wb_packed.c: ozram_wb_pick_packed() packs the object of slot
 * @index, @size bytes, into the pass's packed batch (1 picked, 0 not a
 * candidate any more, -ENOSPC, -ENOMEM); ozram_wb_submit_packed() writes
 * the batch out (or gives its blocks back when it holds no object);
 * ozram_wb_finish_packed() applies its completion, @ok when the write
 * succeeded.
 */
int ozram_wb_pick_packed(struct ozram_wb_ctl *ctl, u32 index,
			 unsigned int size);
void ozram_wb_submit_packed(struct ozram_wb_ctl *ctl);
void ozram_wb_finish_packed(struct ozram_wb_ctl *ctl,
			    struct ozram_wb_batch *b, bool ok);

#endif /* OZRAM_IO_WB_H */
