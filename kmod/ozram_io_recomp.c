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
	unsigned int len;		/* 0: the page did not compress at all */
	bool over_threshold;		/* @len is not below the threshold */
	enum ozram_recomp_miss miss;
};

/*
 * The verdict on a picked slot (slot lock held): -ESTALE if it was
 * overwritten or discarded meanwhile, 0 if the result is to replace its
 * object, 1 for a miss, applied here.  @final: the object is allocated
 * and installed next, so the slot is no longer picked and the saving is
 * counted; before that, the verdict is only asked for, so that a miss
 * allocates nothing.  A result that saves memory but is not below the
 * threshold is a miss that marks nothing, as in zram: the page did shrink.
 */
static int ozram_recomp_verdict(struct ozram *oz, u32 index,
				const struct ozram_recomp_outcome *out,
				bool final)
{
	unsigned int old = ozram_get_obj_size(oz, index);
	enum ozram_recomp_miss miss = out->miss;

	if (!ozram_test_flag(oz, index, OZRAM_SLOT_RECOMPRESSING))
		return -ESTALE;
	if (out->len && ozram_recomp_saves(old, out->len)) {
		if (!out->over_threshold) {
			if (final) {
				ozram_clear_flag(oz, index,
						 OZRAM_SLOT_RECOMPRESSING);
				ozram_stat_add(oz, OZRAM_STAT_RECOMPRESS_SAVED,
					       old - out->len);
			}
			return 0;
		}
		if (miss == OZRAM_RECOMP_MISS_MARK)
			miss = OZRAM_RECOMP_MISS_KEEP;
	}
	ozram_clear_flag(oz, index, OZRAM_SLOT_RECOMPRESSING);
	if (miss != OZRAM_RECOMP_MISS_NEXT)
		ozram_clear_flag(oz, index, OZRAM_SLOT_IDLE);
	if (miss == OZRAM_RECOMP_MISS_MARK)
		ozram_set_flag(oz, index, OZRAM_SLOT_INCOMPRESSIBLE);
	return 1;
}

/* An ozram_store_check_t: the verdict again, with the object in hand. */
static int ozram_recomp_check(struct ozram *oz, u32 index, const void *arg)
{
	return ozram_recomp_verdict(oz, index, arg, true);
}

/* ozram_recomp_store() of @obj; -EBADMSG when its check refused it. */
static int ozram_recomp_store_obj(struct ozram *oz, u32 index,
				  const struct ozram_obj *obj, u32 threshold,
				  enum ozram_recomp_miss miss)
{
	const bool compressed = obj->len && obj->len < PAGE_SIZE;
	const struct ozram_recomp_outcome out = {
		.len = compressed ? obj->len : 0,
		.over_threshold = threshold && obj->len >= threshold,
		.miss = miss,
	};
	int ret;

	/*
	 * A miss is decided before an object is allocated: near mem_limit an
	 * allocation for nothing would fail, and the page would be redone.
	 * A miss's bytes are never read, so a check would decide nothing.
	 */
	ozram_slot_lock(oz, index);
	ret = ozram_recomp_verdict(oz, index, &out, false);
	ozram_slot_unlock(oz, index);
	if (ret)
		return ret < 0 ? ret : 0;
	/* No reclaim: the page is stored already, as zram recompresses. */
	ret = ozram_store_object(oz, index, obj, OZRAM_GFP_NOWAIT,
				 ozram_recomp_check, &out);
	if (ret == -EAGAIN || ret == -ENOMEM) {
		/* Still idle: the pass redoes it. */
		ozram_recomp_abandon(oz, index);
		return -ENOMEM;
	}
	if (ret < 0)
		return ret;
	return ret ? 0 : 1;
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
