// SPDX-License-Identifier: GPL-2.0
/*
 * ozram sysfs: algorithm_params, zram's file of Linux 6.12 on, where the
 * kernel's zram has it.  A write names an algorithm by its priority
 * ("priority=N", 0 the device's own, 1-3 recompression's) or its name
 * ("algo=NAME", which wins), and sets its parameters as zram does: every
 * write replaces the algorithm's parameters, a level with "level=N" or
 * none, and they take effect when the device is initialised.  Unknown
 * keys are ignored, as zram ignores them.  A dictionary ("dict=PATH") is
 * refused with zram's errno for one it cannot load: the agent has no
 * dictionary to compress with (Documentation/operations.md).
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/device.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ozram_compat.h"
#include "ozram_devices.h"

/* What a write of algorithm_params asks for. */
struct ozram_params_req {
	int prio;
	s32 level;
	const char *algo;
	bool dict;
};

/* Parses "key=value ..." of @args as zram does; -errno as zram returns. */
static int ozram_params_parse(char *args, struct ozram_params_req *p)
{
	char *param, *val;
	int ret;

	args = skip_spaces(args);
	while (*args) {
		args = next_arg(args, &param, &val);
		if (!val || !*val)
			return -EINVAL;
		if (!strcmp(param, "priority")) {
			ret = kstrtoint(val, 10, &p->prio);
			if (ret)
				return ret;
		} else if (!strcmp(param, "level")) {
			ret = kstrtoint(val, 10, &p->level);
			if (ret)
				return ret;
		} else if (!strcmp(param, "algo")) {
			p->algo = val;
		} else if (!strcmp(param, "dict")) {
			p->dict = true;
		}
	}
	return 0;
}

/* The priority of algorithm @algo on @oz, or -EINVAL: init_lock held. */
static int ozram_params_prio(struct ozram *oz, const char *algo)
{
	int prio;

	for (prio = OZRAM_PRIMARY_COMP; prio < OZRAM_MAX_COMPS; prio++) {
		if (oz->comp_names[prio][0] &&
		    !strcmp(oz->comp_names[prio], algo))
			return prio;
	}
	return -EINVAL;
}

static ssize_t algorithm_params_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	struct ozram_params_req p = {
		.prio = OZRAM_PRIMARY_COMP,
		.level = OZRAM_COMP_NO_LEVEL,
	};
	struct ozram *oz = dev_to_ozram(dev);
	char *args;
	int ret;

	args = ozram_sysfs_strndup(buf, len);
	if (IS_ERR(args))
		return PTR_ERR(args);
	ret = ozram_params_parse(args, &p);
	if (ret)
		goto out;

	down_write(&oz->init_lock);
	if (p.algo)
		p.prio = ozram_params_prio(oz, p.algo);
	if (p.prio < OZRAM_PRIMARY_COMP || p.prio >= OZRAM_MAX_COMPS) {
		ret = -EINVAL;
	} else {
		/* As zram: the old parameters go before a dictionary fails. */
		oz->comp_levels[p.prio] = p.dict ? OZRAM_COMP_NO_LEVEL : p.level;
		ret = p.dict ? -EINVAL : 0;
	}
	up_write(&oz->init_lock);
out:
	kfree(args);
	return ret ? ret : len;
}
static DEVICE_ATTR_WO(algorithm_params);

static struct attribute *ozram_params_attrs[] = {
	&dev_attr_algorithm_params.attr,
	NULL,
};

static umode_t ozram_params_visible(struct kobject *kobj,
				    struct attribute *attr, int n)
{
	return ozram_compat_has_algorithm_params() ? attr->mode : 0;
}

const struct attribute_group ozram_params_attr_group = {
	.attrs = ozram_params_attrs,
	.is_visible = ozram_params_visible,
};
