// SPDX-License-Identifier: GPL-2.0
/*
 * ozram debugfs: /sys/kernel/debug/ozram/<disk>/block_state, zram's file
 * for seeing which page is where and when it was last accessed.  For
 * debugging only: one line per stored page, format in kmod.md.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "ozram_devices.h"
#include "ozram_io.h"

static struct dentry *ozram_debugfs_root;

/* The position is the page; init_lock is held from start to stop. */
static void *ozram_block_state_start(struct seq_file *m, loff_t *pos)
{
	struct ozram *oz = m->private;

	down_read(&oz->init_lock);
	if (!ozram_init_done(oz) || *pos >= oz->disksize >> PAGE_SHIFT)
		return NULL;
	return pos;
}

static void *ozram_block_state_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct ozram *oz = m->private;

	++*pos;
	return *pos < oz->disksize >> PAGE_SHIFT ? pos : NULL;
}

static void ozram_block_state_stop(struct seq_file *m, void *v)
{
	struct ozram *oz = m->private;

	up_read(&oz->init_lock);
}

static int ozram_block_state_show(struct seq_file *m, void *v)
{
	ozram_show_block_state(m, m->private, *(loff_t *)v);
	return 0;
}

static const struct seq_operations ozram_block_state_ops = {
	.start = ozram_block_state_start,
	.next = ozram_block_state_next,
	.stop = ozram_block_state_stop,
	.show = ozram_block_state_show,
};

static int ozram_block_state_open(struct inode *inode, struct file *file)
{
	int ret = seq_open(file, &ozram_block_state_ops);

	if (!ret)
		((struct seq_file *)file->private_data)->private =
			inode->i_private;
	return ret;
}

static const struct file_operations ozram_block_state_fops = {
	.owner = THIS_MODULE,
	.open = ozram_block_state_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

void ozram_debugfs_init(void)
{
	ozram_debugfs_root = debugfs_create_dir(ozram_name, NULL);
}

void ozram_debugfs_exit(void)
{
	debugfs_remove_recursive(ozram_debugfs_root);
}

/* Errors are not checked, as debugfs asks: the device works without it. */
void ozram_debugfs_add(struct ozram *oz)
{
	struct dentry *dir = debugfs_create_dir(oz->disk->disk_name,
						ozram_debugfs_root);

	debugfs_create_file("block_state", 0400, dir, oz,
			    &ozram_block_state_fops);
}

void ozram_debugfs_remove(struct ozram *oz)
{
	debugfs_lookup_and_remove(oz->disk->disk_name, ozram_debugfs_root);
}
