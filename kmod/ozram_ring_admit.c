// SPDX-License-Identifier: GPL-2.0
/*
 * ozram offload ring: admission, whether a written page is offered to the
 * agent at all (Documentation/kmod.md, "Admission").
 *
 * A page staged into a ring the agent does not drain in time costs more
 * than compressing it: the writer takes the ring lock to find no room and
 * then compresses anyway, or the page waits, is taken back and is
 * compressed by the kernel after all.  So admission closes when a written
 * page finds the ring full: the agent fills slower than the writers stage.
 * While it is closed, writers park or compress at once and take no ring
 * lock.  It reopens only on evidence that the agent drains: a reap whose
 * completions claim slots and that leaves at most half of them in use.
 * The gap between full and half full is the hysteresis, so that admission
 * does not flap with every slot freed.  An agent that stopped answering
 * leaves nothing to reap, so one page per OZRAM_RING_PROBE_MS (a written
 * one, or a parked one when writers have stopped) is staged anyway, the
 * probe: when the agent runs again it completes it, and staging resumes.
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>

#include "ozram_ring_internal.h"

#define OZRAM_RING_PROBE_MS	50

bool ozram_ring_admit(void)
{
	struct ozram_ring_state *r = &ozram_ring;
	unsigned long now, probe;

	if (likely(!READ_ONCE(r->admit_closed)))
		return true;
	now = jiffies;
	probe = READ_ONCE(r->admit_next_probe);
	/* One writer per interval wins the probe; the others are not offered. */
	return time_after_eq(now, probe) &&
	       cmpxchg(&r->admit_next_probe, probe,
		       now + msecs_to_jiffies(OZRAM_RING_PROBE_MS)) == probe;
}

void ozram_ring_count_inline(bool admission)
{
	ozram_ring_count(admission ? OZRAM_RING_STAT_ADMISSION_INLINE :
			 OZRAM_RING_STAT_INLINE_FALLBACKS, 1);
}

bool ozram_ring_admit_open(void)
{
	return !READ_ONCE(ozram_ring.admit_closed);
}

/* A written page found no room in the ring. */
void ozram_ring_admit_close(void)
{
	struct ozram_ring_state *r = &ozram_ring;

	lockdep_assert_held(&r->lock);
	if (r->admit_closed)
		return;
	WRITE_ONCE(r->admit_next_probe,
		   jiffies + msecs_to_jiffies(OZRAM_RING_PROBE_MS));
	WRITE_ONCE(r->admit_closed_at, jiffies);
	/* Pairs with ozram_ring_admit_stalled(): the time before the state. */
	smp_store_release(&r->admit_closed, true);
}

bool ozram_ring_admit_stalled(void)
{
	struct ozram_ring_state *r = &ozram_ring;

	/* Pairs with ozram_ring_admit_close(): the state, then its time. */
	return smp_load_acquire(&r->admit_closed) &&
	       time_after_eq(jiffies, READ_ONCE(r->admit_closed_at) +
			     ozram_ring_timeout());
}

/* A reap claimed slots and gave them back: the agent drains. */
void ozram_ring_admit_drained(void)
{
	struct ozram_ring_state *r = &ozram_ring;

	lockdep_assert_held(&r->lock);
	if (r->admit_closed && r->slots.nr - r->slots.nr_free <= r->slots.nr / 2)
		WRITE_ONCE(r->admit_closed, false);
}

/* An agent attaches or detaches: the next one starts with admission open. */
void ozram_ring_admit_reset(void)
{
	lockdep_assert_held(&ozram_ring.lock);
	WRITE_ONCE(ozram_ring.admit_closed, false);
}
