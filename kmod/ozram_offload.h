/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram offload ring, kernel side: what the data path and the device code
 * need from ozram_ring.c, and what ozram_ring.c needs from the data path.
 * See Documentation/kmod.md, "The offload ring".
 */
#ifndef OZRAM_OFFLOAD_H
#define OZRAM_OFFLOAD_H

#include <linux/types.h>

#include "ozram_drv.h"

struct page;

/*
 * Names one staging of a page: ring slot and the generation it was given.
 * A commit that carries it only replaces the device slot if the slot still
 * holds exactly that staging (it was not overwritten or discarded since).
 */
struct ozram_stage_ref {
	u32 ring_slot;
	u32 generation;
};

/* Module load and unload: the ring memory and /dev/ozram-ring. */
int ozram_ring_init(void);
int ozram_ring_register(void);
void ozram_ring_exit(void);

/*
 * Stages @page for the agent and makes device slot @index point at it.
 * Return: 0 when staged, -ENODEV when no agent is attached, -EBUSY when
 * the ring has no room (the caller compresses inline).
 */
int ozram_ring_stage(struct ozram *oz, u32 index, struct page *page);

/* Device slot lock held: gives back the ring slot of a STAGED page. */
void ozram_ring_release(u32 ring_slot);

/* Device slot lock held: whether @ref is still the staging of the slot. */
bool ozram_ring_stage_current(const struct ozram_stage_ref *ref);

/* The staged copy of ring slot @ring_slot (valid under the slot lock). */
const void *ozram_ring_staged_data(u32 ring_slot);

/* Device reset and removal exclude the completion and take-back paths. */
void ozram_ring_lock_devices(void);
void ozram_ring_unlock_devices(void);

/*
 * mem_limit of @oz changed: its pages that stay staged because storing
 * them failed (over the limit) are stored again by the ring's worker.
 */
void ozram_ring_retry_held(struct ozram *oz);

/* Ring counters and agent state for a statistics snapshot. */
void ozram_ring_snapshot(struct ozram_snapshot *snap);

/*
 * From ozram_io.c: store results on behalf of the ring.  Without
 * @may_reclaim they fail with -EAGAIN rather than enter reclaim.
 */
int ozram_store_staged_inline(struct ozram *oz, u32 index, struct page *page,
			      bool may_reclaim,
			      const struct ozram_stage_ref *ref);
int ozram_store_staged_compressed(struct ozram *oz, u32 index,
				  const void *buf, unsigned int len,
				  enum ozram_source source, bool may_reclaim,
				  const struct ozram_stage_ref *ref);
int ozram_store_staged_same(struct ozram *oz, u32 index,
			    unsigned long element,
			    const struct ozram_stage_ref *ref);

#endif /* OZRAM_OFFLOAD_H */
