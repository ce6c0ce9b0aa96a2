// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: what happens to one completion.  Nothing the agent
 * writes is trusted: the completion is a private copy, checked and claimed
 * by the slot rules (ozram_ring_slots.c); its bytes are copied out of the
 * mapping before use and, with verify=1, decoded and compared with the
 * staged copy.  A RAW result carries no bytes that are used: the staged
 * copy is stored.  Whatever fails, the kernel compresses the staged copy
 * itself, so a written page is never lost.  Results go to ozram_io.c,
 * which alone changes the device's slots.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/sched/mm.h>
#include <linux/vmalloc.h>

#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_latency.h"
#include "ozram_trace.h"
#include "ozram_recomp.h"
#include "ozram_ring_internal.h"

/*
 * A page that reclaim wrote was freed when it was staged: storing it is
 * the rest of that swap-out, which zram does inside the reclaimer, on the
 * reserves that reclaim's PF_MEMALLOC opens and without reclaiming again.
 * Its store here does the same, in the agent's doorbell or in a worker, so
 * that neither becomes a direct reclaimer for memory that reclaim has
 * already given up.  What it can take is bounded by the ring's slots.
 * Only when the reserves are exhausted does a store that may sleep go on
 * to reclaim, as any writer would.
 */
static int ozram_ring_store(const struct ozram_ring_owner *owner,
			    bool may_reclaim,
			    int (*store)(const struct ozram_ring_owner *owner,
					 bool may_reclaim, const void *arg),
			    const void *arg)
{
	unsigned int flags;
	int ret;

	if (owner->from_reclaim) {
		flags = memalloc_noreclaim_save();
		ret = store(owner, false, arg);
		memalloc_noreclaim_restore(flags);
		if (ret != -EAGAIN || !may_reclaim)
			return ret;
	}
	return store(owner, may_reclaim, arg);
}

struct ozram_ring_staged {
	const struct ozram_stage_ref *ref;
	const void *data;
};

static int ozram_ring_compress_staged(const struct ozram_ring_owner *owner,
				      bool may_reclaim, const void *arg)
{
	const struct ozram_ring_staged *staged = arg;

	return ozram_store_staged_inline(owner->oz, owner->index,
					 vmalloc_to_page(staged->data),
					 may_reclaim, staged->ref);
}

/*
 * The kernel compresses the staged copy itself.  A failure (mem_limit,
 * no memory) leaves the page in its staging slot, still readable, until it
 * is overwritten, discarded, the device is reset, or mem_limit is written
 * (ozram_ring_retry_held() tries again): nothing is lost.
 */
void ozram_ring_store_inline(u32 slot, const struct ozram_ring_owner *owner,
			     const struct ozram_stage_ref *ref,
			     bool may_reclaim)
{
	const struct ozram_ring_staged staged = {
		.ref = ref, .data = ozram_ring_staged_data(slot),
	};
	int ret;

	lockdep_assert_held(&ozram_ring.reap_mutex);
	ret = ozram_ring_store(owner, may_reclaim, ozram_ring_compress_staged,
			       &staged);
	if (ret == -ESTALE)
		ozram_ring_count(OZRAM_RING_STAT_STALE, 1);
	else if (ret == -EAGAIN)
		ozram_ring_defer(slot);
	else if (!ret)
		ozram_latency_ring_stored(owner->oz, owner->index, slot, false,
					  owner->staged_ns);
}

/* The result check's decoder: the algorithm the page is compressed with. */
static int ozram_ring_decode(void *ctx, const void *src, unsigned int len,
			     void *dst)
{
	const struct ozram_ring_owner *owner = ctx;

	return ozram_decode(owner->oz, owner->prio, src, len, dst);
}

/* An accepted result's bytes, checked, for ozram_ring_store(). */
struct ozram_ring_result {
	const struct ozram_stage_ref *ref;
	const void *buf;
	unsigned int len;
	enum ozram_source source;
};

static int ozram_ring_store_bytes(const struct ozram_ring_owner *owner,
				  bool may_reclaim, const void *arg)
{
	const struct ozram_ring_result *res = arg;

	return ozram_store_staged_compressed(owner->oz, owner->index, res->buf,
					     res->len, owner->prio, res->source,
					     may_reclaim, res->ref);
}

/*
 * Checks and stores the result of an accepted completion.
 * Return: false when it does not give back the staged page.
 */
static bool ozram_ring_store_result(const struct ozram_ring_cqe *cqe,
				    const struct ozram_ring_owner *owner,
				    const struct ozram_stage_ref *ref,
				    bool may_reclaim)
{
	struct ozram_ring_state *r = &ozram_ring;
	const void *staged = ozram_ring_staged_data(ref->ring_slot);
	/* The flag is the agent's word: it only picks a counter. */
	struct ozram_ring_result res = {
		.ref = ref,
		.source = cqe->flags & OZRAM_RING_CQE_F_GPU ?
			  OZRAM_SRC_AGENT_GPU : OZRAM_SRC_AGENT_CPU,
	};
	int ret;

	if (cqe->encoding != OZRAM_RING_ENC_RAW)
		ozram_ring_copy_output(ref->ring_slot, cqe->length,
				       r->copy_buf);
	if (!ozram_ring_result_matches(cqe, r->copy_buf, staged,
				       r->decode_buf, ozram_ring_verify(),
				       ozram_ring_decode, (void *)owner))
		return false;

	switch (cqe->encoding) {
	case OZRAM_RING_ENC_LZ4:
	case OZRAM_RING_ENC_COMPRESSED:
		/* Shorter than the huge class: the slot rules checked it. */
		res.buf = r->copy_buf;
		res.len = cqe->length;
		ret = ozram_ring_store(owner, may_reclaim,
				       ozram_ring_store_bytes, &res);
		break;
	case OZRAM_RING_ENC_RAW:
		/* The staged copy is the page: store that, not the output. */
		res.buf = staged;
		res.len = PAGE_SIZE;
		ret = ozram_ring_store(owner, may_reclaim,
				       ozram_ring_store_bytes, &res);
		break;
	default:
		ret = ozram_store_staged_same(owner->oz, owner->index,
					      (unsigned long)cqe->fill, ref);
		break;
	}
	if (ret == -ESTALE)
		ozram_ring_count(OZRAM_RING_STAT_STALE, 1);
	else if (ret == -EAGAIN)
		ozram_ring_defer(ref->ring_slot);
	else if (!ret)
		ozram_ring_count(OZRAM_RING_STAT_COMPLETED, 1);
	if (!ret)
		ozram_latency_ring_stored(owner->oz, owner->index, ref->ring_slot,
					  true, owner->staged_ns);
	return true;
}

/*
 * The result of a page being recompressed: the bytes when the agent
 * compressed it and they pass the checks; PAGE_SIZE and no bytes when it
 * does not compress (the batch keeps the object); else nothing (the batch
 * then has the kernel compress it).  Nothing else refers to the ring
 * slot, so it is released first: the batch may be gone once it has its
 * last result.  reap_mutex held, which keeps copy_buf.
 */
void ozram_ring_finish_recompress(u32 slot, const struct ozram_ring_owner *owner,
				  const struct ozram_ring_cqe *cqe)
{
	struct ozram_ring_state *r = &ozram_ring;
	enum ozram_source source = OZRAM_SRC_AGENT_CPU;
	const void *result = NULL;
	unsigned int len = 0;

	if (cqe) {
		if (cqe->encoding != OZRAM_RING_ENC_RAW)
			ozram_ring_copy_output(slot, cqe->length, r->copy_buf);
		if (!ozram_ring_result_matches(cqe, r->copy_buf,
					       ozram_ring_staged_data(slot),
					       r->decode_buf,
					       ozram_ring_verify(),
					       ozram_ring_decode,
					       (void *)owner)) {
			trace_ozram_verify_failure(owner->oz->id, owner->index,
						   cqe);
			ozram_ring_count(OZRAM_RING_STAT_REJECTED, 1);
			ozram_ring_count(OZRAM_RING_STAT_VERIFY_FAILURES, 1);
		} else if (cqe->encoding == OZRAM_RING_ENC_LZ4 ||
			   cqe->encoding == OZRAM_RING_ENC_COMPRESSED) {
			result = r->copy_buf;
			len = cqe->length;
		} else if (cqe->encoding == OZRAM_RING_ENC_RAW) {
			/*
			 * It does not compress: the batch keeps the object,
			 * and no bytes go with that (the slot is released
			 * before the batch sees the answer).
			 */
			len = PAGE_SIZE;
		}
		/* Same-filled was checked when written: the kernel redoes it. */
		if (len) {
			ozram_ring_count(OZRAM_RING_STAT_COMPLETED, 1);
			if (cqe->flags & OZRAM_RING_CQE_F_GPU)
				source = OZRAM_SRC_AGENT_GPU;
		}
	}
	ozram_ring_release(slot);
	ozram_recomp_result(owner->batch, owner->index, result, len, source);
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
 * and a claimed slot is the kernel's until its page is stored, so its
 * owner and staging are taken now.  Completions are evidence that the
 * agent drains, which admission waits for.  reap_mutex held: it keeps
 * @claims.
 */
void ozram_ring_claim_batch(struct ozram_ring_claim *claims, u32 n)
{
	struct ozram_ring_state *r = &ozram_ring;
	struct ozram_ring_claim *c;
	u32 i;

	lockdep_assert_held(&r->reap_mutex);
	spin_lock(&r->lock);
	for (i = 0; i < n; i++) {
		c = &claims[i];
		c->verdict = ozram_ring_slots_claim(&r->slots, &c->cqe);
		trace_ozram_complete(&c->cqe, c->verdict);
		if (c->verdict == OZRAM_RING_BAD_SLOT ||
		    c->verdict == OZRAM_RING_STALE)
			continue;
		/* Claimed, so in range: no speculative use past the check. */
		c->ref.ring_slot = array_index_nospec(c->cqe.slot, r->slots.nr);
		c->ref.generation = c->cqe.generation;
		c->owner = r->owners[c->ref.ring_slot];
	}
	ozram_ring_admit_drained();
	spin_unlock(&r->lock);
}

/* One completion claimed by ozram_ring_claim_batch(); reap_mutex held. */
void ozram_ring_complete(const struct ozram_ring_claim *claim, bool may_reclaim)
{
	const struct ozram_ring_cqe *cqe = &claim->cqe;
	enum ozram_ring_verdict verdict = claim->verdict;
	struct ozram_ring_owner owner;
	struct ozram_stage_ref ref;

	lockdep_assert_held(&ozram_ring.reap_mutex);
	if (verdict == OZRAM_RING_BAD_SLOT || verdict == OZRAM_RING_STALE) {
		ozram_ring_count(verdict == OZRAM_RING_STALE ?
				 OZRAM_RING_STAT_STALE :
				 OZRAM_RING_STAT_REJECTED, 1);
		return;
	}
	owner = claim->owner;
	ref = claim->ref;

	if (verdict != OZRAM_RING_OK) {
		ozram_ring_count(OZRAM_RING_STAT_REJECTED, 1);
	} else if (owner.batch && cqe->status == OZRAM_RING_STATUS_OK) {
		ozram_ring_finish_recompress(ref.ring_slot, &owner, cqe);
		return;
	} else if (cqe->status == -EOPNOTSUPP) {
		/* An algorithm the agent named and then could not do. */
		ozram_ring_count(OZRAM_RING_STAT_UNSUPPORTED, 1);
	} else if (cqe->status != OZRAM_RING_STATUS_OK) {
		ozram_ring_count(OZRAM_RING_STAT_AGENT_ERRORS, 1);
	} else {
		if (ozram_ring_store_result(cqe, &owner, &ref, may_reclaim))
			return;
		if (ozram_ring_superseded(&ref)) {
			/* Not the agent's fault: the page changed under the check. */
			ozram_ring_count(OZRAM_RING_STAT_STALE, 1);
			return;
		}
		trace_ozram_verify_failure(owner.oz->id, owner.index, cqe);
		ozram_ring_count(OZRAM_RING_STAT_REJECTED, 1);
		ozram_ring_count(OZRAM_RING_STAT_VERIFY_FAILURES, 1);
	}
	if (owner.batch)
		ozram_ring_finish_recompress(ref.ring_slot, &owner, NULL);
	else
		ozram_ring_store_inline(ref.ring_slot, &owner, &ref,
					may_reclaim);
}
