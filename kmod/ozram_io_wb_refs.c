// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, compressed writeback's block counts: each block of
 * packed objects counts in oz->bd_refs the objects that touch it, plus one
 * while the pass that wrote it holds it; the last reference dropped frees
 * the block.  The counts are a byte per block, in chunks of
 * OZRAM_WB_REFS_CHUNK blocks that a pass allocates when it first holds a
 * block of theirs, so that a large backing device costs a byte per block
 * only where packing has been.
 */
#include <linux/bug.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "ozram_drv.h"
#include "ozram_io_internal.h"
#include "ozram_io_wb.h"

/*
 * The count of block @blk, which a pass holds or an object touches: its
 * chunk was allocated when the pass took it (ozram_wb_hold_block()), and
 * chunks stay until the backing device goes.  bd_refs_lock held.
 */
static u8 *ozram_wb_refs(struct ozram *oz, unsigned long blk)
{
	return &oz->bd_refs[blk / OZRAM_WB_REFS_CHUNK][blk % OZRAM_WB_REFS_CHUNK];
}

/*
 * A block just taken for a packed batch: the pass holds it.  The first
 * block of a chunk's range allocates the chunk.  Return: 0, or -ENOMEM,
 * holding nothing.
 */
int ozram_wb_hold_block(struct ozram *oz, unsigned long blk)
{
	u8 **chunk = &oz->bd_refs[blk / OZRAM_WB_REFS_CHUNK];
	/* Only a pass sets a chunk, one pass at a time, and none clears one. */
	u8 *fresh = *chunk ? NULL : kzalloc(OZRAM_WB_REFS_CHUNK, GFP_KERNEL);

	if (!*chunk && !fresh)
		return -ENOMEM;
	spin_lock(&oz->bd_refs_lock);
	if (fresh)
		*chunk = fresh;
	WARN_ON_ONCE(*ozram_wb_refs(oz, blk));
	*ozram_wb_refs(oz, blk) = 1;
	spin_unlock(&oz->bd_refs_lock);
	return 0;
}

/* Drops a reference to each block of [@first, @last]; frees those unused. */
void ozram_wb_put_blocks(struct ozram *oz, unsigned long first,
			 unsigned long last)
{
	unsigned long blk;

	for (blk = first; blk <= last; blk++) {
		bool unused = false;
		u8 *refs;

		spin_lock(&oz->bd_refs_lock);
		refs = ozram_wb_refs(oz, blk);
		if (!WARN_ON_ONCE(!*refs))
			unused = !--*refs;
		spin_unlock(&oz->bd_refs_lock);
		if (unused)
			ozram_wb_free_block(oz, blk);
	}
}

/* The object of @size bytes at byte @pos now lives on the device. */
void ozram_wb_get_object(struct ozram *oz, unsigned long pos,
			 unsigned int size)
{
	unsigned long blk;
	u8 *refs;

	spin_lock(&oz->bd_refs_lock);
	for (blk = ozram_wb_first_block(pos);
	     blk <= ozram_wb_last_block(pos, size); blk++) {
		refs = ozram_wb_refs(oz, blk);
		/* Held by the pass, and capped below U8_MAX by it. */
		WARN_ON_ONCE(!*refs || *refs == U8_MAX);
		++*refs;
	}
	spin_unlock(&oz->bd_refs_lock);
}

void ozram_wb_put_object(struct ozram *oz, unsigned long pos,
			 unsigned int size)
{
	ozram_wb_put_blocks(oz, ozram_wb_first_block(pos),
			    ozram_wb_last_block(pos, size));
}
