/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram slot table: accessors of the per-page slots.  Every helper that
 * reads or changes a slot needs the slot's bit spinlock, taken with
 * ozram_slot_lock(), except while the device is being set up or torn down.
 */
#ifndef OZRAM_SLOT_H
#define OZRAM_SLOT_H

#include <linux/bit_spinlock.h>
#include <linux/bitops.h>

#include "ozram_drv.h"

static inline void ozram_slot_lock(struct ozram *oz, u32 index)
{
	bit_spin_lock(OZRAM_SLOT_LOCK, &oz->table[index].flags);
}

static inline bool ozram_slot_trylock(struct ozram *oz, u32 index)
{
	return bit_spin_trylock(OZRAM_SLOT_LOCK, &oz->table[index].flags);
}

static inline void ozram_slot_unlock(struct ozram *oz, u32 index)
{
	bit_spin_unlock(OZRAM_SLOT_LOCK, &oz->table[index].flags);
}

/* The helpers below require the slot lock. */
static inline bool ozram_test_flag(struct ozram *oz, u32 index,
				   enum ozram_slot_flag flag)
{
	return oz->table[index].flags & BIT(flag);
}

static inline void ozram_set_flag(struct ozram *oz, u32 index,
				  enum ozram_slot_flag flag)
{
	oz->table[index].flags |= BIT(flag);
}

static inline void ozram_clear_flag(struct ozram *oz, u32 index,
				    enum ozram_slot_flag flag)
{
	oz->table[index].flags &= ~BIT(flag);
}

static inline unsigned int ozram_get_obj_size(struct ozram *oz, u32 index)
{
	return oz->table[index].flags & (BIT(OZRAM_FLAG_SHIFT) - 1);
}

static inline void ozram_set_obj_size(struct ozram *oz, u32 index, unsigned int size)
{
	unsigned long flags = oz->table[index].flags >> OZRAM_FLAG_SHIFT;

	oz->table[index].flags = (flags << OZRAM_FLAG_SHIFT) | size;
}

static inline bool ozram_slot_allocated(struct ozram *oz, u32 index)
{
	return ozram_get_obj_size(oz, index) ||
	       ozram_test_flag(oz, index, OZRAM_SLOT_SAME) ||
	       ozram_test_flag(oz, index, OZRAM_SLOT_STAGED);
}

static inline enum ozram_source ozram_slot_source(struct ozram *oz, u32 index)
{
	if (ozram_test_flag(oz, index, OZRAM_SLOT_SRC_AGENT_GPU))
		return OZRAM_SRC_AGENT_GPU;
	if (ozram_test_flag(oz, index, OZRAM_SLOT_SRC_AGENT_CPU))
		return OZRAM_SRC_AGENT_CPU;
	return OZRAM_SRC_KERNEL_LZ4;
}

static inline void ozram_set_slot_source(struct ozram *oz, u32 index,
					 enum ozram_source source)
{
	if (source == OZRAM_SRC_AGENT_CPU)
		ozram_set_flag(oz, index, OZRAM_SLOT_SRC_AGENT_CPU);
	else if (source == OZRAM_SRC_AGENT_GPU)
		ozram_set_flag(oz, index, OZRAM_SLOT_SRC_AGENT_GPU);
}

void ozram_free_slot(struct ozram *oz, u32 index);

#endif /* OZRAM_SLOT_H */
