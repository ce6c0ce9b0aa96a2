/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The offload ring as the rest of the module sees it: module load and
 * unload, staging a page for the agent, and what a staged page needs until
 * it is stored.  The ring never touches a device's slot table: it takes a
 * page and gives back a reference, and hands results to ozram_io.c.  See
 * Documentation/kmod.md, "The offload ring".
 */
#ifndef OZRAM_RING_API_H
#define OZRAM_RING_API_H

#include <linux/types.h>

struct ozram;
struct ozram_recomp_batch;
struct ozram_snapshot;
struct page;

/*
 * Names one staging of a page: ring slot and the generation it was given.
 * A result that carries it only replaces the device slot if the slot still
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
 * Whether a written page should be offered to the ring at all: false while
 * the agent is not keeping up, when the writer parks the page or
 * compresses it at once.  Takes no lock.  See Documentation/kmod.md,
 * "Admission".
 */
bool ozram_ring_admit(void);

/*
 * Counts a written page that an attached agent did not get and the kernel
 * compressed: kept from the ring by admission (ring_admission_inline), or
 * after it found the ring full (ring_inline_fallbacks).
 */
void ozram_ring_count_inline(bool admission);

/*
 * Copies @page into a staging slot for the agent to compress with
 * @algorithm (enum ozram_ring_algorithm, or -1 for one no agent does), on
 * behalf of slot @index of @oz, and fills in @ref.  The caller holds that
 * device slot's lock and marks the slot staged before dropping it, so that
 * no result for the staging can be stored before the slot names it.
 * Return: 0 when staged, -ENODEV when no agent is attached, -EOPNOTSUPP
 * when the agent does not do @algorithm, -EBUSY when the ring has no room
 * (the caller compresses inline).
 */
int ozram_ring_stage(struct ozram *oz, u32 index, struct page *page,
		     int algorithm, struct ozram_stage_ref *ref);

/*
 * As ozram_ring_stage(), for a page that was written while the ring was
 * full and is parked (ozram_io_park.c): a failure is no writer's fallback
 * and fires no ozram_fallback event.
 */
int ozram_ring_stage_parked(struct ozram *oz, u32 index, struct page *page,
			    int algorithm, struct ozram_stage_ref *ref);

/* Whether an agent is attached (a hint: it may detach at any time). */
bool ozram_ring_attached(void);

/*
 * Whether admission is open: the agent drains the ring (a hint, without
 * the probes of ozram_ring_admit()).
 */
bool ozram_ring_admit_open(void);

/* How long, in jiffies, the agent may go without progress (ring_timeout_ms). */
unsigned long ozram_ring_timeout(void);

/*
 * Copies @page, page @index of the device @batch recompresses, into a
 * staging slot for the agent to compress with @algorithm.  The device
 * slot keeps its object and is not told: the ring releases the staging
 * slot itself, and hands the result (or its failure) to
 * ozram_recomp_result().  Return: as ozram_ring_stage().
 */
int ozram_ring_stage_recompress(struct ozram_recomp_batch *batch, u32 index,
				struct page *page, int algorithm);

/* How many pages the ring can hold staged at once; 0 without a ring. */
u32 ozram_ring_capacity(void);

/* Device slot lock held: gives back the ring slot of a staged page. */
void ozram_ring_release(u32 ring_slot);

/*
 * Device slot lock held, before ozram_ring_release(): the staged page is
 * gone for good (its device is reset), so its copy is cleared, and no agent
 * reads it from the free slot.
 */
void ozram_ring_forget(u32 ring_slot);

/* Device slot lock held: whether @ref is still the staging of the slot. */
bool ozram_ring_stage_current(const struct ozram_stage_ref *ref);

/* The staged copy in ring slot @ring_slot (valid under the slot lock). */
const void *ozram_ring_staged_data(u32 ring_slot);

/* Device reset and removal exclude the ring's completions and stores. */
void ozram_ring_lock_devices(void);
void ozram_ring_unlock_devices(void);

/*
 * mem_limit of @oz changed: its pages that stay staged because storing
 * them failed (over the limit) are stored again by the ring's worker.
 */
void ozram_ring_retry_held(struct ozram *oz);

/* Ring counters and agent state for a statistics snapshot. */
void ozram_ring_snapshot(struct ozram_snapshot *snap);

#endif /* OZRAM_RING_API_H */
