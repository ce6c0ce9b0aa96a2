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
		ctl->charged = 0;
		ctl->limit_writes = ctl->oz->wb_limit_writes;
	}
}

/*
 * Gives back the budget of a page that did not go to the backing device.
 * Only what the pass took: the limit may have been enabled after it picked
 * the page, and a refund of budget never taken would raise the limit.
 */
void ozram_wb_refund(struct ozram_wb_ctl *ctl)
{
	struct ozram *oz = ctl->oz;

	spin_lock(&oz->wb_limit_lock);
	ozram_wb_budget_since_user(ctl);
	if (ctl->charged) {
		ctl->charged -= OZRAM_WB_UNITS;
		if (oz->wb_limit_enable)
			oz->bd_wb_limit += OZRAM_WB_UNITS;
	}
	spin_unlock(&oz->wb_limit_lock);
}

/* Takes one page's worth of the limit; false when it is spent. */
bool ozram_wb_take_budget(struct ozram_wb_ctl *ctl)
{
	struct ozram *oz = ctl->oz;
	bool ok = true;

	spin_lock(&oz->wb_limit_lock);
	ozram_wb_budget_since_user(ctl);
	if (oz->wb_limit_enable) {
		if (oz->bd_wb_limit < OZRAM_WB_UNITS) {
			ok = false;
		} else {
			oz->bd_wb_limit -= OZRAM_WB_UNITS;
			ctl->charged += OZRAM_WB_UNITS;
		}
	}
	spin_unlock(&oz->wb_limit_lock);
	return ok;
}
