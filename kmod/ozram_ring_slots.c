// SPDX-License-Identifier: GPL-2.0
/*
 * The producer's rules for the staging slots of the offload ring: see
 * ozram_ring_slots.h.  This file is built into ozram.ko and, unchanged,
 * into the userspace producer and the unit tests, so it uses nothing of
 * the kernel but what the shim in agent/src/ring/kshim/ also provides.
 */
#include <linux/nospec.h>
#include <linux/string.h>

#include "ozram_lz4_verify.h"
#include "ozram_ring_slots.h"

void ozram_ring_slots_init(struct ozram_ring_slots *s, u32 nr,
			   u32 huge_threshold)
{
	u32 slot;

	s->nr = nr;
	s->huge_threshold = huge_threshold;
	/* Slot 0 on top, so that a quiet system keeps using the same pages. */
	for (slot = 0; slot < nr; slot++) {
		s->free_stack[slot] = nr - 1 - slot;
		s->generations[slot] = 0;
		s->states[slot] = OZRAM_RING_SLOT_FREE;
		s->algorithms[slot] = OZRAM_RING_ALG_LZ4;
		s->posted[slot] = 0;
	}
	s->nr_free = nr;
}

bool ozram_ring_slots_get(struct ozram_ring_slots *s, unsigned long now,
			  u8 algorithm, u32 *slot, u32 *generation)
{
	u32 taken;

	if (!s->nr_free)
		return false;
	taken = s->free_stack[--s->nr_free];
	/* Each posting has its own generation: answers to older ones are stale. */
	*generation = ++s->generations[taken];
	s->states[taken] = OZRAM_RING_SLOT_IN_FLIGHT;
	s->algorithms[taken] = algorithm;
	s->posted[taken] = now;
	*slot = taken;
	return true;
}

void ozram_ring_slots_put(struct ozram_ring_slots *s, u32 slot)
{
	if (s->states[slot] == OZRAM_RING_SLOT_FREE)
		return;
	s->states[slot] = OZRAM_RING_SLOT_FREE;
	s->free_stack[s->nr_free++] = slot;
}

bool ozram_ring_slots_current(const struct ozram_ring_slots *s, u32 slot,
			      u32 generation)
{
	if (slot >= s->nr)
		return false;
	slot = array_index_nospec(slot, s->nr);
	return s->states[slot] != OZRAM_RING_SLOT_FREE &&
	       s->generations[slot] == generation;
}

enum ozram_ring_verdict ozram_ring_slots_claim(struct ozram_ring_slots *s,
					       const struct ozram_ring_cqe *cqe)
{
	struct ozram_ring_cqe checked = *cqe;
	enum ozram_ring_verdict verdict;

	if (checked.slot >= s->nr)
		return OZRAM_RING_BAD_SLOT;
	/* The agent chose the index: no speculative use past the check. */
	checked.slot = array_index_nospec(checked.slot, s->nr);
	verdict = ozram_ring_check_cqe(&checked, s->nr, s->huge_threshold,
				       s->generations);
	if (verdict == OZRAM_RING_STALE)
		return verdict;
	/* The right generation, but answered or taken back already. */
	if (s->states[checked.slot] != OZRAM_RING_SLOT_IN_FLIGHT)
		return OZRAM_RING_STALE;
	s->states[checked.slot] = OZRAM_RING_SLOT_KEPT;
	if (verdict == OZRAM_RING_OK && checked.status == OZRAM_RING_STATUS_OK &&
	    !ozram_ring_encoding_fits(checked.encoding,
				      s->algorithms[checked.slot]))
		return OZRAM_RING_BAD_ENCODING;
	return verdict;
}

bool ozram_ring_sq_head_advanced(u32 seen, u32 head, u32 sq_tail)
{
	/* Indices wrap: compare distances from @seen, not the values. */
	return head != seen && head - seen <= sq_tail - seen;
}

unsigned long ozram_ring_take_back_age(unsigned long now,
				       unsigned long last_progress,
				       unsigned long timeout)
{
	/* A slow agent that keeps answering is waited for, up to a point. */
	if (now - last_progress < timeout)
		return timeout * OZRAM_RING_HARD_TIMEOUTS;
	return timeout;
}

enum ozram_ring_take_back ozram_ring_slots_take_back(struct ozram_ring_slots *s,
						     u32 slot,
						     unsigned long now,
						     unsigned long age)
{
	if (s->states[slot] != OZRAM_RING_SLOT_IN_FLIGHT)
		return OZRAM_RING_NOT_IN_FLIGHT;
	/*
	 * Signed: a slot posted after @now (staged while the caller, its
	 * clock read, waited for the ring's lock) is young, not a tick
	 * count's wrap old.  An age of 0 takes back every slot in flight.
	 */
	if (age && (long)(now - s->posted[slot]) < (long)age)
		return OZRAM_RING_LEFT_IN_FLIGHT;
	s->states[slot] = OZRAM_RING_SLOT_KEPT;
	return OZRAM_RING_TAKEN_BACK;
}

static bool page_is_filled_with(const void *page, u64 fill)
{
	const u64 *words = page;
	u32 i;

	for (i = 0; i < OZRAM_RING_PAGE_SIZE / sizeof(u64); i++)
		if (words[i] != fill)
			return false;
	return true;
}

/* Whether a compressed result of a page of @algorithm is an LZ4 block. */
static bool ozram_ring_is_lz4_block(u32 encoding, u8 algorithm)
{
	return encoding == OZRAM_RING_ENC_LZ4 ||
	       algorithm == OZRAM_RING_ALG_LZ4 ||
	       algorithm == OZRAM_RING_ALG_LZ4HC;
}

bool ozram_ring_checks_in_place(const struct ozram_ring_cqe *cqe,
				u8 algorithm, bool verify)
{
	if (cqe->encoding != OZRAM_RING_ENC_LZ4 &&
	    cqe->encoding != OZRAM_RING_ENC_COMPRESSED)
		return false;
	return !verify || ozram_ring_is_lz4_block(cqe->encoding, algorithm);
}

bool ozram_ring_result_matches(const struct ozram_ring_cqe *cqe, u8 algorithm,
			       const void *out, const void *staged,
			       void *scratch, bool verify,
			       int (*decode)(void *ctx, const void *src,
					     unsigned int len, void *dst),
			       void *ctx)
{
	switch (cqe->encoding) {
	case OZRAM_RING_ENC_LZ4:
	case OZRAM_RING_ENC_COMPRESSED:
		if (!verify)
			return true;
		/*
		 * The walk gives the verdict of a decode and compare, with
		 * no output buffer (Documentation/kmod.md, "The LZ4 check").
		 */
		if (ozram_ring_is_lz4_block(cqe->encoding, algorithm))
			return ozram_lz4_verify(out, cqe->length, staged,
						OZRAM_RING_PAGE_SIZE);
		return !decode(ctx, out, cqe->length, scratch) &&
		       !memcmp(scratch, staged, OZRAM_RING_PAGE_SIZE);
	case OZRAM_RING_ENC_RAW:
		return true;
	case OZRAM_RING_ENC_SAME_FILLED:
		/*
		 * A device slot keeps an unsigned long: a wider word is cut.
		 * The word is checked even without @verify: it is stored in
		 * place of the page, and 512 compares cost less than a decode.
		 */
		if (cqe->fill != (unsigned long)cqe->fill)
			return false;
		return page_is_filled_with(staged, cqe->fill);
	default:
		return false;
	}
}
