/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram data path: the only code that writes a device's slot table
 * (ozram_io.c, ozram_io_recomp.c, ozram_io_idle.c).  The block device
 * entry points, the device code and the offload ring reach the slots
 * through these functions alone.
 */
#ifndef OZRAM_IO_H
#define OZRAM_IO_H

#include <linux/ktime.h>
#include <linux/types.h>

#include "ozram_drv.h"

struct bio;
struct page;
struct seq_file;
struct ozram_recomp_params;
struct ozram_stage_ref;

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

/*
 * Recompression, driven by ozram_recomp.c.  ozram_recomp_pick() picks slot
 * @index for the algorithm of priority @prio if it is a candidate: it
 * decodes the object into @page, marks the slot as being recompressed and
 * returns the object's size (0: no candidate; -EIO: it does not decode).
 * ozram_recomp_store() then stores @len bytes at @buf (compressed with
 * that algorithm, by @source) in place of the object if the slot still
 * holds what was picked, they are below @threshold (0: any) and they save
 * memory; a page that does not shrink is dealt with as @miss says (@len
 * PAGE_SIZE or more says that it did not compress: @buf is then NULL, or
 * at least never read); a slot
 * stored is no longer idle.  Return: 1 stored, 0 kept, -ESTALE changed
 * meanwhile, -ENOMEM no memory (still idle).  ozram_recomp_abandon()
 * gives a picked slot up, idle as it was, so that the pass can pick it
 * again for the kernel to do.
 */
int ozram_recomp_pick(struct ozram *oz, u32 index,
		      const struct ozram_recomp_params *p, u32 prio,
		      struct page *page);
int ozram_recomp_store(struct ozram *oz, u32 index, const void *buf,
		       unsigned int len, u32 prio, enum ozram_source source,
		       u32 threshold, enum ozram_recomp_miss miss);
void ozram_recomp_abandon(struct ozram *oz, u32 index);

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
 * Results for a staged page, from the offload ring.  Each replaces slot
 * @index only while it still holds the staging @ref names (-ESTALE
 * otherwise), and without @may_reclaim fails with -EAGAIN, storing nothing,
 * rather than wait for reclaim.
 *
 * ozram_store_staged_inline() compresses the staged copy @page in the
 * kernel; ozram_store_staged_compressed() stores @len bytes the agent
 * produced with the algorithm of priority @prio and the ring checked (the
 * raw page when @len is PAGE_SIZE);
 * ozram_store_staged_same() stores a same-filled page.
 */
int ozram_store_staged_inline(struct ozram *oz, u32 index, struct page *page,
			      bool may_reclaim,
			      const struct ozram_stage_ref *ref);
int ozram_store_staged_compressed(struct ozram *oz, u32 index,
				  const void *buf, unsigned int len, u32 prio,
				  enum ozram_source source, bool may_reclaim,
				  const struct ozram_stage_ref *ref);

/*
 * Decodes @len bytes compressed with the device's algorithm of priority
 * @prio into the page at @dst.  Return: 0, or -EIO when they do not give
 * exactly one page.
 */
int ozram_decode(struct ozram *oz, u32 prio, const void *src,
		 unsigned int len, void *dst);
int ozram_store_staged_same(struct ozram *oz, u32 index,
			    unsigned long element,
			    const struct ozram_stage_ref *ref);

#endif /* OZRAM_IO_H */
