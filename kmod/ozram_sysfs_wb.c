// SPDX-License-Identifier: GPL-2.0
/*
 * ozram sysfs: the files of writeback, zram's with CONFIG_ZRAM_WRITEBACK,
 * and compressed_writeback, ozram's own.  The work is in ozram_io_wb*.c.
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/device.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ozram_devices.h"
#include "ozram_io.h"

static ssize_t backing_dev_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return ozram_wb_show_backing(dev_to_ozram(dev), buf);
}

/* A path, with or without a trailing newline: only before disksize. */
static ssize_t backing_dev_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t len)
{
	char *path;
	int ret;

	path = ozram_sysfs_strndup(buf, len);
	if (IS_ERR(path))
		return PTR_ERR(path);
	if (len && path[len - 1] == '\n')
		path[len - 1] = '\0';
	ret = ozram_wb_set_backing(dev_to_ozram(dev), path);
	kfree(path);
	return ret ? ret : len;
}

static ssize_t writeback_store(struct device *dev,
			       struct device_attribute *attr, const char *buf,
			       size_t len)
{
	int ret;

	if (ozram_sysfs_has_nul(buf, len))
		return -EINVAL;
	ret = ozram_writeback(dev_to_ozram(dev), buf);
	return ret ? ret : len;
}

static ssize_t writeback_limit_enable_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	struct ozram *oz = dev_to_ozram(dev);
	bool val;

	spin_lock(&oz->wb_limit_lock);
	val = oz->wb_limit_enable;
	spin_unlock(&oz->wb_limit_lock);
	return sysfs_emit(buf, "%d\n", val);
}

/* As zram: any number, non-zero enables. */
static ssize_t writeback_limit_enable_store(struct device *dev,
					    struct device_attribute *attr,
					    const char *buf, size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	u64 val;

	if (ozram_sysfs_has_nul(buf, len) || kstrtoull(buf, 10, &val))
		return -EINVAL;
	spin_lock(&oz->wb_limit_lock);
	oz->wb_limit_enable = val;
	oz->wb_limit_writes++;
	spin_unlock(&oz->wb_limit_lock);
	return len;
}

static ssize_t writeback_limit_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct ozram *oz = dev_to_ozram(dev);
	u64 val;

	spin_lock(&oz->wb_limit_lock);
	val = oz->bd_wb_limit;
	spin_unlock(&oz->wb_limit_lock);
	return sysfs_emit(buf, "%llu\n", val);
}

/* In 4 KiB units, as zram's. */
static ssize_t writeback_limit_store(struct device *dev,
				     struct device_attribute *attr,
				     const char *buf, size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	u64 val;

	if (ozram_sysfs_has_nul(buf, len) || kstrtoull(buf, 10, &val))
		return -EINVAL;
	spin_lock(&oz->wb_limit_lock);
	oz->bd_wb_limit = val;
	oz->wb_limit_writes++;
	spin_unlock(&oz->wb_limit_lock);
	return len;
}

static ssize_t compressed_writeback_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  READ_ONCE(dev_to_ozram(dev)->wb_compressed));
}

/*
 * A boolean (1/0, y/n, on/off), taken by the next writeback pass; pages
 * already on the backing device keep the form they were written in.
 */
static ssize_t compressed_writeback_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t len)
{
	bool val;

	if (ozram_sysfs_has_nul(buf, len) || kstrtobool(buf, &val))
		return -EINVAL;
	WRITE_ONCE(dev_to_ozram(dev)->wb_compressed, val);
	return len;
}

static DEVICE_ATTR_RW(backing_dev);
static DEVICE_ATTR_WO(writeback);
static DEVICE_ATTR_RW(writeback_limit);
static DEVICE_ATTR_RW(writeback_limit_enable);
static DEVICE_ATTR_RW(compressed_writeback);

static struct attribute *ozram_wb_attrs[] = {
	&dev_attr_backing_dev.attr,
	&dev_attr_writeback.attr,
	&dev_attr_writeback_limit.attr,
	&dev_attr_writeback_limit_enable.attr,
	&dev_attr_compressed_writeback.attr,
	NULL,
};

const struct attribute_group ozram_wb_attr_group = {
	.attrs = ozram_wb_attrs,
};
