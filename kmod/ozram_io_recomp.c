// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, recompression: what ozram_recomp.c asks of the slot
 * table.  A slot is picked (read, and marked RECOMPRESSING), and later
 * either gets the smaller object or keeps its own; an overwrite or discard
 * in between clears the mark, and the result is dropped.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_io_internal.h"
#include "ozram_recomp.h"
#include "ozram_slot.h"

/*
 * Whether slot @index may be recompressed with the algorithm of priority
 * @prio: a stored object in memory, neither staged nor same-filled nor on
 * or going to the backing device, not being recompressed nor known not to
 * shrink, of the kind @p asks for, at least
 * @p->threshold bytes, compressed with an algorithm of lower priority.
 * Slot lock held.
 */
static bool ozram_recomp_candidate(struct ozram *oz, u32 index,
				   const struct ozram_recomp_params *p,
				   u32 prio)
{
	if (!oz->table[index].handle ||
	    ozram_test_flag(oz, index, OZRAM_SLOT_STAGED) ||
	    ozram_test_flag(oz, index, OZRAM_SLOT_PARKED) ||
	    ozram_test_flag(oz, index, OZRAM_SLOT_SAME) ||
	    ozram_test_flag(oz, index, OZRAM_SLOT_WB) ||
	    ozram_test_flag(oz, index, OZRAM_SLOT_UNDER_WB) ||
	    ozram_test_flag(oz, index, OZRAM_SLOT_RECOMPRESSING) ||
	    ozram_test_flag(oz, index, OZRAM_SLOT_INCOMPRESSIBLE))
		return false;
	if ((p->mode & OZRAM_RECOMP_IDLE) &&
	    !ozram_test_flag(oz, index, OZRAM_SLOT_IDLE))
		return false;
	if ((p->mode & OZRAM_RECOMP_HUGE) &&
	    !ozram_test_flag(oz, index, OZRAM_SLOT_HUGE))
		return false;
	return ozram_get_obj_size(oz, index) >= p->threshold &&
	       ozram_get_priority(oz, index) < prio;
}

int ozram_recomp_pick(struct ozram *oz, u32 index,
		      const struct ozram_recomp_params *p, u32 prio,
		      struct page *page)
{
	unsigned int size;
	int ret;

	ozram_slot_lock(oz, index);
	if (!ozram_recomp_candidate(oz, index, p, prio)) {
		ozram_slot_unlock(oz, index);
		return 0;
	}
	size = ozram_get_obj_size(oz, index);
	ret = ozram_read_object(oz, index, page);
	if (!ret)
		ozram_set_flag(oz, index, OZRAM_SLOT_RECOMPRESSING);
	ozram_slot_unlock(oz, index);
	return ret ? ret : size;
}

/*
 * Whether @len bytes save memory over @old: zsmalloc stores objects in
 * classes 16 bytes apart, so a smaller size in the same step saves
 * nothing, and from the huge class size on a page is stored raw anyway.
 */
static bool ozram_recomp_saves(unsigned int old, unsigned int len)
{
	return len < ozram_huge_class_size &&
	       DIV_ROUND_UP(len, 16) < DIV_ROUND_UP(old, 16);
}

int ozram_recomp_store(struct ozram *oz, u32 index, const void *buf,
		       unsigned int len, u32 prio, enum ozram_source source,
		       u32 threshold, enum ozram_recomp_miss miss)
{
	struct ozram_stats *st = &oz->stats;
	bool fits = len && len < PAGE_SIZE && (!threshold || len < threshold);
	unsigned long handle = 0;
	unsigned int old;
	void *dst;
	int ret;

	/* No reclaim: the page is stored already, as zram recompresses. */
	if (fits) {
		handle = zs_malloc(oz->mem_pool, len, OZRAM_GFP_NOWAIT);
		if (IS_ERR_VALUE(handle)) {
			handle = 0;
		} else {
			dst = zs_map_object(oz->mem_pool, handle, ZS_MM_WO);
			memcpy(dst, buf, len);
			zs_unmap_object(oz->mem_pool, handle);
		}
	}

	ozram_slot_lock(oz, index);
	if (!ozram_test_flag(oz, index, OZRAM_SLOT_RECOMPRESSING)) {
		ret = -ESTALE;		/* overwritten or discarded meanwhile */
		goto out;
	}
	ozram_clear_flag(oz, index, OZRAM_SLOT_RECOMPRESSING);
	old = ozram_get_obj_size(oz, index);
	if (fits && !handle) {
		ret = -ENOMEM;		/* still idle: the pass redoes it */
		goto out;
	}
	if (!fits || !ozram_recomp_saves(old, len)) {
		if (miss != OZRAM_RECOMP_MISS_NEXT)
			ozram_clear_flag(oz, index, OZRAM_SLOT_IDLE);
		if (miss == OZRAM_RECOMP_MISS_MARK)
			ozram_set_flag(oz, index, OZRAM_SLOT_INCOMPRESSIBLE);
		ret = 0;
		goto out;
	}
	ozram_free_slot(oz, index);
	oz->table[index].handle = handle;
	handle = 0;
	ozram_set_obj_size(oz, index, len);
	ozram_set_priority(oz, index, prio);
	ozram_set_slot_source(oz, index, source);
	atomic64_inc(&st->source_pages[source]);
	atomic64_add(len, &st->compr_data_size);
	atomic64_inc(&st->pages_stored);
	atomic64_inc(&st->recompressed_pages);
	atomic64_add(old - len, &st->recompress_saved);
	ret = 1;
out:
	ozram_slot_unlock(oz, index);
	if (handle)
		zs_free(oz->mem_pool, handle);
	return ret;
}

void ozram_recomp_abandon(struct ozram *oz, u32 index)
{
	ozram_slot_lock(oz, index);
	ozram_clear_flag(oz, index, OZRAM_SLOT_RECOMPRESSING);
	ozram_slot_unlock(oz, index);
}
