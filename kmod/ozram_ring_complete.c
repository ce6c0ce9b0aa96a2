// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: what happens to one completion.  Nothing the agent
 * writes is trusted: the completion is a private copy, checked and claimed
 * by the slot rules (ozram_ring_slots.c); its bytes are copied out of the
 * mapping before use and, with verify=1, checked against the staged copy:
 * an LZ4 block by a walk that compares instead of decoding
 * (ozram_lz4_verify.c), another format decoded with the request's
 * algorithm and compared.  A result whose check needs no buffer and no
 * lock (an LZ4 block, or any with verify=0) is copied once, by its owner,
 * into its object, and checked there.  A RAW result carries no
 * bytes that are used: the owner gets the staged copy.  The outcome goes
 * to the ops of the staging's owner (ozram_ring_api.h): a result that
 * passes the checks, or ->failed, where the owner compresses the staged
 * copy itself, so that a page is never lost.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/sched/mm.h>

#include "ozram_comp.h"
#include "ozram_drv.h"
#include "ozram_latency.h"
#include "ozram_lz4_verify.h"
#include "ozram_trace.h"
#include "ozram_ring_internal.h"

/* An outcome for an op of the owner. */
struct ozram_ring_outcome {
	enum ozram_ring_encoding encoding;	/* of a result the agent gave */
	bool failed;				/* none usable: ->failed */
	const void *buf;
	unsigned int len;
	enum ozram_source source;
	unsigned long fill;
	/* A result for ->stored_in_place, which copies and checks it. */
	const struct ozram_ring_result *in_place;
};

static int ozram_ring_call(const struct ozram_ring_req *req,
			   const struct ozram_ring_outcome *out,
			   bool may_reclaim)
{
	const struct ozram_ring_ops *ops = req->ops;

	if (out->failed)
		return ops->failed(req, out->buf, may_reclaim);
	if (out->in_place)
		return ops->stored_in_place(req, out->in_place, may_reclaim);
	switch (out->encoding) {
	case OZRAM_RING_ENC_RAW:
		return ops->raw(req, out->buf, may_reclaim);
	case OZRAM_RING_ENC_SAME_FILLED:
		return ops->same_filled(req, out->fill);
	default:
		return ops->stored(req, out->buf, out->len, out->source,
				   may_reclaim);
	}
}

/*
 * Hands @out to the owner's op.  A page that reclaim wrote was freed when
 * it was staged: storing it is the rest of that swap-out, which zram does
 * inside the reclaimer, on the reserves that reclaim's PF_MEMALLOC opens
 * and without reclaiming again.  Its op here does the same, in the agent's
 * doorbell or in a worker, so that neither becomes a direct reclaimer for
 * memory that reclaim has already given up.  What it can take is bounded
 * by the ring's slots.  Only when the reserves are exhausted does an op
 * that may sleep go on to reclaim, as any writer would.
 */
static int ozram_ring_hand_over(const struct ozram_ring_req *req,
				const struct ozram_ring_outcome *out,
				bool may_reclaim)
{
	unsigned int flags;
	int ret;

	if (req->from_reclaim) {
		flags = memalloc_noreclaim_save();
		ret = ozram_ring_call(req, out, false);
		memalloc_noreclaim_restore(flags);
		if (ret != -EAGAIN || !may_reclaim)
			return ret;
	}
	return ozram_ring_call(req, out, may_reclaim);
}

/*
 * What the owner's answer means to the ring.  The slot is not touched
 * after the op: the owner may have released it.
 */
static void ozram_ring_handed_over(const struct ozram_ring_req *req, int ret,
				   bool by_agent)
{
	if (ret == -ESTALE) {
		ozram_ring_count(OZRAM_RING_STAT_STALE, 1);
	} else if (ret == -EAGAIN) {
		ozram_ring_defer(req->ref.ring_slot);
	} else if (!ret) {
		if (by_agent)
			ozram_ring_count(OZRAM_RING_STAT_COMPLETED, 1);
		ozram_latency_ring_stored(req->oz, req->index,
					  req->ref.ring_slot, by_agent,
					  req->staged_ns);
	} else {
		ozram_ring_held(&req->ref);
	}
}

/*
 * No usable result: the owner compresses the staged copy.  A failure
 * (mem_limit, no memory) leaves the page in its staging slot, still
 * readable, until it is overwritten, discarded or the device is reset, and
 * the held worker or a write of mem_limit tries again: nothing is lost.
 * reap_mutex held.
 */
void ozram_ring_fail(const struct ozram_ring_req *req, bool may_reclaim)
{
	const struct ozram_ring_outcome out = {
		.failed = true,
		.buf = ozram_ring_staged_data(req->ref.ring_slot),
	};

	lockdep_assert_held(&ozram_ring.reap_mutex);
	ozram_ring_handed_over(req, ozram_ring_hand_over(req, &out,
							 may_reclaim), false);
}

/* The result check's decoder: the algorithm of the request. */
static int ozram_ring_decode(void *ctx, const void *src, unsigned int len,
			     void *dst)
{
	const struct ozram_ring_req *req = ctx;

	return ozram_comp_decode(req->comp, src, len, dst);
}

/* The check of a result in its owner's copy: the LZ4 walk. */
static bool ozram_ring_check_copy(const void *check_ctx, const void *copy,
				  unsigned int len)
{
	const struct ozram_ring_req *req = check_ctx;

	return ozram_lz4_verify(copy, len,
				ozram_ring_staged_data(req->ref.ring_slot),
				OZRAM_RING_PAGE_SIZE);
}

/*
 * Hands over a result that its owner copies into its object and checks
 * there (ozram_ring_checks_in_place()): one copy of the bytes instead of
 * two.  Return: false when the check refused the owner's copy.
 */
static bool ozram_ring_take_in_place(const struct ozram_ring_cqe *cqe,
				     const struct ozram_ring_req *req,
				     struct ozram_ring_outcome *out,
				     bool verify, bool may_reclaim)
{
	const struct ozram_ring_result result = {
		.src = ozram_ring_output_data(req->ref.ring_slot),
		/* Shorter than the huge class: the slot rules checked it. */
		.len = cqe->length,
		.source = out->source,
		.check = verify ? ozram_ring_check_copy : NULL,
		.check_ctx = req,
	};
	int ret;

	out->in_place = &result;
	ret = ozram_ring_hand_over(req, out, may_reclaim);
	if (ret == -EBADMSG)
		return false;
	ozram_ring_handed_over(req, ret, true);
	return true;
}

/*
 * Checks and hands over the result of an accepted completion.
 * Return: false when it does not give back the staged page.
 */
static bool ozram_ring_take_result(const struct ozram_ring_cqe *cqe,
				   const struct ozram_ring_req *req,
				   bool may_reclaim)
{
	struct ozram_ring_state *r = &ozram_ring;
	const void *staged = ozram_ring_staged_data(req->ref.ring_slot);
	/* Read once: the parameter may change meanwhile. */
	const bool verify = ozram_ring_verify();
	/* The flag is the agent's word: it only picks a counter. */
	struct ozram_ring_outcome out = {
		.encoding = cqe->encoding,
		.source = cqe->flags & OZRAM_RING_CQE_F_GPU ?
			  OZRAM_SRC_AGENT_GPU : OZRAM_SRC_AGENT_CPU,
		.fill = (unsigned long)cqe->fill,
	};

	if (req->ops->stored_in_place &&
	    ozram_ring_checks_in_place(cqe, req->algorithm, verify))
		return ozram_ring_take_in_place(cqe, req, &out, verify,
						may_reclaim);
	if (cqe->encoding != OZRAM_RING_ENC_RAW)
		ozram_ring_copy_output(req->ref.ring_slot, cqe->length,
				       r->copy_buf);
	if (!ozram_ring_result_matches(cqe, req->algorithm, r->copy_buf,
				       staged, r->decode_buf,
				       verify, ozram_ring_decode,
				       (void *)req))
		return false;

	if (cqe->encoding == OZRAM_RING_ENC_RAW) {
		/* The staged copy is the page: that, not the output. */
		out.buf = staged;
		out.len = PAGE_SIZE;
	} else {
		/* Shorter than the huge class: the slot rules checked it. */
		out.buf = r->copy_buf;
		out.len = cqe->length;
	}
	ozram_ring_handed_over(req, ozram_ring_hand_over(req, &out,
							 may_reclaim), true);
	return true;
}

/*
 * Whether the page of @ref was overwritten or discarded since its
 * completion was accepted: its ring slot was freed and maybe staged again,
 * so the staged bytes a check compared may be another page's.  Staging
 * writes a slot under the ring lock, so with the lock held a copy that the
 * check may have seen is complete and its new generation visible.
 */
static bool ozram_ring_superseded(const struct ozram_stage_ref *ref)
{
	struct ozram_ring_state *r = &ozram_ring;
	bool superseded;

	spin_lock(&r->lock);
	superseded = r->slots.states[ref->ring_slot] != OZRAM_RING_SLOT_KEPT ||
		     r->slots.generations[ref->ring_slot] != ref->generation;
	spin_unlock(&r->lock);
	return superseded;
}

/*
 * Claims @n completions, private copies of the entries, under one hold of
 * the ring lock: the slot rules check each one against the slot it names,
 * and a claimed slot is the kernel's until its owner has the outcome, so
 * its request is taken now.  reap_mutex held: it keeps @claims.
 * Return: how many claimed a slot.
 */
u32 ozram_ring_claim_batch(struct ozram_ring_claim *claims, u32 n)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_claim *c;
	u32 i, slot, claimed = 0;

	lockdep_assert_held(&r->reap_mutex);
	spin_lock(&r->lock);
	for (i = 0; i < n; i++) {
		c = &claims[i];
		c->verdict = ozram_ring_slots_claim(&r->slots, &c->cqe);
		trace_ozram_complete(&c->cqe, c->verdict);
		if (!ozram_ring_verdict_claims(c->verdict))
			continue;
		/* Claimed, so in range: no speculative use past the check. */
		slot = array_index_nospec(c->cqe.slot, r->slots.nr);
		c->req = r->reqs[slot];
		claimed++;
	}
	spin_unlock(&r->lock);
	return claimed;
}

/* One completion claimed by ozram_ring_claim_batch(); reap_mutex held. */
void ozram_ring_complete(const struct ozram_ring_claim *claim, bool may_reclaim)
{
	const struct ozram_ring_cqe *cqe = &claim->cqe;
	enum ozram_ring_verdict verdict = claim->verdict;
	const struct ozram_ring_req *req = &claim->req;

	lockdep_assert_held(&ozram_ring.reap_mutex);
	if (!ozram_ring_verdict_claims(verdict)) {
		ozram_ring_count(verdict == OZRAM_RING_STALE ?
				 OZRAM_RING_STAT_STALE :
				 OZRAM_RING_STAT_REJECTED, 1);
		return;
	}

	if (verdict != OZRAM_RING_OK) {
		ozram_ring_count(OZRAM_RING_STAT_REJECTED, 1);
	} else if (cqe->status == -EOPNOTSUPP) {
		/* An algorithm the agent named and then could not do. */
		ozram_ring_count(OZRAM_RING_STAT_UNSUPPORTED, 1);
	} else if (cqe->status != OZRAM_RING_STATUS_OK) {
		ozram_ring_count(OZRAM_RING_STAT_AGENT_ERRORS, 1);
	} else {
		if (ozram_ring_take_result(cqe, req, may_reclaim))
			return;
		if (ozram_ring_superseded(&req->ref)) {
			/* Not the agent's fault: the page changed under the check. */
			ozram_ring_count(OZRAM_RING_STAT_STALE, 1);
			return;
		}
		trace_ozram_verify_failure(req->oz->id, req->index, cqe);
		ozram_ring_count(OZRAM_RING_STAT_REJECTED, 1);
		ozram_ring_count(OZRAM_RING_STAT_VERIFY_FAILURES, 1);
	}
	ozram_ring_fail(req, may_reclaim);
}
