/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recompression of stored pages with a device's recompression algorithms,
 * zram's recompress, in batches through the agent when one is attached.
 */
#ifndef OZRAM_RECOMP_H
#define OZRAM_RECOMP_H

#include <linux/types.h>

struct ozram;

/* What one write to recompress asks for. */
struct ozram_recomp_params {
	u32 mode;		/* OZRAM_RECOMP_* (ozram_io.h), 0: every page */
	u32 threshold;		/* only objects of this size or more; 0: all */
	u64 max_pages;		/* pages tried at most */
	u32 prio_min;		/* the algorithms of priority [min, max) */
	u32 prio_max;
	/* An algorithm was named: a page it cannot shrink is not marked. */
	bool explicit_target;
};

/*
 * Parses zram's recompress arguments ("type=idle threshold=1024 ...") for
 * @oz, whose init_lock the caller holds.  Return: 0 or -EINVAL.
 */
int ozram_recomp_parse(struct ozram *oz, char *args,
		       struct ozram_recomp_params *p);

/*
 * Recompresses the pages of @oz that @p selects; init_lock held for
 * reading, which keeps the device from being reset meanwhile.
 * Return: 0, or a negative errno.
 */
int ozram_recompress(struct ozram *oz, const struct ozram_recomp_params *p);

#endif /* OZRAM_RECOMP_H */
