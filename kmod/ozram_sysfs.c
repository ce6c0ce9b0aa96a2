// SPDX-License-Identifier: GPL-2.0
/*
 * ozram sysfs: the per-device attributes in /sys/block/ozramN/, but those
 * of writeback (ozram_sysfs_wb.c).  The control class (hot_add,
 * hot_remove) is in ozram_control.c.
 *
 * Names, formats and error codes follow zram's (Documentation/ABI/).
 */
#define KMSG_COMPONENT "ozram"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/zsmalloc.h>

#include "ozram_compat.h"
#include "ozram_devices.h"
#include "ozram_io.h"
#include "ozram_latency.h"
#include "ozram_recomp.h"
#include "ozram_ring_api.h"
#include "ozram_snapshot.h"

/*
 * A write that holds a NUL byte is refused whole: the parsers below would
 * stop at it and act on the part before it ("1\0x" as "1").
 */
bool ozram_sysfs_has_nul(const char *buf, size_t len)
{
	return strnlen(buf, len) != len;
}

/*
 * A write's text as a string of its own, for the parsers that cut it into
 * words: ERR_PTR(-EINVAL) if it holds a NUL byte, ERR_PTR(-ENOMEM).  The
 * caller kfree()s it.
 */
char *ozram_sysfs_strndup(const char *buf, size_t len)
{
	char *copy;

	if (ozram_sysfs_has_nul(buf, len))
		return ERR_PTR(-EINVAL);
	copy = kstrndup(buf, len, GFP_KERNEL);
	return copy ? copy : ERR_PTR(-ENOMEM);
}

/*
 * A size as memparse() reads it (a number in any base kstrtoull() takes,
 * with an optional K, M, G, T, P or E suffix), but strictly: nothing after
 * the suffix except one newline, and -EINVAL rather than a wrap when the
 * value does not fit in 64 bits.  zram takes both without a complaint.
 */
static int ozram_parse_size(const char *buf, size_t len, u64 *size)
{
	unsigned int shift = 0;
	char text[24];
	u64 value;

	if (ozram_sysfs_has_nul(buf, len))
		return -EINVAL;
	if (len && buf[len - 1] == '\n')
		len--;
	/* kstrtoull() takes a leading '+', which zram's memparse() does not. */
	if (!len || len >= sizeof(text) || buf[0] == '+')
		return -EINVAL;
	memcpy(text, buf, len);
	text[len] = '\0';
	switch (text[len - 1]) {
	case 'E':
	case 'e':
		/* As memparse(): a hexadecimal number's last E is a digit. */
		if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
			break;
		shift += 10;
		fallthrough;
	case 'P':
	case 'p':
		shift += 10;
		fallthrough;
	case 'T':
	case 't':
		shift += 10;
		fallthrough;
	case 'G':
	case 'g':
		shift += 10;
		fallthrough;
	case 'M':
	case 'm':
		shift += 10;
		fallthrough;
	case 'K':
	case 'k':
		shift += 10;
		text[--len] = '\0';
	}
	if (kstrtoull(text, 0, &value) || value > U64_MAX >> shift)
		return -EINVAL;
	*size = value << shift;
	return 0;
}

static ssize_t disksize_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	struct ozram *oz = dev_to_ozram(dev);

	return sysfs_emit(buf, "%llu\n", oz->disksize);
}

static ssize_t disksize_store(struct device *dev,
			      struct device_attribute *attr, const char *buf,
			      size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	u64 disksize;
	int ret;

	ret = ozram_parse_size(buf, len, &disksize);
	if (ret)
		return ret;
	ret = ozram_init_device(oz, disksize);
	if (ret == -EBUSY)
		pr_info("%s: cannot change the size of an initialised device\n",
			oz->disk->disk_name);
	return ret ? ret : len;
}

static ssize_t initstate_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct ozram *oz = dev_to_ozram(dev);
	bool done;

	down_read(&oz->init_lock);
	done = ozram_init_done(oz);
	up_read(&oz->init_lock);
	return sysfs_emit(buf, "%u\n", done);
}

static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	struct gendisk *disk = oz->disk;
	unsigned short do_reset;
	int ret;

	if (ozram_sysfs_has_nul(buf, len))
		return -EINVAL;
	ret = kstrtou16(buf, 10, &do_reset);
	if (ret)
		return ret;
	if (!do_reset)
		return -EINVAL;

	mutex_lock(&disk->open_mutex);
	/* Never pull the data from under an opener, or race a removal. */
	if (disk_openers(disk) || oz->claim) {
		mutex_unlock(&disk->open_mutex);
		return -EBUSY;
	}
	oz->claim = true;
	mutex_unlock(&disk->open_mutex);

	sync_blockdev(disk->part0);
	ozram_reset_device(oz);

	mutex_lock(&disk->open_mutex);
	oz->claim = false;
	mutex_unlock(&disk->open_mutex);
	return len;
}

/* Names the algorithm of priority @prio: only before initialisation. */
static int ozram_set_algorithm(struct ozram *oz, int prio, const char *name)
{
	int ret = 0;

	down_write(&oz->init_lock);
	if (ozram_init_done(oz)) {
		pr_info("%s: cannot change the algorithms of an initialised device\n",
			oz->disk->disk_name);
		ret = -EBUSY;
	} else {
		strscpy(oz->comp_names[prio], name, sizeof(oz->comp_names[prio]));
	}
	up_write(&oz->init_lock);
	return ret;
}

static ssize_t comp_algorithm_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct ozram *oz = dev_to_ozram(dev);
	ssize_t len;

	down_read(&oz->init_lock);
	len = ozram_comp_list(buf, 0, oz->comp_names[OZRAM_PRIMARY_COMP]);
	up_read(&oz->init_lock);
	return len;
}

static ssize_t comp_algorithm_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t len)
{
	char name[OZRAM_COMP_NAME_MAX];
	int ret;

	/* zram measures the value as a string: up to its first NUL. */
	if (ozram_compat_long_algorithm_name_is_e2big() &&
	    strnlen(buf, len) >= OZRAM_COMP_NAME_MAX)
		return -E2BIG;
	if (ozram_sysfs_has_nul(buf, len) || !ozram_comp_copy_name(name, buf) ||
	    !ozram_comp_available(name))
		return -EINVAL;
	ret = ozram_set_algorithm(dev_to_ozram(dev), OZRAM_PRIMARY_COMP, name);
	return ret ? ret : len;
}

/* Each recompression algorithm, after its priority, as zram lists them. */
static ssize_t recomp_algorithm_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct ozram *oz = dev_to_ozram(dev);
	ssize_t len = 0;
	int prio;

	down_read(&oz->init_lock);
	for (prio = OZRAM_PRIMARY_COMP + 1; prio < OZRAM_MAX_COMPS; prio++) {
		if (!oz->comp_names[prio][0])
			continue;
		len += sysfs_emit_at(buf, len, "#%d: ", prio);
		len = ozram_comp_list(buf, len, oz->comp_names[prio]);
	}
	up_read(&oz->init_lock);
	return len;
}

/* "algo=NAME [priority=N]", priority 1 by default, before initialisation. */
static ssize_t recomp_algorithm_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	char name[OZRAM_COMP_NAME_MAX];
	char *args, *cursor, *param, *val, *alg = NULL;
	int prio = OZRAM_PRIMARY_COMP + 1, ret = -EINVAL;
	bool prio_set = false;

	if (ozram_sysfs_has_nul(buf, len))
		return -EINVAL;
	args = kstrndup(buf, len, GFP_KERNEL);
	if (!args)
		return -ENOMEM;
	cursor = skip_spaces(args);
	while (*cursor) {
		cursor = next_arg(cursor, &param, &val);
		if (!val || !*val)
			goto out;
		if (!strcmp(param, "algo") && !alg) {
			alg = val;
		} else if (!strcmp(param, "priority") && !prio_set) {
			/* As zram: kstrtoint()'s errno, ERANGE past an int. */
			ret = kstrtoint(val, 10, &prio);
			if (ret)
				goto out;
			ret = -EINVAL;
			prio_set = true;
		} else {
			goto out;
		}
	}
	if (!alg || prio <= OZRAM_PRIMARY_COMP || prio >= OZRAM_MAX_COMPS)
		goto out;
	if (ozram_compat_long_algorithm_name_is_e2big() &&
	    strlen(alg) >= OZRAM_COMP_NAME_MAX) {
		ret = -E2BIG;
		goto out;
	}
	if (!ozram_comp_copy_name(name, alg) || !ozram_comp_available(name))
		goto out;

	ret = ozram_set_algorithm(oz, prio, name);
	if (!ret)
		ret = len;
out:
	kfree(args);
	return ret;
}

/*
 * zram's recompress: "[type=idle|huge|huge_idle] [threshold=BYTES]
 * [max_pages=N] [algo=NAME] [priority=N]".  Returns when the pages are
 * done; a second write waits for the pass in progress.
 */
static ssize_t recompress_store(struct device *dev,
				struct device_attribute *attr, const char *buf,
				size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	struct ozram_recomp_params params;
	char *args;
	int ret;

	args = ozram_sysfs_strndup(buf, len);
	if (IS_ERR(args))
		return PTR_ERR(args);

	down_read(&oz->init_lock);
	ret = -EINVAL;
	if (ozram_init_done(oz))
		ret = ozram_recomp_parse(oz, args, &params);
	if (!ret)
		ret = mutex_lock_interruptible(&oz->recomp_mutex);
	if (!ret) {
		ret = ozram_recompress(oz, &params);
		mutex_unlock(&oz->recomp_mutex);
	}
	up_read(&oz->init_lock);
	kfree(args);
	return ret ? ret : len;
}

/* Streams are per CPU, as in zram: the value is reported, not used. */
static ssize_t max_comp_streams_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", num_online_cpus());
}

static ssize_t max_comp_streams_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t len)
{
	unsigned int streams;

	if (ozram_sysfs_has_nul(buf, len) || kstrtouint(buf, 10, &streams))
		return -EINVAL;
	return len;
}

static ssize_t mem_limit_store(struct device *dev,
			       struct device_attribute *attr, const char *buf,
			       size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	u64 limit;

	/* A limit that rounds up past 64 bits would wrap to no limit. */
	if (ozram_parse_size(buf, len, &limit) ||
	    limit > U64_MAX - (PAGE_SIZE - 1))
		return -EINVAL;

	down_write(&oz->init_lock);
	oz->limit_pages = PAGE_ALIGN(limit) >> PAGE_SHIFT;
	up_write(&oz->init_lock);
	/* Pages held staged at the old limit may fit under the new one. */
	ozram_ring_retry_held(oz);
	return len;
}

static ssize_t mem_used_max_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	unsigned long val;

	/* Only a reset to the current usage is meaningful. */
	if (ozram_sysfs_has_nul(buf, len) || kstrtoul(buf, 10, &val) ||
	    val != 0)
		return -EINVAL;

	down_read(&oz->init_lock);
	if (ozram_init_done(oz))
		ozram_stat_set(oz, OZRAM_STAT_MEM_USED_MAX,
			       (u64)ozram_mem_used_pages(oz) << PAGE_SHIFT);
	up_read(&oz->init_lock);
	return len;
}

static ssize_t compact_store(struct device *dev,
			     struct device_attribute *attr, const char *buf,
			     size_t len)
{
	int ret;

	if (ozram_sysfs_has_nul(buf, len))
		return -EINVAL;
	ret = ozram_compact(dev_to_ozram(dev));
	return ret ? ret : len;
}

static ssize_t idle_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t len)
{
	struct ozram *oz = dev_to_ozram(dev);
	ktime_t cutoff = KTIME_MAX;
	ssize_t ret = -EINVAL;
	u64 age;

	/* "all", or an age in seconds: pages not accessed for that long. */
	if (ozram_sysfs_has_nul(buf, len))
		return -EINVAL;
	if (!sysfs_streq(buf, "all")) {
		if (kstrtoull(buf, 0, &age) || age > KTIME_SEC_MAX)
			return -EINVAL;
		cutoff = ktime_sub(ktime_get_boottime(),
				   ns_to_ktime(age * NSEC_PER_SEC));
	}

	down_read(&oz->init_lock);
	if (ozram_init_done(oz)) {
		ozram_mark_idle(oz, cutoff);
		ret = len;
	}
	up_read(&oz->init_lock);
	return ret;
}

/*
 * The files of a device's numbers: zram's four, in zram's format, and
 * ozram's own backend_stat (ozram_snapshot.c).
 */
#define OZRAM_STAT_ATTR(file)						\
static ssize_t file##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	return ozram_stat_show(dev_to_ozram(dev), OZRAM_FILE_##file, buf); \
}									\
static DEVICE_ATTR_RO(file)

OZRAM_STAT_ATTR(mm_stat);
OZRAM_STAT_ATTR(io_stat);
OZRAM_STAT_ATTR(debug_stat);
OZRAM_STAT_ATTR(bd_stat);
OZRAM_STAT_ATTR(backend_stat);

static DEVICE_ATTR_RW(disksize);
static DEVICE_ATTR_RO(initstate);
static DEVICE_ATTR_WO(reset);
static DEVICE_ATTR_RW(comp_algorithm);
static DEVICE_ATTR_RW(recomp_algorithm);
static DEVICE_ATTR_WO(recompress);
static DEVICE_ATTR_RW(max_comp_streams);
static DEVICE_ATTR_WO(mem_limit);
static DEVICE_ATTR_WO(mem_used_max);
static DEVICE_ATTR_WO(compact);
static DEVICE_ATTR_WO(idle);

static ssize_t latency_stat_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return ozram_latency_show(dev_to_ozram(dev), buf);
}
static DEVICE_ATTR_RO(latency_stat);

static struct attribute *ozram_disk_attrs[] = {
	&dev_attr_disksize.attr,
	&dev_attr_initstate.attr,
	&dev_attr_reset.attr,
	&dev_attr_comp_algorithm.attr,
	&dev_attr_recomp_algorithm.attr,
	&dev_attr_recompress.attr,
	&dev_attr_max_comp_streams.attr,
	&dev_attr_mem_limit.attr,
	&dev_attr_mem_used_max.attr,
	&dev_attr_compact.attr,
	&dev_attr_idle.attr,
	&dev_attr_mm_stat.attr,
	&dev_attr_io_stat.attr,
	&dev_attr_debug_stat.attr,
	&dev_attr_backend_stat.attr,
	&dev_attr_latency_stat.attr,
	&dev_attr_bd_stat.attr,
	NULL,
};

static const struct attribute_group ozram_disk_group = {
	.attrs = ozram_disk_attrs,
};

const struct attribute_group *ozram_disk_groups[] = {
	&ozram_disk_group,
	&ozram_wb_attr_group,
	&ozram_params_attr_group,
	NULL,
};
