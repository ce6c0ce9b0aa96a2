/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the data path's files, ozram_io.c, ozram_io_recomp.c,
 * ozram_io_idle.c, ozram_io_park.c, ozram_io_wb.c and ozram_io_wb_packed.c:
 * together the only code that writes a device's slot table.  Nothing else
 * includes it.
 */
#ifndef OZRAM_IO_INTERNAL_H
#define OZRAM_IO_INTERNAL_H

#include <linux/gfp.h>
#include <linux/mm_types.h>
#include <linux/types.h>

#include "ozram_stat.h"

struct ozram;

/* zsmalloc flags for allocations that must not sleep. */
#define OZRAM_GFP_NOWAIT (__GFP_KSWAPD_RECLAIM | __GFP_NOWARN | \
			  __GFP_HIGHMEM | __GFP_MOVABLE)
/* zsmalloc flags for allocations that may reclaim. */
#define OZRAM_GFP_WAIT (GFP_NOIO | __GFP_HIGHMEM | __GFP_MOVABLE)

/* Drops whatever slot @index holds; slot lock held. */
void ozram_free_slot(struct ozram *oz, u32 index);
/*
 * Slot lock held: frees what slot @index holds and installs the zsmalloc
 * object @handle of @len bytes (the raw page when PAGE_SIZE) compressed by
 * @source with the algorithm of priority @prio, accounted.
 */
void ozram_install_object(struct ozram *oz, u32 index, unsigned long handle,
			  unsigned int len, u32 prio, enum ozram_source source);
/*
 * Slot lock held: frees what slot @index holds and marks it staged in ring
 * slot @ring_slot, accounted, under the lock it was staged under.
 */
void ozram_set_staged(struct ozram *oz, u32 index, u32 ring_slot);

/*
 * Parked pages (ozram_io_park.c): a written page that the agent cannot
 * take yet, held raw until it can.  ozram_park_page() holds @page for
 * slot @index; 0, or an errno when it may not (the writer compresses it).
 * ozram_park_forget() accounts a parked slot being freed; slot lock held.
 */
int ozram_park_page(struct ozram *oz, struct page *page, u32 index);
void ozram_park_forget(struct ozram *oz);
/* The queue of parked slots, with the slot table; 0 or -ENOMEM. */
int ozram_park_alloc(struct ozram *oz, u64 disksize);
void ozram_park_free(struct ozram *oz);
/* Reads the stored object of slot @index into @page; slot lock held. */
int ozram_read_object(struct ozram *oz, u32 index, struct page *page);

struct bio;

/*
 * Writeback (ozram_io_wb.c): frees block @blk of the backing device; reads
 * it into @page, with a bio chained to @parent, or waiting for the read
 * without one (0 or -errno).
 */
void ozram_wb_free_block(struct ozram *oz, unsigned long blk);
int ozram_wb_read(struct ozram *oz, unsigned long blk, struct page *page,
		  struct bio *parent);

/*
 * Compressed writeback (ozram_io_wb_packed.c): drops the object of @size
 * bytes at byte @pos of the backing device; reads it and decompresses it
 * with the algorithm of priority @prio into @page, chained to @parent as
 * ozram_wb_read() does, or waited for without one.
 */
void ozram_wb_put_object(struct ozram *oz, unsigned long pos,
			 unsigned int size);
int ozram_wb_read_packed(struct ozram *oz, unsigned long pos,
			 unsigned int size, u32 prio, struct page *page,
			 struct bio *parent);

#endif /* OZRAM_IO_INTERNAL_H */
