// SPDX-License-Identifier: GPL-2.0
/*
 * ozram control class: hot_add and hot_remove in /sys/class/ozram-control/
 * (/sys/class/zram-control/ with compat=1), zram's names, formats and
 * error codes (Documentation/ABI/).
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sysfs.h>

#include "ozram_compat.h"
#include "ozram_devices.h"

/*
 * Reading hot_add creates a device and returns its id, as zram's does;
 * hence mode 0400 although it is a read.
 */
static ssize_t hot_add_show(OZRAM_CLASS_CONST struct class *class,
			    OZRAM_CLASS_CONST struct class_attribute *attr,
			    char *buf)
{
	int ret;

	ozram_devices_lock();
	ret = ozram_add();
	ozram_devices_unlock();
	if (ret < 0)
		return ret;
	return sysfs_emit(buf, "%d\n", ret);
}

static struct class_attribute class_attr_hot_add =
	__ATTR(hot_add, 0400, hot_add_show, NULL);

static ssize_t hot_remove_store(OZRAM_CLASS_CONST struct class *class,
				OZRAM_CLASS_CONST struct class_attribute *attr,
				const char *buf, size_t count)
{
	struct ozram *oz;
	int ret, id;

	if (ozram_sysfs_has_nul(buf, count))
		return -EINVAL;
	ret = kstrtoint(buf, 10, &id);
	if (ret)
		return ret;
	if (id < 0)
		return -EINVAL;

	ozram_devices_lock();
	oz = ozram_find_device(id);
	if (oz) {
		ret = ozram_remove(oz);
		if (!ret)
			ozram_forget_device(id);
	} else {
		ret = -ENODEV;
	}
	ozram_devices_unlock();
	return ret ? ret : count;
}

static CLASS_ATTR_WO(hot_remove);

static struct attribute *ozram_control_class_attrs[] = {
	&class_attr_hot_add.attr,
	&class_attr_hot_remove.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ozram_control_class);

static struct class ozram_control_class = {
	.name = "ozram-control",	/* "zram-control" with compat=1 */
	.class_groups = ozram_control_class_groups,
};

int ozram_control_register(void)
{
	int ret;

	if (ozram_compat)
		ozram_control_class.name = "zram-control";
	ozram_compat_class_set_owner(&ozram_control_class);
	ret = class_register(&ozram_control_class);
	if (ret)
		pr_err("cannot register the %s class: %d\n",
		       ozram_control_class.name, ret);
	return ret;
}

void ozram_control_unregister(void)
{
	class_unregister(&ozram_control_class);
}
