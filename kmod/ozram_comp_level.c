// SPDX-License-Identifier: GPL-2.0
/*
 * Compression at a chosen level, as zram's backends of Linux 6.12 do it:
 * LZ4 with LZ4_compress_fast() and the level as its acceleration, LZ4HC
 * and zstd at the level (zstd with the parameters of that level for a
 * page), and deflate's raw stream of the crypto API's window at the level.
 * Every library clamps a level it takes to its own range, except zlib,
 * which refuses one beyond -1..9.
 */
#include <linux/errno.h>
#include <linux/lz4.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/zlib.h>
#include <linux/zstd.h>

#include "ozram_comp_level.h"

/* The crypto API's deflate: a raw stream with a window of 2^11 bytes. */
#define OZRAM_DEFLATE_WINBITS	11

/* One CPU's working memory: the library's context and its memory. */
struct ozram_comp_level_ws {
	void *mem;
	zstd_cctx *cctx;
	zstd_parameters zparams;
	z_stream zs;
};

int ozram_comp_level_init(struct ozram_comp_level *cl, const char *name,
			  s32 level)
{
	static const struct {
		const char *name;
		enum ozram_comp_level_kind kind;
	} kinds[] = {
		{ "lz4", OZRAM_LEVEL_LZ4 },
		{ "lz4hc", OZRAM_LEVEL_LZ4HC },
		{ "zstd", OZRAM_LEVEL_ZSTD },
		{ "deflate", OZRAM_LEVEL_DEFLATE },
	};
	size_t i;

	cl->kind = OZRAM_LEVEL_NONE;
	cl->level = level;
	if (level == OZRAM_COMP_NO_LEVEL)
		return 0;
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (!strcmp(name, kinds[i].name))
			cl->kind = kinds[i].kind;
	}
	if (cl->kind == OZRAM_LEVEL_DEFLATE &&
	    (level < Z_DEFAULT_COMPRESSION || level > Z_BEST_COMPRESSION))
		return -EINVAL;
	return 0;
}

void *ozram_comp_level_alloc(const struct ozram_comp_level *cl)
{
	struct ozram_comp_level_ws *ws;
	size_t size = 0;

	ws = kzalloc(sizeof(*ws), GFP_KERNEL);
	if (!ws)
		return NULL;
	switch (cl->kind) {
	case OZRAM_LEVEL_NONE:
		kfree(ws);
		return NULL;
	case OZRAM_LEVEL_LZ4:
		size = LZ4_MEM_COMPRESS;
		break;
	case OZRAM_LEVEL_LZ4HC:
		size = LZ4HC_MEM_COMPRESS;
		break;
	case OZRAM_LEVEL_ZSTD:
		ws->zparams = zstd_get_params(cl->level, PAGE_SIZE);
		size = zstd_cctx_workspace_bound(&ws->zparams.cParams);
		break;
	case OZRAM_LEVEL_DEFLATE:
		size = zlib_deflate_workspacesize(-OZRAM_DEFLATE_WINBITS,
						  MAX_MEM_LEVEL);
		break;
	}
	ws->mem = vzalloc(size);
	if (!ws->mem)
		goto fail;
	if (cl->kind == OZRAM_LEVEL_ZSTD) {
		ws->cctx = zstd_init_cctx(ws->mem, size);
		if (!ws->cctx)
			goto fail;
	} else if (cl->kind == OZRAM_LEVEL_DEFLATE) {
		ws->zs.workspace = ws->mem;
		if (zlib_deflateInit2(&ws->zs, cl->level, Z_DEFLATED,
				      -OZRAM_DEFLATE_WINBITS, MAX_MEM_LEVEL,
				      Z_DEFAULT_STRATEGY) != Z_OK)
			goto fail;
	}
	return ws;
fail:
	ozram_comp_level_free(ws);
	return NULL;
}

void ozram_comp_level_free(void *ws)
{
	struct ozram_comp_level_ws *w = ws;

	if (!w)
		return;
	vfree(w->mem);
	kfree(w);
}

static int ozram_comp_level_deflate(struct ozram_comp_level_ws *ws,
				    const void *src, void *dst,
				    unsigned int dst_cap, unsigned int *dst_len)
{
	z_stream *zs = &ws->zs;

	if (zlib_deflateReset(zs) != Z_OK)
		return -EINVAL;
	zs->next_in = src;
	zs->avail_in = PAGE_SIZE;
	zs->next_out = dst;
	zs->avail_out = dst_cap;
	if (zlib_deflate(zs, Z_FINISH) != Z_STREAM_END)
		return -EINVAL;
	*dst_len = zs->total_out;
	return 0;
}

int ozram_comp_level_compress(const struct ozram_comp_level *cl, void *ws,
			      const void *src, void *dst,
			      unsigned int dst_cap, unsigned int *dst_len)
{
	struct ozram_comp_level_ws *w = ws;
	size_t zlen;
	int len;

	switch (cl->kind) {
	case OZRAM_LEVEL_LZ4:
		len = LZ4_compress_fast(src, dst, PAGE_SIZE, dst_cap, cl->level,
					w->mem);
		break;
	case OZRAM_LEVEL_LZ4HC:
		len = LZ4_compress_HC(src, dst, PAGE_SIZE, dst_cap, cl->level,
				      w->mem);
		break;
	case OZRAM_LEVEL_ZSTD:
		zlen = zstd_compress_cctx(w->cctx, dst, dst_cap, src, PAGE_SIZE,
					  &w->zparams);
		if (zstd_is_error(zlen))
			return -EINVAL;
		*dst_len = zlen;
		return 0;
	case OZRAM_LEVEL_DEFLATE:
		return ozram_comp_level_deflate(w, src, dst, dst_cap, dst_len);
	default:
		return -EINVAL;
	}
	if (len <= 0)
		return -EINVAL;
	*dst_len = len;
	return 0;
}

s32 ozram_comp_level_ring(const struct ozram_comp_level *cl)
{
	switch (cl->kind) {
	case OZRAM_LEVEL_LZ4:
	case OZRAM_LEVEL_LZ4HC:
	case OZRAM_LEVEL_ZSTD:
		return cl->level;
	default:
		return 0;
	}
}
