// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, writeback's budget: writeback_limit, taken by a pass
 * page by page as pages join a batch and given back for a page that does
 * not end on the backing device, so that a limit of N writes exactly N
 * pages.  Documentation/kmod.md, "Writeback", says more.
 */
#include <linux/spinlock.h>

#include "ozram_drv.h"
#include "ozram_io_wb.h"

/* The writeback limit counts 4 KiB units, as zram's does. */
#define OZRAM_WB_UNITS		(1UL << (PAGE_SHIFT - 12))

/*
 * What the user writes to writeback_limit or writeback_limit_enable stands:
 * budget taken before it is spent, never given back on top of it.  Under
 * wb_limit_lock.
 */
static void ozram_wb_budget_since_user(struct ozram_wb_ctl *ctl)
{
	if (ctl->limit_writes != ctl->oz->wb_limit_writes) {
		ctl->limit_writes = ctl->oz->wb_limit_writes;
		/* 0 is a page that took nothing. */
		if (!++ctl->stamp)
			ctl->stamp = 1;
	}
}

/*
 * Gives back the budget of a page that did not go to the backing device,
 * if it took any since the user last wrote the limit: the limit may have
 * been enabled, or written, after the pass picked the page.
 */
void ozram_wb_refund(struct ozram_wb_ctl *ctl, u16 charge)
{
	struct ozram *oz = ctl->oz;

	if (!charge)
		return;
	spin_lock(&oz->wb_limit_lock);
	ozram_wb_budget_since_user(ctl);
	if (charge == ctl->stamp && oz->wb_limit_enable)
		oz->bd_wb_limit += OZRAM_WB_UNITS;
	spin_unlock(&oz->wb_limit_lock);
}

/* Takes one page's worth of the limit; false when it is spent. */
bool ozram_wb_take_budget(struct ozram_wb_ctl *ctl)
{
	struct ozram *oz = ctl->oz;
	bool ok = true;

	ctl->charge = 0;
	spin_lock(&oz->wb_limit_lock);
	ozram_wb_budget_since_user(ctl);
	if (oz->wb_limit_enable) {
		if (oz->bd_wb_limit < OZRAM_WB_UNITS) {
			ok = false;
		} else {
			oz->bd_wb_limit -= OZRAM_WB_UNITS;
			ctl->charge = ctl->stamp;
		}
	}
	spin_unlock(&oz->wb_limit_lock);
	return ok;
}
