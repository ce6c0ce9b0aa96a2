/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ozram's top: the devices as a whole and what manages them, the module's
 * load and unload (ozram_drv.c), the block device entry points, sysfs, the
 * control class, debugfs and netlink.  Nothing below these includes this
 * header: the data path, recompression and the offload ring never call up.
 */
#ifndef OZRAM_DEVICES_H
#define OZRAM_DEVICES_H

#include "ozram_drv.h"

/* The block device entry points (ozram_blkdev.c). */
extern const struct block_device_operations ozram_devops;

/* Device registry, shared by sysfs and netlink. */
void ozram_devices_lock(void);
void ozram_devices_unlock(void);
struct ozram *ozram_find_device(int id);
struct ozram *ozram_next_device(int *id);
int ozram_add(void);
int ozram_remove(struct ozram *oz);
void ozram_forget_device(int id);

/* Device state changes used by sysfs and netlink. */
int ozram_init_device(struct ozram *oz, u64 disksize);
void ozram_reset_device(struct ozram *oz);
int ozram_compact(struct ozram *oz);

/* sysfs (ozram_sysfs.c, and writeback's files in ozram_sysfs_wb.c) */
extern const struct attribute_group *ozram_disk_groups[];
extern const struct attribute_group ozram_wb_attr_group;
/* algorithm_params (ozram_sysfs_params.c) */
extern const struct attribute_group ozram_params_attr_group;

/* The device whose disk has the sysfs files of @dev. */
static inline struct ozram *dev_to_ozram(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

/* Whether a sysfs write holds a NUL byte: such a write is refused whole. */
bool ozram_sysfs_has_nul(const char *buf, size_t len);
/* A sysfs write's text as a string, or ERR_PTR(-EINVAL, -ENOMEM). */
char *ozram_sysfs_strndup(const char *buf, size_t len);

/* The control class (ozram_control.c) */
int ozram_control_register(void);
void ozram_control_unregister(void);

/* debugfs (ozram_debugfs.c) */
void ozram_debugfs_init(void);
void ozram_debugfs_exit(void);
void ozram_debugfs_add(struct ozram *oz);
void ozram_debugfs_remove(struct ozram *oz);

/* netlink (ozram_genl.c) */
int ozram_genl_register(void);
void ozram_genl_unregister(void);

#endif /* OZRAM_DEVICES_H */
