/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram slot table: one slot per page of a device, and the rules of what a
 * slot may hold.
 *
 * The writers of the table are the data path's files, ozram_io*.c, and no
 * other code: only they include this header.  Everything else reaches the
 * slots through the functions of ozram_io.h.  Every helper below needs the
 * slot's bit spinlock, taken with ozram_slot_lock(), except while the
 * device is being set up or torn down.
 */
#ifndef OZRAM_SLOT_H
#define OZRAM_SLOT_H

#include <linux/bit_spinlock.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/ktime.h>

#include "ozram_drv.h"

/*
 * The low OZRAM_FLAG_SHIFT bits of a slot's flags word hold the size of its
 * zsmalloc object (at most PAGE_SIZE); the bits above are enum
 * ozram_slot_flag.
 */
#define OZRAM_FLAG_SHIFT	(PAGE_SHIFT + 1)

enum ozram_slot_flag {
	OZRAM_SLOT_LOCK = OZRAM_FLAG_SHIFT, /* bit spinlock of the slot */
	OZRAM_SLOT_SAME,	/* element holds the word the page repeats */
	OZRAM_SLOT_HUGE,	/* object is the raw page */
	OZRAM_SLOT_IDLE,	/* not accessed since the last "idle" write */
	OZRAM_SLOT_SRC_AGENT_CPU, /* compressed by the agent on a CPU */
	OZRAM_SLOT_SRC_AGENT_GPU, /* compressed by the agent on a GPU */
	/*
	 * The page waits in a staging slot of the offload ring (handle holds
	 * the ring slot) for the agent to compress it.
	 */
	OZRAM_SLOT_STAGED,
	/*
	 * Two bits: the priority of the algorithm that compressed the
	 * object, 0 for the device's own, 1..3 for a recompression one.
	 */
	OZRAM_SLOT_PRIO_BIT0,
	OZRAM_SLOT_PRIO_BIT1,
	/* Recompression could not make it smaller: not tried again. */
	OZRAM_SLOT_INCOMPRESSIBLE,
	/* A copy is with the agent for recompression (see ozram_recomp.c). */
	OZRAM_SLOT_RECOMPRESSING,
	/*
	 * The page is on the backing device: element holds its block
	 * (ozram_io_wb*.c).  Nothing is in memory.
	 */
	OZRAM_SLOT_WB,
	/*
	 * A copy is being written to the backing device; the slot keeps its
	 * object, and readers use it, until the write has completed.  Any
	 * free of the slot clears the mark, so that a completion finding it
	 * gone knows the page was rewritten or discarded meanwhile.
	 */
	OZRAM_SLOT_UNDER_WB,
	/*
	 * With OZRAM_SLOT_WB: the compressed object is on the backing
	 * device, packed among others (ozram_io_wb_packed.c).  element holds
	 * its byte address, the size bits its size and the priority bits its
	 * algorithm, as for an object in memory.
	 */
	OZRAM_SLOT_WB_PACKED,
	/*
	 * The object is the raw page, written while the agent could not
	 * take it and waiting to be staged (ozram_io_park.c).
	 */
	OZRAM_SLOT_PARKED,

	__OZRAM_SLOT_NR_FLAGS,
};

static_assert(__OZRAM_SLOT_NR_FLAGS <= BITS_PER_LONG);

/* One entry per page of the device. */
struct ozram_slot {
	union {
		unsigned long handle;	/* zsmalloc handle */
		unsigned long element;	/* with OZRAM_SLOT_SAME */
		struct page *parked;	/* with OZRAM_SLOT_PARKED */
	};
	unsigned long flags;
	/*
	 * Boot time of the last read or write, for idle marking by age.  Not
	 * reset when the content is replaced: a staged page's result takes
	 * over the time of the write that staged it.
	 */
	ktime_t ac_time;
};

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
	       ozram_test_flag(oz, index, OZRAM_SLOT_WB) ||
	       ozram_test_flag(oz, index, OZRAM_SLOT_STAGED);
}

/*
 * Whether slot @index holds a page that waits for the agent, staged or
 * parked: one test for both, so that a read of a stored object makes no
 * test that zram's does not.
 */
static inline bool ozram_slot_waits_for_agent(struct ozram *oz, u32 index)
{
	return oz->table[index].flags & (BIT(OZRAM_SLOT_STAGED) |
					 BIT(OZRAM_SLOT_PARKED));
}

/*
 * Whether slot @index holds a settled object in memory: compressed data
 * or the raw page, stored for good, that recompression and writeback may
 * take.  Not a page that waits for the agent (staged, parked), nor a
 * repeated word, nor a page on or going to the backing device, nor one
 * being recompressed.
 */
static inline bool ozram_slot_settled(struct ozram *oz, u32 index)
{
	return ozram_get_obj_size(oz, index) &&
	       !(oz->table[index].flags & (BIT(OZRAM_SLOT_STAGED) |
					   BIT(OZRAM_SLOT_PARKED) |
					   BIT(OZRAM_SLOT_SAME) |
					   BIT(OZRAM_SLOT_WB) |
					   BIT(OZRAM_SLOT_UNDER_WB) |
					   BIT(OZRAM_SLOT_RECOMPRESSING)));
}

static inline u32 ozram_get_priority(struct ozram *oz, u32 index)
{
	return (oz->table[index].flags >> OZRAM_SLOT_PRIO_BIT0) & 0x3;
}

static inline void ozram_set_priority(struct ozram *oz, u32 index, u32 prio)
{
	oz->table[index].flags &= ~(3UL << OZRAM_SLOT_PRIO_BIT0);
	oz->table[index].flags |= (unsigned long)(prio & 0x3) <<
				  OZRAM_SLOT_PRIO_BIT0;
}

static inline enum ozram_source ozram_slot_source(struct ozram *oz, u32 index)
{
	if (ozram_test_flag(oz, index, OZRAM_SLOT_SRC_AGENT_GPU))
		return OZRAM_SRC_AGENT_GPU;
	if (ozram_test_flag(oz, index, OZRAM_SLOT_SRC_AGENT_CPU))
		return OZRAM_SRC_AGENT_CPU;
	return OZRAM_SRC_KERNEL;
}

static inline void ozram_set_slot_source(struct ozram *oz, u32 index,
					 enum ozram_source source)
{
	if (source == OZRAM_SRC_AGENT_CPU)
		ozram_set_flag(oz, index, OZRAM_SLOT_SRC_AGENT_CPU);
	else if (source == OZRAM_SRC_AGENT_GPU)
		ozram_set_flag(oz, index, OZRAM_SLOT_SRC_AGENT_GPU);
}

#endif /* OZRAM_SLOT_H */
