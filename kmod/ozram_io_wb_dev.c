// SPDX-License-Identifier: GPL-2.0
/*
 * ozram data path, writeback: the backing block device of a device, as
 * zram's CONFIG_ZRAM_WRITEBACK has it, and its blocks.  The device is
 * opened exclusively while the device is uninitialised and kept until
 * reset; bd_bitmap has a bit per block taken.  Block 0 is never used, so
 * that a block number is never 0.  The pass that writes blocks is in
 * ozram_io_wb.c, reading them back in ozram_io_wb_read.c.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ozram_drv.h"
#include "ozram_io.h"
#include "ozram_io_internal.h"
#include "ozram_io_wb.h"

/* ---- the backing device ------------------------------------------------ */

/*
 * Opens the backing device exclusively (O_EXCL on a block device, as zram
 * claims it): nobody else may write the blocks ozram owns.  The claim is
 * the file's, and holds until the file is closed.  The device that backs
 * this one already is claimed by its open file: that file is taken again,
 * as zram, the holder of its claim, claims it again.
 */
static struct file *ozram_wb_open(struct ozram *oz, const char *path)
{
	dev_t devt;

	if (oz->backing_file && !lookup_bdev(path, &devt) &&
	    devt == oz->bdev->bd_dev)
		return get_file(oz->backing_file);
	return filp_open(path, O_RDWR | O_LARGEFILE | O_EXCL, 0);
}

int ozram_wb_set_backing(struct ozram *oz, const char *path)
{
	struct block_device *bdev = NULL;
	unsigned long nr_pages, *bitmap = NULL;
	u8 **refs;
	struct file *file;
	struct inode *inode;
	int ret;

	down_write(&oz->init_lock);
	if (ozram_init_done(oz)) {
		pr_info("%s: cannot set the backing device of an initialised device\n",
			oz->disk->disk_name);
		ret = -EBUSY;
		goto out_unlock;
	}

	file = ozram_wb_open(oz, path);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out_unlock;
	}
	inode = file->f_mapping->host;
	/* As zram 6.1: a block device, nothing else. */
	if (!S_ISBLK(inode->i_mode)) {
		ret = -ENOTBLK;
		goto out_close;
	}
	bdev = I_BDEV(inode);
	/* An empty device is refused; so is this disk itself (it is empty). */
	nr_pages = i_size_read(inode) >> PAGE_SHIFT;
	if (!nr_pages) {
		ret = -EINVAL;
		goto out_close;
	}
	bitmap = kvcalloc(BITS_TO_LONGS(nr_pages), sizeof(long), GFP_KERNEL);
	/* Only the chunks' pointers now: a pass allocates the chunks. */
	refs = kvcalloc(DIV_ROUND_UP(nr_pages, OZRAM_WB_REFS_CHUNK),
			sizeof(*refs), GFP_KERNEL);
	if (!bitmap || !refs) {
		kvfree(bitmap);
		kvfree(refs);
		ret = -ENOMEM;
		goto out_close;
	}

	ozram_wb_release(oz);
	oz->backing_file = file;
	oz->bdev = bdev;
	oz->bd_bitmap = bitmap;
	oz->bd_refs = refs;
	oz->bd_nr_pages = nr_pages;
	oz->bd_hint = 1;
	up_write(&oz->init_lock);
	pr_info("%s: backing device %s, %lu pages\n", oz->disk->disk_name,
		path, nr_pages);
	return 0;

out_close:
	filp_close(file, NULL);
out_unlock:
	up_write(&oz->init_lock);
	return ret;
}

/* init_lock held for writing; no slot holds a block any more. */
void ozram_wb_release(struct ozram *oz)
{
	unsigned long chunk, chunks;

	if (!oz->backing_file)
		return;
	WARN_ON_ONCE(ozram_stat_read(oz, OZRAM_STAT_BD_PAGES));
	filp_close(oz->backing_file, NULL);
	oz->backing_file = NULL;
	oz->bdev = NULL;
	kvfree(oz->bd_bitmap);
	oz->bd_bitmap = NULL;
	chunks = DIV_ROUND_UP(oz->bd_nr_pages, OZRAM_WB_REFS_CHUNK);
	for (chunk = 0; chunk < chunks; chunk++)
		kfree(oz->bd_refs[chunk]);
	kvfree(oz->bd_refs);
	oz->bd_refs = NULL;
	oz->bd_nr_pages = 0;
}

ssize_t ozram_wb_show_backing(struct ozram *oz, char *buf)
{
	ssize_t ret;
	char *p;

	down_read(&oz->init_lock);
	if (!oz->backing_file) {
		ret = sysfs_emit(buf, "none\n");
		goto out;
	}
	p = file_path(oz->backing_file, buf, PAGE_SIZE - 1);
	if (IS_ERR(p)) {
		ret = PTR_ERR(p);
		goto out;
	}
	ret = strlen(p);
	memmove(buf, p, ret);
	buf[ret++] = '\n';
out:
	up_read(&oz->init_lock);
	return ret;
}

/* ---- blocks ------------------------------------------------------------- */

bool ozram_wb_take_block(struct ozram *oz, unsigned long blk)
{
	if (!blk || blk >= oz->bd_nr_pages ||
	    test_and_set_bit(blk, oz->bd_bitmap))
		return false;
	oz->bd_hint = blk + 1;
	ozram_stat_inc(oz, OZRAM_STAT_BD_PAGES);
	return true;
}

/*
 * A free block, preferring @want (the block after the last one taken, so
 * that a batch stays one run), then the first free one from the hint.
 * Return: the block, or 0 when the device is full.
 */
unsigned long ozram_wb_alloc_block(struct ozram *oz, unsigned long want)
{
	unsigned long blk;
	bool wrapped = false;

	if (ozram_wb_take_block(oz, want))
		return want;
	blk = max(oz->bd_hint, 1UL);
	for (;;) {
		blk = find_next_zero_bit(oz->bd_bitmap, oz->bd_nr_pages, blk);
		if (blk >= oz->bd_nr_pages) {
			if (wrapped)
				return 0;
			wrapped = true;
			blk = 1;
			continue;
		}
		if (ozram_wb_take_block(oz, blk))
			return blk;
	}
}

bool ozram_wb_full(struct ozram *oz)
{
	/* Block 0 is never taken. */
	return ozram_stat_read(oz, OZRAM_STAT_BD_PAGES) + 1 >= oz->bd_nr_pages;
}

void ozram_wb_free_block(struct ozram *oz, unsigned long blk)
{
	WARN_ON_ONCE(!test_and_clear_bit(blk, oz->bd_bitmap));
	ozram_stat_dec(oz, OZRAM_STAT_BD_PAGES);
}

