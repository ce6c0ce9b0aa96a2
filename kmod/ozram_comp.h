/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel LZ4 for ozram: per-CPU compression streams.
 */
#ifndef OZRAM_COMP_H
#define OZRAM_COMP_H

#include <linux/local_lock.h>

/*
 * One stream per CPU: the LZ4 hash table and an output buffer large
 * enough for the worst case of a page that does not compress.
 */
struct ozram_comp_stream {
	local_lock_t lock;
	void *workspace;
	void *buffer;
};

int ozram_comp_init(void);
void ozram_comp_exit(void);

/* Disables preemption until ozram_comp_stream_put(). */
struct ozram_comp_stream *ozram_comp_stream_get(void);
void ozram_comp_stream_put(void);

int ozram_comp_compress(struct ozram_comp_stream *strm, const void *src,
			unsigned int *dst_len);
int ozram_comp_decompress(const void *src, unsigned int src_len, void *dst);

#endif /* OZRAM_COMP_H */
