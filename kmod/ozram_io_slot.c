// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path: what a slot holds, and the accounting that goes with
 * it.  A slot holds nothing (reads as zeroes), a repeated word, a page
 * staged for the agent, a block of the backing device (ozram_io_wb*.c), or
 * a zsmalloc object that is either compressed data or the raw page stored
 * raw because compression does not save enough, or a raw page parked in a
 * page of its own until the agent takes it (ozram_io_park.c).
 *
 * Every object comes from ozram_obj_alloc(), and every object and parked
 * page is installed and counted by ozram_obj_install(): the one place that
 * counts what a slot holds, whichever path produced it.  mem_limit is
 * enforced where memory is taken: ozram_obj_alloc() and the parking.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "ozram_comp.h"
#include "ozram_compat.h"
#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_io_internal.h"
#include "ozram_ring_api.h"
#include "ozram_slot.h"

/*
 * How far past mem_limit a replacement may take the pool: the zspage its
 * own allocation may add while the slot still holds the object it
 * replaces, and the partly filled zspage that earlier replacements may
 * have left, whose room the next replacements of that size fill.  Less,
 * and a pool just past the limit could not start a zspage of a new size
 * class, whatever compaction frees.
 */
#define OZRAM_REPLACEMENT_PAGES	(2 * OZRAM_ZSPAGE_MAX_PAGES)

/*
 * Whether the memory just taken (a zspage that zs_malloc() may have added,
 * a page held for parking) takes the device past mem_limit, plus @slack
 * pages.  The check follows the taking, as zram's does, and every taking
 * is checked so: of two writers that take the last page at once, the one
 * that looks last sees both pages and gives its own back.  A check before
 * the taking would let both through, a page over the limit, and a
 * replacement of that page would keep the device there.
 */
bool ozram_mem_taken_over_limit(struct ozram *oz, unsigned long slack)
{
	unsigned long limit = READ_ONCE(oz->limit_pages);
	unsigned long pages;

	if (limit) {
		/*
		 * The taking before the look, paired with every other
		 * taker's: two takers cannot both miss the other's page.
		 */
		smp_mb();
	}
	pages = ozram_mem_used_pages(oz);
	ozram_stat_raise(oz, OZRAM_STAT_MEM_USED_MAX, (u64)pages << PAGE_SHIFT);
	return limit && pages > limit + slack;
}

/**
 * ozram_obj_alloc() - a new zsmalloc object holding @obj's bytes
 * @oz: the device
 * @obj: the bytes and their length, 1..PAGE_SIZE
 * @gfp: OZRAM_GFP_NOWAIT from atomic context, OZRAM_GFP_WAIT otherwise
 * @handle: where the object's handle goes
 *
 * The one allocation of a slot's memory, so the one check of mem_limit,
 * for every object: a written page's, a parked page's, and a replacement's
 * (a parked page compressed, a recompression result).  A replacement is
 * smaller than the object it replaces, as in zram's recompression, but it
 * is allocated while the slot still holds that object, which is freed only
 * once the replacement is installed, and it may need a new zspage: it may
 * pass the limit by OZRAM_REPLACEMENT_PAGES, and no more.  Refused at the
 * limit, pages could not be compressed when memory is shortest, and a
 * device full of raw parked pages would stay full; left unchecked, as
 * zram 6.2's recompression is, replacements could take the pool past the
 * limit a zspage of each size class at a time, and by the holes the
 * replaced objects leave until compaction (ozram_make_room()).  Like zram,
 * the check follows the allocation, so the pool may pass the limit by the
 * allocation in flight until it is freed again here.
 *
 * Return: 0; -EAGAIN when an allocation that may not sleep failed (the
 * caller may retry where it can sleep); -ENOMEM when out of memory or over
 * mem_limit; -EINVAL on a bad length; -EBADMSG when @obj's check refused
 * the bytes copied.
 */
int ozram_obj_alloc(struct ozram *oz, const struct ozram_obj *obj, gfp_t gfp,
		    unsigned long *handle)
{
	bool checked;
	void *dst;

	might_sleep_if(gfpflags_allow_blocking(gfp));
	if (!obj->len || obj->len > PAGE_SIZE)
		return -EINVAL;

	*handle = zs_malloc(oz->mem_pool, obj->len, gfp);
	if (IS_ERR_VALUE(*handle))
		return (gfp & __GFP_DIRECT_RECLAIM) ? -ENOMEM : -EAGAIN;

	if (ozram_mem_taken_over_limit(oz, obj->replacing ?
				       OZRAM_REPLACEMENT_PAGES : 0)) {
		zs_free(oz->mem_pool, *handle);
		ozram_stat_inc(oz, OZRAM_STAT_MEM_LIMIT_REFUSED);
		return -ENOMEM;
	}

	dst = zs_map_object(oz->mem_pool, *handle, ZS_MM_WO);
	memcpy(dst, obj->buf, obj->len);
	/* The copy, not @obj->buf, which may have changed since. */
	checked = !obj->check || obj->check(obj->check_ctx, dst, obj->len);
	zs_unmap_object(oz->mem_pool, *handle);
	if (!checked) {
		zs_free(oz->mem_pool, *handle);
		return -EBADMSG;
	}
	return 0;
}

static void ozram_obj_account(struct ozram *oz, u32 index,
			      const struct ozram_obj *obj)
{
	ozram_set_obj_size(oz, index, obj->len);
	if (obj->len == PAGE_SIZE) {
		ozram_set_flag(oz, index, OZRAM_SLOT_HUGE);
		ozram_stat_inc(oz, OZRAM_STAT_HUGE_PAGES);
		ozram_stat_inc(oz, OZRAM_STAT_HUGE_STORED);
	} else {
		ozram_set_priority(oz, index, obj->prio);
		ozram_set_slot_source(oz, index, obj->source);
		ozram_stat_inc(oz, ozram_stat_source_pages(obj->source));
		if (obj->prio != OZRAM_PRIMARY_COMP)
			ozram_stat_inc(oz, OZRAM_STAT_RECOMPRESSED_PAGES);
	}
	ozram_stat_add(oz, OZRAM_STAT_COMPR_DATA, obj->len);
}

static void ozram_obj_unaccount(struct ozram *oz, u32 index)
{
	if (ozram_test_flag(oz, index, OZRAM_SLOT_PARKED)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_PARKED);
		ozram_park_count(oz, false);
	} else if (ozram_test_flag(oz, index, OZRAM_SLOT_HUGE)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_HUGE);
		ozram_stat_dec(oz, OZRAM_STAT_HUGE_PAGES);
	} else {
		ozram_stat_dec(oz, ozram_stat_source_pages(ozram_slot_source(oz, index)));
		if (ozram_get_priority(oz, index) != OZRAM_PRIMARY_COMP)
			ozram_stat_dec(oz, OZRAM_STAT_RECOMPRESSED_PAGES);
		ozram_clear_flag(oz, index, OZRAM_SLOT_SRC_AGENT_CPU);
		ozram_clear_flag(oz, index, OZRAM_SLOT_SRC_AGENT_GPU);
		ozram_set_priority(oz, index, OZRAM_PRIMARY_COMP);
	}
	ozram_clear_flag(oz, index, OZRAM_SLOT_INCOMPRESSIBLE);
	ozram_stat_sub(oz, OZRAM_STAT_COMPR_DATA, ozram_get_obj_size(oz, index));
	ozram_set_obj_size(oz, index, 0);
}

void ozram_make_room(struct ozram *oz)
{
	zs_compact(oz->mem_pool);
}

/* Slot lock held: frees what slot @index holds and installs @handle. */
void ozram_obj_install(struct ozram *oz, u32 index, const struct ozram_obj *obj,
		       unsigned long handle)
{
	bool idle = obj->same_page &&
		    ozram_test_flag(oz, index, OZRAM_SLOT_IDLE);

	ozram_free_slot(oz, index);
	oz->table[index].handle = handle;
	ozram_obj_account(oz, index, obj);
	ozram_stat_add(oz, OZRAM_STAT_ORIG_DATA, PAGE_SIZE);
	if (idle)
		ozram_set_flag(oz, index, OZRAM_SLOT_IDLE);
}

/*
 * Slot lock held: frees what slot @index holds and installs @page, a raw
 * copy of the page written there, parked for the agent.
 */
void ozram_obj_install_parked(struct ozram *oz, u32 index, struct page *page)
{
	ozram_free_slot(oz, index);
	oz->table[index].parked = page;
	ozram_set_obj_size(oz, index, PAGE_SIZE);
	ozram_set_flag(oz, index, OZRAM_SLOT_PARKED);
	ozram_park_count(oz, true);
	ozram_stat_add(oz, OZRAM_STAT_COMPR_DATA, PAGE_SIZE);
	ozram_stat_add(oz, OZRAM_STAT_ORIG_DATA, PAGE_SIZE);
}

int ozram_store_object(struct ozram *oz, u32 index, const struct ozram_obj *obj,
		       gfp_t gfp, ozram_store_check_t check, const void *arg)
{
	unsigned long handle;
	int ret;

	ret = ozram_obj_alloc(oz, obj, gfp, &handle);
	if (ret)
		return ret;
	ozram_slot_lock(oz, index);
	ret = check ? check(oz, index, arg) : 0;
	if (!ret)
		ozram_obj_install(oz, index, obj, handle);
	ozram_slot_unlock(oz, index);
	if (ret)
		zs_free(oz->mem_pool, handle);
	return ret;
}

/* Drops whatever the slot holds; the slot lock must be held. */
void ozram_free_slot(struct ozram *oz, u32 index)
{
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
	} else if (ozram_test_flag(oz, index, OZRAM_SLOT_STAGED)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_STAGED);
		ozram_ring_release(slot->handle);
		ozram_stat_dec(oz, OZRAM_STAT_STAGED_PAGES);
	} else if (ozram_test_flag(oz, index, OZRAM_SLOT_SAME)) {
		ozram_clear_flag(oz, index, OZRAM_SLOT_SAME);
		ozram_stat_dec(oz, OZRAM_STAT_SAME_PAGES);
	} else if (ozram_test_flag(oz, index, OZRAM_SLOT_PARKED)) {
		ozram_park_release(oz, slot->parked);
		ozram_obj_unaccount(oz, index);
	} else if (slot->handle) {
		zs_free(oz->mem_pool, slot->handle);
		ozram_obj_unaccount(oz, index);
	} else {
		return;		/* nothing stored */
	}
	ozram_stat_sub(oz, OZRAM_STAT_ORIG_DATA, PAGE_SIZE);
	slot->handle = 0;
	ozram_set_obj_size(oz, index, 0);
	WARN_ON_ONCE(slot->flags & ~BIT(OZRAM_SLOT_LOCK));
}

struct page *ozram_parked_page(struct ozram *oz, u32 index)
{
	return oz->table[index].parked;
}

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
