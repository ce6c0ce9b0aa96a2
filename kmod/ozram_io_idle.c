// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, memory tracking: each slot's last access and its idle
 * mark, as zram's CONFIG_ZRAM_MEMORY_TRACKING keeps them, and the debugfs
 * line that shows them.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/seq_file.h>

#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_slot.h"

void ozram_mark_accessed(struct ozram *oz, u32 index)
{
	ozram_slot_lock(oz, index);
	ozram_clear_flag(oz, index, OZRAM_SLOT_IDLE);
	oz->table[index].ac_time = ktime_get_boottime();
	ozram_slot_unlock(oz, index);
}

void ozram_mark_idle(struct ozram *oz, ktime_t cutoff)
{
	u32 num_pages = oz->disksize >> PAGE_SHIFT;
	u32 index;

	for (index = 0; index < num_pages; index++) {
		ozram_slot_lock(oz, index);
		if (ozram_slot_allocated(oz, index) &&
		    ktime_before(oz->table[index].ac_time, cutoff))
			ozram_set_flag(oz, index, OZRAM_SLOT_IDLE);
		ozram_slot_unlock(oz, index);
		cond_resched();
	}
}

/*
 * One line of debugfs block_state, zram's format: the page, the boot time
 * of its last access, and s(ame-filled), w(ritten back), h(uge), i(dle).
 * Nothing for a slot that holds nothing.  init_lock held for reading.
 */
void ozram_show_block_state(struct seq_file *m, struct ozram *oz, u32 index)
{
	struct timespec64 ts;

	ozram_slot_lock(oz, index);
	if (ozram_slot_allocated(oz, index)) {
		ts = ktime_to_timespec64(oz->table[index].ac_time);
		seq_printf(m, "%12u %12lld.%06lu %c%c%c%c\n", index,
			   (s64)ts.tv_sec, ts.tv_nsec / NSEC_PER_USEC,
			   ozram_test_flag(oz, index, OZRAM_SLOT_SAME) ? 's' : '.',
			   ozram_test_flag(oz, index, OZRAM_SLOT_WB) ? 'w' : '.',
			   ozram_test_flag(oz, index, OZRAM_SLOT_HUGE) ? 'h' : '.',
			   ozram_test_flag(oz, index, OZRAM_SLOT_IDLE) ? 'i' : '.');
	}
	ozram_slot_unlock(oz, index);
}
