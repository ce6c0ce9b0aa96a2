/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The producer's rules for the staging slots of the offload ring, as a pure
 * state machine: which slot is free, in flight or kept by the producer, the
 * generation each completion must carry, which completion may claim a slot,
 * which slots a time-out takes back, and whether a result gives back the
 * staged page.
 *
 * It holds no lock, allocates nothing and reads no clock: the caller
 * serialises every call, provides the arrays and passes the time in its own
 * ticks.  That is what lets the same file run in ozram.ko and, through a
 * shim for the kernel's types, in the userspace producer and its unit tests.
 */
#ifndef OZRAM_RING_SLOTS_H
#define OZRAM_RING_SLOTS_H

#include <linux/types.h>

#include <ozram_ring.h>

enum ozram_ring_slot_state {
	OZRAM_RING_SLOT_FREE,		/* on the free stack */
	OZRAM_RING_SLOT_IN_FLIGHT,	/* posted: the agent may complete it */
	OZRAM_RING_SLOT_KEPT,		/* the producer stores it or holds it */
};

/*
 * A slot is taken back once it has been in flight this many time-outs,
 * even from an agent that keeps making progress: an agent that answers
 * for some pages and never for others.
 */
#define OZRAM_RING_HARD_TIMEOUTS	8

struct ozram_ring_slots {
	u32 nr;			/* slots */
	u32 huge_threshold;	/* the header's: largest LZ4 length accepted */
	u32 nr_free;
	u32 *free_stack;	/* nr entries, the top at nr_free - 1 */
	/* The generation of each slot's latest posting. */
	u32 *generations;
	u8 *states;		/* enum ozram_ring_slot_state */
	u8 *algorithms;		/* enum ozram_ring_algorithm of each posting */
	unsigned long *posted;	/* tick of each slot's latest posting */
};

/* @s's arrays hold @nr entries each; every slot starts free. */
void ozram_ring_slots_init(struct ozram_ring_slots *s, u32 nr,
			   u32 huge_threshold);

/*
 * Takes a free slot for a new posting of a page of @algorithm at tick
 * @now.  Return: false when none is free; otherwise true with *@slot and
 * the *@generation to post.
 */
bool ozram_ring_slots_get(struct ozram_ring_slots *s, unsigned long now,
			  u8 algorithm, u32 *slot, u32 *generation);

/* Frees @slot, whatever its state: a later completion for it is stale. */
void ozram_ring_slots_put(struct ozram_ring_slots *s, u32 slot);

/*
 * Whether @slot still holds the posting that carried @generation: not
 * freed and not posted again since.
 */
bool ozram_ring_slots_current(const struct ozram_ring_slots *s, u32 slot,
			      u32 generation);

/*
 * Checks one completion, a private copy, and claims its slot when it is the
 * answer to the slot's posting in flight.  OZRAM_RING_BAD_SLOT and
 * OZRAM_RING_STALE (an old generation, or a slot not in flight: a repeat)
 * leave every slot as it was; any other verdict moves the slot to
 * OZRAM_RING_SLOT_KEPT, so that a repeat is stale.  An encoding that cannot
 * answer the posting's algorithm is OZRAM_RING_BAD_ENCODING.
 * OZRAM_RING_OK with a negative status is the agent giving the page back.
 */
enum ozram_ring_verdict ozram_ring_slots_claim(struct ozram_ring_slots *s,
					       const struct ozram_ring_cqe *cqe);

/*
 * Whether @verdict, from ozram_ring_slots_claim(), claimed its slot: an
 * answer that ends a posting, right or wrong.  Only such an answer is the
 * agent's progress; a completion that claims nothing could be garbage
 * written to look alive.
 */
static inline bool ozram_ring_verdict_claims(enum ozram_ring_verdict verdict)
{
	return verdict != OZRAM_RING_BAD_SLOT && verdict != OZRAM_RING_STALE;
}

/*
 * Whether the agent's sq_head, now @head, moved on from @seen (where it
 * last counted as progress) without passing the kernel's @sq_tail: the
 * agent took pages.  A head that moves back, or past the tail, took none.
 */
bool ozram_ring_sq_head_advanced(u32 seen, u32 head, u32 sq_tail);

/*
 * The age in ticks from which a slot in flight is taken back: @timeout
 * when the agent made no progress in the last @timeout ticks, else
 * OZRAM_RING_HARD_TIMEOUTS times that.
 */
unsigned long ozram_ring_take_back_age(unsigned long now,
				       unsigned long last_progress,
				       unsigned long timeout);

enum ozram_ring_take_back {
	OZRAM_RING_NOT_IN_FLIGHT,
	OZRAM_RING_LEFT_IN_FLIGHT,	/* younger than the age */
	OZRAM_RING_TAKEN_BACK,		/* now OZRAM_RING_SLOT_KEPT */
};

/*
 * Takes @slot back from the agent if it has been in flight for at least
 * @age ticks at tick @now (an @age of 0 takes back any slot in flight).
 */
enum ozram_ring_take_back ozram_ring_slots_take_back(struct ozram_ring_slots *s,
						     u32 slot,
						     unsigned long now,
						     unsigned long age);

/*
 * Whether the compressed result of an accepted completion @cqe, posted in
 * @algorithm, can be checked where its owner copies it (its object), with
 * no private copy before: an LZ4 block, which ozram_lz4_verify() checks
 * without a buffer or a lock, or any result when @verify is false.
 * Another format's check decodes it under a stream lock, which must not be
 * taken where the owner's copy is mapped.
 */
bool ozram_ring_checks_in_place(const struct ozram_ring_cqe *cqe,
				u8 algorithm, bool verify);

/*
 * Whether the result of an accepted completion @cqe gives back @staged, the
 * page the producer posted in @algorithm (enum ozram_ring_algorithm).  @out
 * is the producer's private copy of the cqe->length bytes of the output
 * slot (the agent may rewrite the slot at any time).  An LZ4 block (an LZ4
 * or LZ4HC page) is checked against the staged page by ozram_lz4_verify(),
 * with no output buffer; another format is decoded into @scratch, a page of
 * scratch memory, with @decode(@ctx, ...), the decoder of the posting's
 * algorithm, which returns 0 when the bytes give exactly one page, and
 * compared.  With @verify false, compressed results are taken as they are;
 * a same-filled word is always checked against the staged page.  A RAW
 * result always matches: the producer stores its staged copy and never
 * reads the agent's bytes.
 */
bool ozram_ring_result_matches(const struct ozram_ring_cqe *cqe, u8 algorithm,
			       const void *out, const void *staged,
			       void *scratch, bool verify,
			       int (*decode)(void *ctx, const void *src,
					     unsigned int len, void *dst),
			       void *ctx);

#endif /* OZRAM_RING_SLOTS_H */
