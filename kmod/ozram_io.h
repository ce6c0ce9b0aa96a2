/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram data path: the pages of a device, and the only way to its slot
 * table (ozram_slot.h).  The block device entry points, the device code,
 * recompression and writeback's sysfs files reach the slots through these
 * functions alone.  The data path sits above the offload ring.
 */
#ifndef OZRAM_IO_H
#define OZRAM_IO_H

#include <linux/ktime.h>
#include <linux/types.h>

#include "ozram_drv.h"

struct bio;
struct page;
struct ozram_ring_result;
struct seq_file;

/*
 * Decodes slot @index into the whole of @page.  A page on the backing
 * device is read with a bio chained to @parent when one is given (the data
 * is in @page when @parent completes), otherwise waited for.
 */
int ozram_read_page(struct ozram *oz, struct page *page, u32 index,
		    struct bio *parent);

/*
 * Stores @page in slot @index: as a repeated word, staged for the agent, or
 * compressed in the kernel.
 */
int ozram_write_page(struct ozram *oz, struct page *page, u32 index);

/* Frees slot @index: it reads as zeroes again. */
void ozram_discard_page(struct ozram *oz, u32 index);

/*
 * The same from a context that must not spin on a busy slot (under the
 * swap lock).  Return: false, freeing nothing, when the slot was busy.
 */
bool ozram_try_discard_page(struct ozram *oz, u32 index);

/*
 * What recompression does with a page that an algorithm does not shrink.
 * zram tries a page with each algorithm in turn until one shrinks it; here
 * each algorithm has a pass of its own, so a page that one does not shrink
 * stays idle for the next (an access to the page in between makes it no
 * longer idle, where zram's slot lock keeps it from being tried).  The
 * last algorithm's pass clears the idle mark, as zram does for a page it
 * has tried, and marks the page so that it is not tried again, unless the
 * request named that algorithm.
 */
enum ozram_recomp_miss {
	OZRAM_RECOMP_MISS_NEXT,		/* stays idle, for the next algorithm */
	OZRAM_RECOMP_MISS_KEEP,		/* no longer idle */
	OZRAM_RECOMP_MISS_MARK,		/* no longer idle, marked incompressible */
};

/* Which pages recompression may pick. */
#define OZRAM_RECOMP_IDLE	BIT(0)	/* only idle pages */
#define OZRAM_RECOMP_HUGE	BIT(1)	/* only pages stored raw */

/*
 * Recompression, driven by ozram_recomp.c.  ozram_recomp_pick() picks slot
 * @index for the algorithm of priority @prio if it is a candidate of the
 * kind @mode asks for (OZRAM_RECOMP_*), of at least @threshold bytes: it
 * decodes the object into @page, marks the slot as being recompressed and
 * returns the object's size (0: no candidate; -EIO: it does not decode).
 * ozram_recomp_store() then stores @len bytes at @buf (compressed with
 * that algorithm, by @source) in place of the object if the slot still
 * holds what was picked, they are below @threshold (0: any) and they save
 * memory; a page that does not shrink is dealt with as @miss says (@len
 * PAGE_SIZE or more says that it did not compress: @buf is then NULL, or
 * at least never read), and one that shrinks but not below @threshold
 * likewise, except that it is never marked incompressible; a slot stored
 * is no longer idle.  A miss allocates nothing.  Return: 1 when stored, 0
 * when kept as @miss says, -ESTALE when the slot changed meanwhile,
 * -ENOMEM without memory or over mem_limit (still idle).
 * ozram_recomp_store_result() stores an agent's @result in its output
 * slot the same way: copied once into the new object and checked
 * there, -EBADMSG, with the slot still picked, when the check refuses the
 * copy.  ozram_recomp_abandon() gives a picked slot up, idle as it was,
 * so that the pass can pick it again for the kernel to do.
 */
int ozram_recomp_pick(struct ozram *oz, u32 index, u32 mode, u32 threshold,
		      u32 prio, struct page *page);
int ozram_recomp_store(struct ozram *oz, u32 index, const void *buf,
		       unsigned int len, u32 prio, enum ozram_source source,
		       u32 threshold, enum ozram_recomp_miss miss);
int ozram_recomp_store_result(struct ozram *oz, u32 index,
			      const struct ozram_ring_result *result, u32 prio,
			      u32 threshold, enum ozram_recomp_miss miss);
void ozram_recomp_abandon(struct ozram *oz, u32 index);

/*
 * Compacts the device's pool: the room that replacements left, in holes
 * among the objects of zspages they share, for the replacements mem_limit
 * refused.
 */
void ozram_make_room(struct ozram *oz);

/* Clears the idle mark of slot @index and notes the time of an access. */
void ozram_mark_accessed(struct ozram *oz, u32 index);

/*
 * Marks idle every stored page last accessed before @cutoff (boot time;
 * KTIME_MAX for every page); init_lock held for reading.
 */
void ozram_mark_idle(struct ozram *oz, ktime_t cutoff);

/* The debugfs block_state line of slot @index, if it holds a page. */
void ozram_show_block_state(struct seq_file *m, struct ozram *oz, u32 index);

/*
 * The slot table of a device being initialised, and of one being reset:
 * ozram_free_slots() frees what every slot holds, then the table.  The
 * caller holds init_lock for writing.
 */
int ozram_alloc_slots(struct ozram *oz, u64 disksize);
void ozram_free_slots(struct ozram *oz, u64 disksize);

/*
 * The worker that hands parked pages to the agent (ozram_io_park.c):
 * set up when the device is created, and stopped by a reset, with
 * init_lock held for writing, before the slot table goes.
 */
void ozram_park_init(struct ozram *oz);
void ozram_park_stop(struct ozram *oz);
/* Its workqueue, for the module's life; 0 or -ENOMEM. */
int ozram_park_wq_create(void);
void ozram_park_wq_destroy(void);

/*
 * Writeback (ozram_io_wb*.c).  ozram_wb_set_backing() opens @path as the
 * backing device of an uninitialised device; ozram_wb_release() closes it
 * (init_lock held for writing, every slot freed).  ozram_writeback() runs
 * one pass for the text written to the writeback sysfs file.
 */
int ozram_wb_set_backing(struct ozram *oz, const char *path);
void ozram_wb_release(struct ozram *oz);
ssize_t ozram_wb_show_backing(struct ozram *oz, char *buf);
int ozram_writeback(struct ozram *oz, const char *buf);

#endif /* OZRAM_IO_H */
