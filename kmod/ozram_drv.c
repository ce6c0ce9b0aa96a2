// SPDX-License-Identifier: GPL-2.0
/*
 * ozram: compressed RAM block device with offloadable compression.
 *
 * This file owns the devices: their registry, creation and removal,
 * initialisation and reset, and the module's load and unload.  The data
 * path is in ozram_io.c, the sysfs files in ozram_sysfs.c, the netlink
 * family in ozram_genl.c.  See Documentation/kmod.md.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/blkdev.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/part_stat.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/zsmalloc.h>

#include "ozram_comp.h"
#include "ozram_compat.h"
#include "ozram_devices.h"
#include "ozram_io.h"
#include "ozram_latency.h"
#include "ozram_ring_api.h"

static DEFINE_IDR(ozram_index_idr);
/* Protects ozram_index_idr and the lifetime of the devices in it. */
static DEFINE_MUTEX(ozram_index_mutex);

static int ozram_major;
static unsigned int num_devices = 1;

bool ozram_compat;
const char *ozram_name = "ozram";

size_t ozram_huge_class_size;

/* ---- initialisation and reset ---------------------------------------- */

static void ozram_comps_destroy(struct ozram *oz)
{
	int prio;

	for (prio = 0; prio < OZRAM_MAX_COMPS; prio++) {
		ozram_comp_destroy(oz->comps[prio]);
		oz->comps[prio] = NULL;
	}
}

/* The streams of every algorithm the device names. */
static int ozram_comps_create(struct ozram *oz)
{
	int prio;

	for (prio = 0; prio < OZRAM_MAX_COMPS; prio++) {
		struct ozram_comp *comp;

		if (!oz->comp_names[prio][0])
			continue;
		comp = ozram_comp_create(oz->comp_names[prio],
					 oz->comp_levels[prio]);
		if (IS_ERR(comp)) {
			pr_err("%s: cannot use %s: %ld\n", oz->disk->disk_name,
			       oz->comp_names[prio], PTR_ERR(comp));
			ozram_comps_destroy(oz);
			return PTR_ERR(comp);
		}
		oz->comps[prio] = comp;
		oz->ring_algs[prio] = ozram_comp_ring_algorithm(oz->comp_names[prio]);
		oz->ring_levels[prio] = ozram_comp_ring_level(comp);
	}
	return 0;
}

static void ozram_comp_levels_reset(struct ozram *oz)
{
	int prio;

	for (prio = 0; prio < OZRAM_MAX_COMPS; prio++)
		oz->comp_levels[prio] = OZRAM_COMP_NO_LEVEL;
}

static void ozram_meta_free(struct ozram *oz, u64 disksize)
{
	if (!oz->table)
		return;
	ozram_free_slots(oz, disksize);
	zs_destroy_pool(oz->mem_pool);
	oz->mem_pool = NULL;
	ozram_comps_destroy(oz);
}

static int ozram_meta_alloc(struct ozram *oz, u64 disksize)
{
	int ret = ozram_alloc_slots(oz, disksize);

	if (ret)
		return ret;
	oz->mem_pool = zs_create_pool(oz->disk->disk_name);
	if (!oz->mem_pool) {
		ozram_free_slots(oz, 0);
		return -ENOMEM;
	}
	ret = ozram_comps_create(oz);
	if (ret) {
		zs_destroy_pool(oz->mem_pool);
		oz->mem_pool = NULL;
		ozram_free_slots(oz, 0);
	}
	return ret;
}

/**
 * ozram_init_device() - give an uninitialised device its size and storage
 * @oz: the device
 * @disksize: bytes, rounded up to a page
 *
 * Return: 0, -EINVAL for a size of 0 or more pages than a slot index can
 * address, -EBUSY if already initialised (whatever @disksize), -ENOMEM.
 */
int ozram_init_device(struct ozram *oz, u64 disksize)
{
	int ret;

	if (!disksize)
		return -EINVAL;

	down_write(&oz->init_lock);
	/* As zram: an initialised device is busy, whatever the size. */
	if (ozram_init_done(oz)) {
		ret = -EBUSY;
		goto out;
	}
	if (disksize > ((u64)U32_MAX << PAGE_SHIFT)) {
		ret = -EINVAL;
		goto out;
	}
	disksize = PAGE_ALIGN(disksize);
	ret = ozram_meta_alloc(oz, disksize);
	if (ret)
		goto out;
	oz->disksize = disksize;
	set_capacity_and_notify(oz->disk, disksize >> SECTOR_SHIFT);
out:
	up_write(&oz->init_lock);
	return ret;
}

void ozram_reset_device(struct ozram *oz)
{
	/*
	 * No completion or take-back may hold a page of this device.  The
	 * init_lock comes first: a recompression holds it for reading while
	 * it waits for completions, which need the ring's lock.
	 */
	down_write(&oz->init_lock);
	/* The worker never waits for init_lock, so it cannot hold this up. */
	ozram_park_stop(oz);
	ozram_ring_lock_devices();
	oz->limit_pages = 0;
	set_capacity_and_notify(oz->disk, 0);
	part_stat_set_all(oz->disk->part0, 0);
	ozram_meta_free(oz, oz->disksize);
	/* As zram: reset lets the backing device go. */
	ozram_wb_release(oz);
	oz->disksize = 0;
	memset(&oz->stats, 0, sizeof(oz->stats));
	ozram_latency_reset(oz);
	/* As zram: recompression's algorithms go; the device's stays (6.1). */
	memset(oz->comp_names[OZRAM_PRIMARY_COMP + 1], 0,
	       sizeof(oz->comp_names) - sizeof(oz->comp_names[0]));
	if (!ozram_compat_reset_keeps_algorithm())
		strscpy(oz->comp_names[OZRAM_PRIMARY_COMP], OZRAM_DEFAULT_COMP,
			sizeof(oz->comp_names[0]));
	/* As zram 6.12: every algorithm's parameters go. */
	ozram_comp_levels_reset(oz);
	ozram_ring_unlock_devices();
	up_write(&oz->init_lock);
}

/* Return: 0, or -EINVAL when the device is not initialised. */
int ozram_compact(struct ozram *oz)
{
	int ret = -EINVAL;

	down_read(&oz->init_lock);
	if (ozram_init_done(oz)) {
		zs_compact(oz->mem_pool);
		ret = 0;
	}
	up_read(&oz->init_lock);
	return ret;
}

/* ---- device registry ------------------------------------------------- */

void ozram_devices_lock(void)
{
	mutex_lock(&ozram_index_mutex);
}

void ozram_devices_unlock(void)
{
	mutex_unlock(&ozram_index_mutex);
}

/* The registry lock must be held. */
struct ozram *ozram_find_device(int id)
{
	lockdep_assert_held(&ozram_index_mutex);
	return idr_find(&ozram_index_idr, id);
}

/* The first device with an id >= *@id; the registry lock must be held. */
struct ozram *ozram_next_device(int *id)
{
	lockdep_assert_held(&ozram_index_mutex);
	return idr_get_next(&ozram_index_idr, id);
}

/* Creates an uninitialised device; the registry lock must be held. */
int ozram_add(void)
{
	struct ozram *oz;
	int ret, id;

	lockdep_assert_held(&ozram_index_mutex);
	oz = kzalloc(sizeof(*oz), GFP_KERNEL);
	if (!oz)
		return -ENOMEM;

	ret = idr_alloc(&ozram_index_idr, oz, 0, OZRAM_MAX_DEVICES,
			GFP_KERNEL);
	if (ret < 0)
		goto out_free_dev;
	id = ret;
	oz->id = id;
	ret = ozram_latency_alloc(oz);
	if (ret)
		goto out_free_idr;
	init_rwsem(&oz->init_lock);
	mutex_init(&oz->wb_mutex);
	mutex_init(&oz->recomp_mutex);
	spin_lock_init(&oz->wb_limit_lock);
	spin_lock_init(&oz->bd_refs_lock);
	ozram_park_init(oz);
	oz->wb_compressed = true;
	strscpy(oz->comp_names[OZRAM_PRIMARY_COMP], OZRAM_DEFAULT_COMP,
		sizeof(oz->comp_names[0]));
	ozram_comp_levels_reset(oz);

	oz->disk = ozram_compat_alloc_disk(OZRAM_LOGICAL_BLOCK_SIZE);
	if (IS_ERR(oz->disk)) {
		ret = PTR_ERR(oz->disk);
		goto out_free_idr;
	}
	oz->disk->major = ozram_major;
	oz->disk->first_minor = id;
	oz->disk->minors = 1;
	oz->disk->flags |= GENHD_FL_NO_PART;
	oz->disk->fops = &ozram_devops;
	oz->disk->private_data = oz;
	snprintf(oz->disk->disk_name, DISK_NAME_LEN, "%s%d", ozram_name, id);
	set_capacity(oz->disk, 0);

	ret = device_add_disk(NULL, oz->disk, ozram_disk_groups);
	if (ret)
		goto out_put_disk;

	ozram_debugfs_add(oz);
	pr_info("added device %s\n", oz->disk->disk_name);
	return id;

out_put_disk:
	put_disk(oz->disk);
out_free_idr:
	ozram_latency_free(oz);
	idr_remove(&ozram_index_idr, id);
out_free_dev:
	kfree(oz);
	return ret;
}

/*
 * Deletes a device that nobody has open: -EBUSY otherwise.  The caller
 * holds the registry lock and drops the device from it on success.
 */
int ozram_remove(struct ozram *oz)
{
	bool claimed;

	mutex_lock(&oz->disk->open_mutex);
	if (disk_openers(oz->disk)) {
		mutex_unlock(&oz->disk->open_mutex);
		return -EBUSY;
	}
	claimed = oz->claim;
	oz->claim = true;
	mutex_unlock(&oz->disk->open_mutex);

	/* A reset in progress owns the device until del_gendisk() drains it. */
	if (!claimed) {
		sync_blockdev(oz->disk->part0);
		ozram_reset_device(oz);
	}

	pr_info("removed device %s\n", oz->disk->disk_name);
	ozram_debugfs_remove(oz);
	del_gendisk(oz->disk);
	/* disksize may have been written between the reset and here. */
	ozram_reset_device(oz);
	put_disk(oz->disk);
	ozram_latency_free(oz);
	kfree(oz);
	return 0;
}

/* Drops a removed device from the registry; registry lock held. */
void ozram_forget_device(int id)
{
	lockdep_assert_held(&ozram_index_mutex);
	idr_remove(&ozram_index_idr, id);
}

static int ozram_remove_cb(int id, void *ptr, void *data)
{
	WARN_ON_ONCE(ozram_remove(ptr));
	return 0;
}

static void ozram_destroy_devices(void)
{
	mutex_lock(&ozram_index_mutex);
	idr_for_each(&ozram_index_idr, ozram_remove_cb, NULL);
	idr_destroy(&ozram_index_idr);
	mutex_unlock(&ozram_index_mutex);
}

/* ---- module ---------------------------------------------------------- */

/* The size from which zsmalloc stores a page whole; it takes a pool to ask. */
static int ozram_probe_huge_class(void)
{
	struct zs_pool *pool = zs_create_pool("ozram-probe");

	if (!pool)
		return -ENOMEM;
	ozram_huge_class_size = zs_huge_class_size(pool);
	zs_destroy_pool(pool);
	return 0;
}

/*
 * With compat=1 the names are zram's own: the stock module must not be
 * loaded, or the disks and the control class would collide in sysfs.
 */
static int ozram_check_compat(void)
{
	struct path path;

	if (!ozram_compat)
		return 0;
	ozram_name = "zram";
	if (!kern_path("/sys/module/zram", LOOKUP_FOLLOW, &path)) {
		path_put(&path);
		pr_err("compat=1 needs the names of zram, but the zram module is loaded: unload it first\n");
		return -EBUSY;
	}
	return 0;
}

static int __init ozram_init(void)
{
	unsigned int i;
	int ret;

	if (num_devices > OZRAM_MAX_DEVICES) {
		pr_err("num_devices %u is more than the maximum of %d\n",
		       num_devices, OZRAM_MAX_DEVICES);
		return -EINVAL;
	}
	ret = ozram_check_compat();
	if (ret)
		return ret;
	ret = ozram_probe_huge_class();
	if (ret)
		return ret;

	ret = ozram_comp_init();
	if (ret)
		return ret;
	ozram_debugfs_init();

	ret = ozram_park_wq_create();
	if (ret)
		goto out_comp;
	ret = ozram_ring_init();
	if (ret)
		goto out_park;

	ozram_major = register_blkdev(0, ozram_name);
	if (ozram_major <= 0) {
		pr_err("cannot get a major number\n");
		ret = -EBUSY;
		goto out_ring;
	}

	ret = ozram_control_register();
	if (ret)
		goto out_blkdev;
	/*
	 * Before the devices: once a disk exists, udev may open it, and a
	 * failure after that has to remove disks that may be open.  What
	 * still can fail then is a later device and the ring's device, which
	 * comes last (ozram_ring_register()).
	 */
	ret = ozram_genl_register();
	if (ret)
		goto out_control;

	mutex_lock(&ozram_index_mutex);
	for (i = 0; i < num_devices; i++) {
		ret = ozram_add();
		if (ret < 0) {
			mutex_unlock(&ozram_index_mutex);
			goto out_devices;
		}
	}
	mutex_unlock(&ozram_index_mutex);

	ret = ozram_ring_register();
	if (ret)
		goto out_devices;
	return 0;

out_devices:
	ozram_genl_unregister();
out_control:
	/* Then no hot_add can race the removal; none made, none to remove. */
	ozram_control_unregister();
	ozram_destroy_devices();
out_blkdev:
	unregister_blkdev(ozram_major, ozram_name);
out_ring:
	ozram_ring_exit();
out_park:
	ozram_park_wq_destroy();
out_comp:
	ozram_debugfs_exit();
	ozram_comp_exit();
	return ret;
}

static void __exit ozram_exit(void)
{
	ozram_genl_unregister();
	ozram_control_unregister();
	ozram_destroy_devices();
	unregister_blkdev(ozram_major, ozram_name);
	ozram_ring_exit();
	ozram_park_wq_destroy();
	ozram_debugfs_exit();
	ozram_comp_exit();
}

module_init(ozram_init);
module_exit(ozram_exit);

module_param(num_devices, uint, 0444);
module_param_named(compat, ozram_compat, bool, 0444);
MODULE_PARM_DESC(compat,
		 "Name disks zramN and the control class zram-control (refused while zram is loaded)");
MODULE_PARM_DESC(num_devices, "Number of devices created at load (max 256)");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Compressed RAM block device with offloadable compression");
