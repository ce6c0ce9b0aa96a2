/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The offload ring as the rest of the module sees it: a transport.  An
 * owner stages a page with a request that carries its ops table, as zram's
 * zcomp is given its backend's ops; the ring copies the page for the
 * agent, checks what comes back, and hands the outcome to the ops.  The
 * ring knows no owner: the write path, the parked-page worker and
 * recompression sit above it, the codec below.  See Documentation/kmod.md,
 * "The offload ring".
 */
#ifndef OZRAM_RING_API_H
#define OZRAM_RING_API_H

#include <linux/types.h>

#include "ozram_stat.h"

struct ozram;
struct ozram_comp;
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

struct ozram_ring_req;

/*
 * A compressed result handed over where the agent wrote it, for the owner
 * to copy once into memory of its own (->stored_in_place).  The agent may
 * rewrite @src at any moment, so only the owner's copy may be used, and
 * only once @check (NULL: none) has passed it: @check(@check_ctx, copy,
 * len) returns whether the copy is a right result for the staged page.
 * It takes no lock and does not sleep, so it may run where the copy is
 * mapped.
 */
struct ozram_ring_result {
	const void *src;
	unsigned int len;
	enum ozram_source source;
	bool (*check)(const void *check_ctx, const void *copy,
		      unsigned int len);
	const void *check_ctx;
};

/*
 * What the owner of a staged page does with its outcome.  The ring calls
 * one op for the outcome, and ->failed again later for a page whose op
 * stored nothing (below); none once the owner has given the ring slot
 * back.  Ops run under the ring's reap_mutex, never under a spinlock, and
 * may sleep only when @may_reclaim is true.
 *
 * ->stored: the agent's result, checked: @len bytes compressed with the
 *           request's algorithm, by @source.
 * ->stored_in_place: optional; the agent's result as ->stored, not yet
 *           copied nor checked (struct ozram_ring_result).  The ring
 *           hands a result over this way when its check needs no buffer
 *           and no lock (an LZ4 block, or no check with verify=0), which
 *           saves a copy.  It returns -EBADMSG, having stored nothing,
 *           when the check refuses the owner's copy.
 * ->raw:    the agent found the page incompressible; @page is the staged
 *           copy, the page itself, in the ring slot: readable until the
 *           owner gives the slot back.
 * ->same_filled: the page repeats the word @fill, checked against the copy.
 * ->failed: no usable result (the agent failed, was rejected, timed out
 *           or detached); @page is the staged copy, for the owner to
 *           compress itself.
 *
 * From the call on the ring slot is the owner's: it gives it back with
 * ozram_ring_release() once it no longer needs the staged copy.  An op
 * returns 0 when the owner took the outcome; -ESTALE when it no longer
 * wants it (its page was rewritten meanwhile, and the slot released);
 * -EAGAIN, storing nothing, when storing needs reclaim that @may_reclaim
 * forbids: the ring's worker then calls ->failed, where it may reclaim.
 * Any other errno leaves the page staged and held, readable, until it is
 * rewritten or a later ->failed stores it: the ring calls it again a
 * second later and then at doubling waits, up to 64 s, while the page
 * stays held, and at once after ozram_ring_retry_held().
 */
struct ozram_ring_ops {
	int (*stored)(const struct ozram_ring_req *req, const void *buf,
		      unsigned int len, enum ozram_source source,
		      bool may_reclaim);
	int (*stored_in_place)(const struct ozram_ring_req *req,
			       const struct ozram_ring_result *result,
			       bool may_reclaim);
	int (*raw)(const struct ozram_ring_req *req, const void *page,
		   bool may_reclaim);
	int (*same_filled)(const struct ozram_ring_req *req,
			   unsigned long fill);
	int (*failed)(const struct ozram_ring_req *req, const void *page,
		      bool may_reclaim);
};

/*
 * One staging: what the owner asks for, and what the ring keeps with the
 * ring slot until an op has the outcome.
 */
struct ozram_ring_req {
	/* Set by the owner. */
	const struct ozram_ring_ops *ops;
	void *priv;			/* the owner's own, for its ops */
	struct ozram *oz;		/* the page: its device ... */
	u32 index;			/* ... and its index there */
	/* The algorithm the agent uses; verify=1 decodes results with it. */
	struct ozram_comp *comp;
	int algorithm;			/* its enum ozram_ring_algorithm, or -1 */
	s32 level;			/* its level for the agent, 0: default */
	/*
	 * A written page, staged while admission is open (ozram_ring_admit()):
	 * finding the ring full closes admission.
	 */
	bool admission;
	/* Set by the ring. */
	struct ozram_stage_ref ref;
	u64 staged_ns;		/* for the round trip's latency */
	/*
	 * Staged by reclaim (kswapd, or a task in direct reclaim): the ops
	 * run with the reserves that reclaim's PF_MEMALLOC opens.
	 */
	bool from_reclaim;
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
 * Copies @page into a staging slot and posts it for the agent, on behalf
 * of @req's owner, and fills in req->ref.  An op may run before this
 * returns: an owner that must be ready for it first holds a lock its ops
 * take (a written page: its device slot lock, until the slot names the
 * staging).  Return: 0 when staged, -ENODEV when no agent is attached,
 * -EOPNOTSUPP when the agent does not do the algorithm (or the level of a
 * page that has one), -EBUSY when the ring has no room.
 */
int ozram_ring_stage(struct ozram_ring_req *req, struct page *page);

/* Whether an agent is attached (a hint: it may detach at any time). */
bool ozram_ring_attached(void);

/*
 * Whether admission is open: the agent drains the ring (a hint, without
 * the probes of ozram_ring_admit()).
 */
bool ozram_ring_admit_open(void);

/*
 * Whether admission has stayed closed for ring_timeout_ms since the ring
 * was last found full: the agent is stalled, and what waits for it is
 * better compressed by the kernel.
 */
bool ozram_ring_admit_stalled(void);

/* How long, in jiffies, the agent may go without progress (ring_timeout_ms). */
unsigned long ozram_ring_timeout(void);

/* How many pages the ring can hold staged at once; 0 without a ring. */
u32 ozram_ring_capacity(void);

/*
 * Gives back ring slot @ring_slot: its owner does, once it no longer needs
 * the staged copy (for a written page, when its device slot lets go of the
 * staging, under the slot's lock).
 */
void ozram_ring_release(u32 ring_slot);

/*
 * Before ozram_ring_release(): the staged page is gone for good (its
 * device is reset), so its copy is cleared, and no agent reads it from the
 * free slot.
 */
void ozram_ring_forget(u32 ring_slot);

/*
 * Whether @ref is still current: its ring slot neither released nor
 * staged again since.  The caller keeps the slot from being released
 * meanwhile (for a written page, by holding its device slot lock).
 */
bool ozram_ring_stage_current(const struct ozram_stage_ref *ref);

/*
 * The staged copy in ring slot @ring_slot, valid while the caller keeps
 * the slot from being released, inside a device slot lock (an RCU reader)
 * or an op.
 */
const void *ozram_ring_staged_data(u32 ring_slot);

/* Device reset and removal exclude the ring's completions and stores. */
void ozram_ring_lock_devices(void);
void ozram_ring_unlock_devices(void);

/*
 * mem_limit of @oz changed: its pages that stay staged because storing
 * them failed (over the limit) are stored again by the ring's worker now,
 * without waiting for its next try.
 */
void ozram_ring_retry_held(struct ozram *oz);

/* The ring's numbers and the agent's state, for a statistics snapshot. */
struct ozram_ring_snapshot {
	u64 stats[OZRAM_RING_NR_STATS];
	bool agent_attached;
	u32 agent_pid;		/* in the reader's pid namespace; 0 for none */
};

void ozram_ring_snapshot(struct ozram_ring_snapshot *snap);

#endif /* OZRAM_RING_API_H */
