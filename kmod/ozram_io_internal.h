/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the data path's files, the slot table's writers (ozram_slot.h
 * says which).  Nothing else includes it.
 */
#ifndef OZRAM_IO_INTERNAL_H
#define OZRAM_IO_INTERNAL_H

#include <linux/gfp.h>
#include <linux/mm_types.h>
#include <linux/types.h>

#include "ozram_ring_api.h"
#include "ozram_stat.h"

struct bio;
struct ozram;

/* zsmalloc flags for allocations that must not sleep. */
#define OZRAM_GFP_NOWAIT (__GFP_KSWAPD_RECLAIM | __GFP_NOWARN | \
			  __GFP_HIGHMEM | __GFP_MOVABLE)
/* zsmalloc flags for allocations that may reclaim. */
#define OZRAM_GFP_WAIT (GFP_NOIO | __GFP_HIGHMEM | __GFP_MOVABLE)

/* ---- what a slot holds (ozram_io_slot.c) ------------------------------ */

/* An object for a slot, as ozram_store_object() stores it. */
struct ozram_obj {
	const void *buf;
	unsigned int len;	/* 1..PAGE_SIZE; PAGE_SIZE: the raw page */
	u32 prio;		/* the priority of the algorithm of @buf */
	enum ozram_source source;	/* who compressed it */
	/*
	 * It replaces the object the slot holds, which is freed once it is
	 * installed: a parked page compressed, a recompression result.
	 */
	bool replacing;
	/*
	 * It is the slot's own page, staged or parked, in its stored form:
	 * the slot keeps its idle mark, which only an access, a free, a
	 * recompression or a writeback drops, as in zram.
	 */
	bool same_page;
	/*
	 * @buf is memory that another may rewrite (an agent's output slot):
	 * it is copied once, and @check (NULL: none) must pass the copy, in
	 * the object, before the object is used.
	 */
	bool (*check)(const void *check_ctx, const void *copy,
		      unsigned int len);
	const void *check_ctx;
};

/*
 * The object of @result, an agent's result in its output slot, compressed
 * with the algorithm of priority @prio: copied once, checked in the copy.
 */
static inline struct ozram_obj
ozram_obj_of_result(const struct ozram_ring_result *result, u32 prio,
		    bool replacing)
{
	return (struct ozram_obj) {
		.buf = result->src,
		.len = result->len,
		.prio = prio,
		.source = result->source,
		.replacing = replacing,
		.check = result->check,
		.check_ctx = result->check_ctx,
	};
}

/*
 * Under the slot lock, before ozram_store_object() installs its object:
 * 0 to install it; anything else leaves the slot as it is, frees the new
 * object, and is what ozram_store_object() returns.
 */
typedef int (*ozram_store_check_t)(struct ozram *oz, u32 index,
				   const void *arg);

/*
 * Stores @obj in slot @index in place of what it holds: allocates it
 * (ozram_obj_alloc()), then, under the slot lock, asks @check (NULL: no
 * question) and installs it (ozram_obj_install()).
 * Return: 0, what @check answered, or ozram_obj_alloc()'s error.
 */
int ozram_store_object(struct ozram *oz, u32 index, const struct ozram_obj *obj,
		       gfp_t gfp, ozram_store_check_t check, const void *arg);

/*
 * After memory is taken for the device: true when it takes the device
 * past mem_limit by more than @slack pages.
 */
bool ozram_mem_taken_over_limit(struct ozram *oz, unsigned long slack);

/* The two steps of ozram_store_object(), for a caller holding the lock. */
int ozram_obj_alloc(struct ozram *oz, const struct ozram_obj *obj, gfp_t gfp,
		    unsigned long *handle);
void ozram_obj_install(struct ozram *oz, u32 index, const struct ozram_obj *obj,
		       unsigned long handle);
/*
 * Slot lock held: installs @page, held by ozram_park_hold(), as the raw
 * page written to slot @index, parked for the agent.
 */
void ozram_obj_install_parked(struct ozram *oz, u32 index, struct page *page);

/* Drops whatever slot @index holds; slot lock held. */
void ozram_free_slot(struct ozram *oz, u32 index);
/* Reads the stored object of slot @index into @page; slot lock held. */
int ozram_read_object(struct ozram *oz, u32 index, struct page *page);
/* The page that holds parked slot @index; slot lock held. */
struct page *ozram_parked_page(struct ozram *oz, u32 index);

/*
 * Slot lock held: stages @page, written to slot @index or parked there,
 * for the agent, and marks the slot staged (ozram_io.c).  Return: as
 * ozram_ring_stage().
 */
int ozram_stage_locked(struct ozram *oz, u32 index, struct page *page);

/* ---- parked pages (ozram_io_park.c) ----------------------------------- */

/*
 * A written page that the agent cannot take yet, held raw until it can.
 * ozram_park_page() holds @page for slot @index; 0, or an errno when it
 * may not (the writer compresses it).  ozram_park_count() counts a parked
 * page in or out; slot lock held.
 */
int ozram_park_page(struct ozram *oz, struct page *page, u32 index);
void ozram_park_count(struct ozram *oz, bool parked);
/* Gives back the page that held a parked page, once it is not used. */
void ozram_park_release(struct ozram *oz, struct page *page);
/* The queue of parked slots, with the slot table; 0 or -ENOMEM. */
int ozram_park_alloc(struct ozram *oz, u64 disksize);
void ozram_park_free(struct ozram *oz);

/* ---- writeback: blocks, read-back (ozram_io_wb_dev.c, _read.c) -------- */

/*
 * Frees block @blk of the backing device; reads it into @page, with a bio
 * chained to @parent, or waiting for the read without one (0 or -errno).
 */
void ozram_wb_free_block(struct ozram *oz, unsigned long blk);
int ozram_wb_read(struct ozram *oz, unsigned long blk, struct page *page,
		  struct bio *parent);

/*
 * Compressed writeback (ozram_io_wb_refs.c, _packed.c): drops the object
 * of @size bytes at byte @pos of the backing device; reads it and
 * decompresses it with the algorithm of priority @prio into @page, chained
 * to @parent as ozram_wb_read() does, or waited for without one.
 */
void ozram_wb_put_object(struct ozram *oz, unsigned long pos,
			 unsigned int size);
int ozram_wb_read_packed(struct ozram *oz, unsigned long pos,
			 unsigned int size, u32 prio, struct page *page,
			 struct bio *parent);

#endif /* OZRAM_IO_INTERNAL_H */
