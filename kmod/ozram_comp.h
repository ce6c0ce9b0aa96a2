/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel compression for ozram, as zram's zcomp: one struct ozram_comp
 * per algorithm a device uses, with a stream per CPU, through the crypto
 * API's compression algorithms.
 */
#ifndef OZRAM_COMP_H
#define OZRAM_COMP_H

#include <linux/crypto.h>
#include <linux/local_lock.h>
#include <linux/types.h>

#include "ozram_comp_level.h"

/* A name fits the crypto API's; longer ones do not name an algorithm. */
#define OZRAM_COMP_NAME_MAX	CRYPTO_MAX_ALG_NAME

/*
 * One CPU's stream: the algorithm's context and an output buffer of two
 * pages, enough for any algorithm's worst case on a page; at a chosen
 * level, the library's working memory too, which compresses instead.
 */
struct ozram_comp_stream {
	local_lock_t lock;
	struct crypto_comp *tfm;
	const struct ozram_comp_level *level;
	void *level_ws;
	void *buffer;
};

struct ozram_comp;

int ozram_comp_init(void);
void ozram_comp_exit(void);

/*
 * Whether @name, with at most one trailing newline, is a compression
 * algorithm the kernel has (loading its module if needed).
 */
bool ozram_comp_available(const char *name);

/*
 * Copies @name without its trailing newline into @dst (OZRAM_COMP_NAME_MAX
 * bytes).  Return: false when it does not fit.
 */
bool ozram_comp_copy_name(char *dst, const char *name);

/*
 * The algorithms zram offers that the kernel has, and deflate, each
 * followed by a space, @selected in brackets and added when it is not
 * among them; then a newline.
 */
ssize_t ozram_comp_list(char *buf, ssize_t at, const char *selected);

/*
 * The ring's enum ozram_ring_algorithm for the algorithm @name, or -1 when
 * no agent compresses it.
 */
int ozram_comp_ring_algorithm(const char *name);

/*
 * Streams of algorithm @name at @level (OZRAM_COMP_NO_LEVEL: its default).
 * Return: an ERR_PTR(), -EINVAL for a level the algorithm refuses.
 */
struct ozram_comp *ozram_comp_create(const char *name, s32 level);
void ozram_comp_destroy(struct ozram_comp *comp);
const char *ozram_comp_name(const struct ozram_comp *comp);

/* The level an agent compresses at: 0 for the algorithm's default. */
s32 ozram_comp_ring_level(const struct ozram_comp *comp);

/* Disables preemption until ozram_comp_stream_put(). */
struct ozram_comp_stream *ozram_comp_stream_get(struct ozram_comp *comp);
void ozram_comp_stream_put(struct ozram_comp *comp);

/* Compresses @page into strm->buffer; *@dst_len gets its length. */
int ozram_comp_compress(struct ozram_comp_stream *strm, struct page *page,
			unsigned int *dst_len);

/*
 * Compresses @page with @comp, for a caller that stores the result after
 * giving the stream back: the output goes to @dst when it is shorter than
 * @max bytes.  *@dst_len gets its length either way.
 */
int ozram_comp_compress_copy(struct ozram_comp *comp, struct page *page,
			     void *dst, unsigned int max,
			     unsigned int *dst_len);

/*
 * Decompresses @src_len bytes into one page.  Anything but exactly one
 * page of output means the data is corrupt: -EIO.
 */
int ozram_comp_decompress(struct ozram_comp_stream *strm, const void *src,
			  unsigned int src_len, void *dst);

/*
 * The same on a stream of @comp taken for the call; -EIO without an
 * algorithm (@comp NULL).
 */
int ozram_comp_decode(struct ozram_comp *comp, const void *src,
		      unsigned int src_len, void *dst);

#endif /* OZRAM_COMP_H */
