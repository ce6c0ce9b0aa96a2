// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, recompression: what ozram_recomp.c asks of the slot
 * table.  A slot is picked (read, and marked RECOMPRESSING), and later
 * either gets the smaller object or keeps its own; an overwrite or discard
 * in between clears the mark, and the result is dropped.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/kernel.h>

#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_io_internal.h"
#include "ozram_slot.h"

/*
 * Whether slot @index may be recompressed with the algorithm of priority
 * @prio: a settled object, not known not to shrink, of the kind @mode asks
 * for, at least @threshold bytes, compressed with an algorithm of lower
 * priority.  Slot lock held.
 */
static bool ozram_recomp_candidate(struct ozram *oz, u32 index, u32 mode,
				   u32 threshold, u32 prio)
{
	if (!ozram_slot_settled(oz, index) ||
	    ozram_test_flag(oz, index, OZRAM_SLOT_INCOMPRESSIBLE))
		return false;
	if ((mode & OZRAM_RECOMP_IDLE) &&
	    !ozram_test_flag(oz, index, OZRAM_SLOT_IDLE))
		return false;
	if ((mode & OZRAM_RECOMP_HUGE) &&
	    !ozram_test_flag(oz, index, OZRAM_SLOT_HUGE))
		return false;
	return ozram_get_obj_size(oz, index) >= threshold &&
	       ozram_get_priority(oz, index) < prio;
}

int ozram_recomp_pick(struct ozram *oz, u32 index, u32 mode, u32 threshold,
		      u32 prio, struct page *page)
{
	unsigned int size;
	int ret;

	ozram_slot_lock(oz, index);
	if (!ozram_recomp_candidate(oz, index, mode, threshold, prio)) {
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

/* A result for a picked slot, and what a miss does to the slot. */
struct ozram_recomp_outcome {
	unsigned int len;		/* 0: the page did not shrink at all */
	enum ozram_recomp_miss miss;
};

/*
 * An ozram_store_check_t: the slot still holds what was picked, and the
 * result saves memory over it (counted now: it is installed next).  A
 * miss is applied here, and keeps the slot's object (1).
 */
static int ozram_recomp_check(struct ozram *oz, u32 index, const void *arg)
{
	const struct ozram_recomp_outcome *out = arg;
	unsigned int old = ozram_get_obj_size(oz, index);

	/* Overwritten or discarded meanwhile. */
	if (!ozram_test_flag(oz, index, OZRAM_SLOT_RECOMPRESSING))
		return -ESTALE;
	ozram_clear_flag(oz, index, OZRAM_SLOT_RECOMPRESSING);
	if (out->len && ozram_recomp_saves(old, out->len)) {
		ozram_stat_add(oz, OZRAM_STAT_RECOMPRESS_SAVED, old - out->len);
		return 0;
	}
	if (out->miss != OZRAM_RECOMP_MISS_NEXT)
		ozram_clear_flag(oz, index, OZRAM_SLOT_IDLE);
	if (out->miss == OZRAM_RECOMP_MISS_MARK)
		ozram_set_flag(oz, index, OZRAM_SLOT_INCOMPRESSIBLE);
	return 1;
}

/* ozram_recomp_store() of @obj; -EBADMSG when its check refused it. */
static int ozram_recomp_store_obj(struct ozram *oz, u32 index,
				  const struct ozram_obj *obj, u32 threshold,
				  enum ozram_recomp_miss miss)
{
	struct ozram_recomp_outcome out = { .miss = miss };
	int ret;

	/*
	 * A result at or past the threshold, or not compressed: a miss.  Its
	 * bytes are never read, so a check would decide nothing.
	 */
	if (!obj->len || obj->len >= PAGE_SIZE ||
	    (threshold && obj->len >= threshold)) {
		ozram_slot_lock(oz, index);
		ret = ozram_recomp_check(oz, index, &out);
		ozram_slot_unlock(oz, index);
		return ret < 0 ? ret : 0;
	}
	out.len = obj->len;
	/* No reclaim: the page is stored already, as zram recompresses. */
	ret = ozram_store_object(oz, index, obj, OZRAM_GFP_NOWAIT,
				 ozram_recomp_check, &out);
	if (ret == -EAGAIN || ret == -ENOMEM) {
		/* Still idle: the pass redoes it. */
		ozram_recomp_abandon(oz, index);
		return -ENOMEM;
	}
	return ret < 0 ? ret : 0;
}

int ozram_recomp_store(struct ozram *oz, u32 index, const void *buf,
		       unsigned int len, u32 prio, enum ozram_source source,
		       u32 threshold, enum ozram_recomp_miss miss)
{
	const struct ozram_obj obj = {
		.buf = buf,
		.len = len,
		.prio = prio,
		.source = source,
		.replacing = true,
	};

	return ozram_recomp_store_obj(oz, index, &obj, threshold, miss);
}

int ozram_recomp_store_result(struct ozram *oz, u32 index,
			      const struct ozram_ring_result *result, u32 prio,
			      u32 threshold, enum ozram_recomp_miss miss)
{
	const struct ozram_obj obj = ozram_obj_of_result(result, prio, true);

	return ozram_recomp_store_obj(oz, index, &obj, threshold, miss);
}

void ozram_recomp_abandon(struct ozram *oz, u32 index)
{
	ozram_slot_lock(oz, index);
	ozram_clear_flag(oz, index, OZRAM_SLOT_RECOMPRESSING);
	ozram_slot_unlock(oz, index);
}
