/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check of an LZ4 block against the page it claims to hold, without
 * decoding it into a buffer: every literal run is compared with the page
 * where it would land, every match with the bytes of the page it would copy.
 *
 * It gives the verdict of a full decode followed by a compare: a block is
 * accepted if and only if LZ4_decompress_safe(block, dst, len, size) would
 * return size with dst equal to the page.  The one exception is a match of
 * offset 0, which the LZ4 block format forbids and which is refused here,
 * whereas the decoders copy zeros for it.  Documentation/kmod.md gives the
 * argument for the equivalence; a differential fuzz test checks it against
 * liblz4.
 *
 * It reads only the block's len bytes and the page's size bytes, writes
 * nothing and allocates nothing, so that the same file runs in ozram.ko and,
 * through the shim for the kernel's types, in the unit tests and benches.
 */
#ifndef OZRAM_LZ4_VERIFY_H
#define OZRAM_LZ4_VERIFY_H

#include <linux/types.h>

/*
 * Whether the LZ4 block of @block_len bytes at @block decodes to exactly
 * the @page_size bytes at @page (@page_size > 0).  A malformed or truncated
 * block, an offset of 0 or one reaching before the page, and a length
 * running past the page or the block are all refusals.
 */
bool ozram_lz4_verify(const void *block, unsigned int block_len,
		      const void *page, unsigned int page_size);

#endif /* OZRAM_LZ4_VERIFY_H */
