/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compression at a level the user chose (algorithm_params), through the
 * kernel's compression libraries: the crypto API's algorithms compress at
 * their default level only.  Each output is what the crypto API's
 * algorithm of the same name decodes, so decompression stays with it.
 */
#ifndef OZRAM_COMP_LEVEL_H
#define OZRAM_COMP_LEVEL_H

#include <linux/limits.h>
#include <linux/types.h>

/* No level chosen: the algorithm's default, through the crypto API. */
#define OZRAM_COMP_NO_LEVEL	INT_MIN

/* Which library compresses at the level. */
enum ozram_comp_level_kind {
	OZRAM_LEVEL_NONE,	/* no level: the crypto API */
	OZRAM_LEVEL_LZ4,	/* LZ4's acceleration */
	OZRAM_LEVEL_LZ4HC,
	OZRAM_LEVEL_ZSTD,
	OZRAM_LEVEL_DEFLATE,
};

struct ozram_comp_level {
	enum ozram_comp_level_kind kind;
	s32 level;
};

/*
 * The library and level for algorithm @name at @level: OZRAM_LEVEL_NONE
 * for OZRAM_COMP_NO_LEVEL, and for an algorithm that takes no level (lzo,
 * lzo-rle, 842), which ignores it as zram does.  Return: -EINVAL for a
 * level the library refuses (deflate's are -1..9).
 */
int ozram_comp_level_init(struct ozram_comp_level *cl, const char *name,
			  s32 level);

/* One CPU's working memory for @cl, or NULL; only for a kind with a level. */
void *ozram_comp_level_alloc(const struct ozram_comp_level *cl);
void ozram_comp_level_free(void *ws);

/*
 * Compresses the page at @src into @dst (@dst_cap bytes); *@dst_len gets
 * the output's length.  Return: 0, or -EINVAL when it does not fit.
 */
int ozram_comp_level_compress(const struct ozram_comp_level *cl, void *ws,
			      const void *src, void *dst,
			      unsigned int dst_cap, unsigned int *dst_len);

/* The level an agent compresses the page at: 0 for the default. */
s32 ozram_comp_level_ring(const struct ozram_comp_level *cl);

#endif /* OZRAM_COMP_LEVEL_H */
