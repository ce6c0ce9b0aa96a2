/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels ozram builds for, in one place.
 * The module is built and tested on Debian's 6.1 and 6.12 long-term
 * kernels; each cut below is at the release that changed the interface.
 * This is the only file that tests LINUX_VERSION_CODE (tests/kmod/structure
 * checks it): the rest of the module calls these helpers, and tests the
 * few OZRAM_HAVE_* names below only where a callback's signature differs.
 *
 * Nothing is needed for the backing device: it is opened with O_EXCL as
 * zram does, which claims it exclusively on every kernel.  The crypto API's
 * crypto_comp and zsmalloc's zs_map_object() are the same in 6.1 and 6.12.
 */
#ifndef _OZRAM_COMPAT_H_
#define _OZRAM_COMPAT_H_

#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/version.h>

/*
 * The block layer.  Until 6.3 a disk may provide rw_page, which is what
 * makes swap treat it as synchronous; from 6.11 on a disk says so with
 * BLK_FEAT_SYNCHRONOUS.  From 6.5 on, open() gets the disk.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#define OZRAM_HAVE_RW_PAGE
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define OZRAM_HAVE_OPEN_DISK
#endif

/*
 * A disk for a device, with ozram's queue limits: whole pages, discard and
 * write-zeroes, stable pages while they are written, not rotational, no
 * entropy.  From 6.9 on the limits are given to blk_alloc_disk(), from
 * 6.11 on the flags too, and the blk_queue_*() setters are gone.  Returns
 * an ERR_PTR() on failure.
 */
static inline struct gendisk *ozram_compat_alloc_disk(unsigned int lbs)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	struct queue_limits lim = {
		.logical_block_size = lbs,
		.physical_block_size = PAGE_SIZE,
		.io_min = PAGE_SIZE,
		.io_opt = PAGE_SIZE,
		.discard_granularity = PAGE_SIZE,
		.max_hw_discard_sectors = UINT_MAX,
		.max_write_zeroes_sectors = UINT_MAX,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
		.features = BLK_FEAT_STABLE_WRITES | BLK_FEAT_SYNCHRONOUS,
#endif
	};
	struct gendisk *disk = blk_alloc_disk(&lim, NUMA_NO_NODE);

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
	if (!IS_ERR(disk)) {
		blk_queue_flag_set(QUEUE_FLAG_NONROT, disk->queue);
		blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, disk->queue);
		blk_queue_flag_set(QUEUE_FLAG_SYNCHRONOUS, disk->queue);
		blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, disk->queue);
	}
#endif
	return disk;
#else
	struct gendisk *disk = blk_alloc_disk(NUMA_NO_NODE);
	struct request_queue *q;

	if (!disk)
		return ERR_PTR(-ENOMEM);
	q = disk->queue;
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
	blk_queue_physical_block_size(q, PAGE_SIZE);
	blk_queue_logical_block_size(q, lbs);
	blk_queue_io_min(q, PAGE_SIZE);
	blk_queue_io_opt(q, PAGE_SIZE);
	q->limits.discard_granularity = PAGE_SIZE;
	blk_queue_max_discard_sectors(q, UINT_MAX);
	blk_queue_max_write_zeroes_sectors(q, UINT_MAX);
	return disk;
#endif
}

/*
 * Device classes: from 6.4 on a class and its attributes are const to
 * their callbacks, and a class has no owner (the driver core holds the
 * module).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define OZRAM_CLASS_CONST const
#else
#define OZRAM_CLASS_CONST
#endif

static inline void ozram_compat_class_set_owner(struct class *class)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
	class->owner = THIS_MODULE;
#endif
}

/*
 * zsmalloc: the most pages one allocation adds to a pool, a zspage of the
 * largest kind, which zsmalloc does not export: 1 << ZS_MAX_ZSPAGE_ORDER
 * (4) until 6.2, CONFIG_ZSMALLOC_CHAIN_SIZE (8 by default, and Debian's)
 * from 6.3 on.
 */
#ifdef CONFIG_ZSMALLOC_CHAIN_SIZE
#define OZRAM_ZSPAGE_MAX_PAGES	CONFIG_ZSMALLOC_CHAIN_SIZE
#else
#define OZRAM_ZSPAGE_MAX_PAGES	4
#endif

/* Memory mappings: from 6.3 on vm_flags is changed only through helpers. */
static inline void ozram_compat_vm_flags_mod(struct vm_area_struct *vma,
					     unsigned long set,
					     unsigned long clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * zram's ABI: from 6.12 on a device has algorithm_params, a compression
 * level (and a dictionary) per algorithm.  ozram offers the attribute on
 * the kernels whose zram has it, and only there.
 */
static inline bool ozram_compat_has_algorithm_params(void)
{
	return LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0);
}

/*
 * zram's ABI: from 6.2 on, an algorithm name written to comp_algorithm or
 * recomp_algorithm that is CRYPTO_MAX_ALG_NAME bytes or more (a trailing
 * newline counted, in comp_algorithm) is E2BIG, before the name is looked
 * up.  6.1 cuts it short, finds no such algorithm and says EINVAL.
 */
static inline bool ozram_compat_long_algorithm_name_is_e2big(void)
{
	return LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0);
}

/*
 * zram's ABI: a reset keeps the device's algorithm on 6.1; on 6.12 it puts
 * the default back, as it drops every algorithm's parameters.  The
 * versions between are not tested: they take 6.1's rule.
 */
static inline bool ozram_compat_reset_keeps_algorithm(void)
{
	return LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0);
}

#endif /* _OZRAM_COMPAT_H_ */
