// SPDX-License-Identifier: GPL-2.0
/*
 * The LZ4 block check: see ozram_lz4_verify.h.
 *
 * An LZ4 block is a run of sequences: a token, whose high nibble is a
 * literal length and low nibble a match length less 4; more length bytes
 * when a nibble is 15, each added, until one is not 255; the literals; then
 * a little-endian 16-bit offset and the match, which copies the output from
 * offset bytes back, byte by byte, so that an overlapping match repeats.
 *
 * The walk below follows the kernel's LZ4_decompress_safe() (lib/lz4, the
 * decoder that reads ozram's objects back) step by step, with a compare in
 * place of every copy: literals against the page where they would land, a
 * match as page[pos + i] == page[pos - offset + i].  The match compare is
 * right for overlapping matches too: every byte before pos is already known
 * to equal the page, so the decoder's output and the page agree there.
 * Where the decoder takes a branch that decides a verdict, the walk takes
 * the same one, with the decoder's own limits; that includes its shortcut
 * for short sequences far from the ends, which skips the end-of-block
 * tests that the other path makes.
 *
 * The walk is as long as the decoder's: each token's place depends on the
 * lengths before it.  What it saves is the output buffer and the compare
 * after the decode.  Its common case comes first, in a loop of its own: a
 * sequence far from both ends, whose literals and match are compared a
 * word or 16 bytes at a time under a mask, with no branch on their
 * lengths, and whose compares are or-ed together and tested once, when the
 * loop ends.
 */
#include <linux/compiler.h>
#include <linux/string.h>
#include <linux/types.h>

#include "ozram_lz4_verify.h"

enum {
	LZ4V_MIN_MATCH = 4,		/* a match's length is its field + 4 */
	LZ4V_RUN_MASK = 15,		/* nibble value: length bytes follow */
	LZ4V_MORE = 255,		/* length byte value: another follows */
	/* A match may not end in the last 5 bytes of the output. */
	LZ4V_LAST_LITERALS = 5,
	/* Literals ending in the last 12 bytes end the block. */
	LZ4V_MF_LIMIT = 12,
	/*
	 * Literals ending in the last 8 bytes of the input end the block:
	 * there would be no room for an offset, a token and 5 literals.
	 */
	LZ4V_LAST_INPUT = 8,
	/*
	 * The decoder's shortcut: a sequence of at most 14 literals and a
	 * match of at most 18 bytes, with more than 16 bytes of input left
	 * after its token and at least 32 of output, is copied with no end
	 * test at all.  Its match then takes no test but the offset's.
	 */
	LZ4V_SHORT_INPUT = 16,
	LZ4V_SHORT_OUTPUT = 32,
	LZ4V_SHORT_MIN_OFFSET = 8,
	/*
	 * 64 bytes from the end of the page, a shortcut's sequence (14
	 * literals, 18 bytes of match) meets no end test on either path.
	 */
	LZ4V_FAST_OUTPUT = 64,
};

static __always_inline u64 lz4v_load(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The little-endian 16-bit word at @p: an offset. */
static __always_inline unsigned long lz4v_le16(const u8 *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return p[0] | p[1] << 8;
#endif
}

/*
 * The first n of 16 bytes read from memory, as two words: lz4v_keep[0][n]
 * and lz4v_keep[1][n].  From 16 to 18 all 16 are kept: the decoder's
 * shortcut copies matches of up to 18 bytes.
 */
static const u64 lz4v_keep[2][19] = {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	{
		0x0000000000000000ULL, 0xff00000000000000ULL,
		0xffff000000000000ULL, 0xffffff0000000000ULL,
		0xffffffff00000000ULL, 0xffffffffff000000ULL,
		0xffffffffffff0000ULL, 0xffffffffffffff00ULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL,
	},
	{
		0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0xff00000000000000ULL,
		0xffff000000000000ULL, 0xffffff0000000000ULL,
		0xffffffff00000000ULL, 0xffffffffff000000ULL,
		0xffffffffffff0000ULL, 0xffffffffffffff00ULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL,
	},
#else
	{
		0x0000000000000000ULL, 0x00000000000000ffULL,
		0x000000000000ffffULL, 0x0000000000ffffffULL,
		0x00000000ffffffffULL, 0x000000ffffffffffULL,
		0x0000ffffffffffffULL, 0x00ffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL,
	},
	{
		0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x0000000000000000ULL,
		0x0000000000000000ULL, 0x00000000000000ffULL,
		0x000000000000ffffULL, 0x0000000000ffffffULL,
		0x00000000ffffffffULL, 0x000000ffffffffffULL,
		0x0000ffffffffffffULL, 0x00ffffffffffffffULL,
		0xffffffffffffffffULL, 0xffffffffffffffffULL,
		0xffffffffffffffffULL,
	},
#endif
};

/*
 * Non-zero when the first @n (at most 16) of the 16 bytes at @a and @b
 * differ.  No branch on @n: the lengths of literal runs and short matches
 * vary from one sequence to the next, and a mispredicted branch costs more
 * than the whole compare.
 */
static __always_inline u64 lz4v_diff16(const u8 *a, const u8 *b,
				       unsigned long n)
{
	return ((lz4v_load(a) ^ lz4v_load(b)) & lz4v_keep[0][n]) |
	       ((lz4v_load(a + 8) ^ lz4v_load(b + 8)) & lz4v_keep[1][n]);
}

/* Non-zero when the 16 bytes at @a and @b differ. */
static __always_inline u64 lz4v_diff16_all(const u8 *a, const u8 *b)
{
	return (lz4v_load(a) ^ lz4v_load(b)) |
	       (lz4v_load(a + 8) ^ lz4v_load(b + 8));
}

/*
 * Non-zero when the @n bytes at @a and @b differ, for @n of at least 16:
 * the last 16 bytes, then 16 at a time from the first.  Nothing past @n is
 * read.
 */
static __always_inline u64 lz4v_diff_long(const u8 *a, const u8 *b,
					  unsigned long n)
{
	u64 diff = lz4v_diff16_all(a + n - 16, b + n - 16);
	unsigned long i;

	for (i = 0; i + 16 < n; i += 16)
		diff |= lz4v_diff16_all(a + i, b + i);
	return diff;
}

/*
 * Whether the @n bytes at @a equal those at @b.  With @slack, 16 bytes may
 * be read at @a and @b however short @n is; without it nothing past @n is
 * read.
 */
static __always_inline bool lz4v_same(const u8 *a, const u8 *b,
				      unsigned long n, bool slack)
{
	unsigned long i;

	if (n >= 16)
		return !lz4v_diff_long(a, b, n);
	if (slack)
		return !lz4v_diff16(a, b, n);
	if (n >= 8)
		return lz4v_load(a) == lz4v_load(b) &&
		       lz4v_load(a + n - 8) == lz4v_load(b + n - 8);
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * Reads the length bytes that follow a nibble of 15 into *@length, stopping
 * at the first that is not 255.  A byte is read only while more than @keep
 * bytes of the @len of the block are left, the decoder's limit.  A length
 * past @size can only be refused, so the walk stops there too, long before
 * a sum could overflow.
 */
static __always_inline bool lz4v_length(const u8 *src, unsigned long len,
					unsigned long *ip, unsigned long keep,
					unsigned long size,
					unsigned long *length)
{
	unsigned long byte;

	do {
		if (len - *ip <= keep)
			return false;
		byte = src[(*ip)++];
		*length += byte;
		if (*length > size)
			return false;
	} while (byte == LZ4V_MORE);
	return true;
}

bool ozram_lz4_verify(const void *block, unsigned int block_len,
		      const void *page, unsigned int page_size)
{
	const u8 *src = block;
	const u8 *out = page;
	/* Indices as wide as pointers, so that nothing wraps in between. */
	const unsigned long len = block_len;
	const unsigned long size = page_size;
	unsigned long ip = 0;	/* the next byte of the block */
	unsigned long op = 0;	/* the page's bytes proven so far */
	/*
	 * The shortcut wants ip < short_ip after its token and op <
	 * short_op; the fast loop wants its token before fast_ip and op <
	 * fast_op.
	 */
	unsigned long short_ip, short_op, fast_ip, fast_op;
	/* The fast loop's compares, or-ed: any bit set is a mismatch. */
	u64 diff = 0;

	if (!len || !size)
		return false;
	short_ip = len > LZ4V_SHORT_INPUT ? len - LZ4V_SHORT_INPUT : 0;
	fast_ip = short_ip ? short_ip - 1 : 0;
	short_op = size >= LZ4V_SHORT_OUTPUT ? size - LZ4V_SHORT_OUTPUT + 1 : 0;
	fast_op = size >= LZ4V_FAST_OUTPUT ? size - LZ4V_FAST_OUTPUT + 1 : 0;
	for (;;) {
		unsigned long token, literals, match, offset;

		/*
		 * The fast loop: the decoder's shortcut, and its long
		 * matches with one length byte, far from both ends.  More
		 * than 16 bytes of the block follow each token and 64 of
		 * the page follow op, so the compares may read 16 bytes on
		 * either side, and every end test that a short match could
		 * meet passes: only its offset decides, whichever way the
		 * decoder goes.  Its compares are or-ed into diff and tested
		 * once, when it ends, for no verdict depends on the order:
		 * the walk's bounds never depend on what the compares found.
		 */
		if (ip < fast_ip && op < fast_op) {
			/*
			 * Pointers, not indices: a sequence then takes fewer
			 * instructions, and the loop is bound by its
			 * instructions, not by its chain of loads
			 * (Documentation/performance.md).
			 */
			const u8 *in = src + ip, *at = out + op;
			const u8 *in_end = src + fast_ip;
			const u8 *at_end = out + fast_op;

			do {
				const u8 *from;

				token = *in;
				literals = token >> 4;
				if (unlikely(literals == LZ4V_RUN_MASK))
					break;
				/* Most runs are short: a word, a second past 8. */
				diff |= (lz4v_load(at) ^ lz4v_load(in + 1)) &
					lz4v_keep[0][literals];
				if (unlikely(literals > 8))
					diff |= (lz4v_load(at + 8) ^
						 lz4v_load(in + 9)) &
						lz4v_keep[1][literals];
				at += literals;
				in += literals + 1;
				offset = lz4v_le16(in);
				in += 2;
				/* Either path refuses offset 0 or before the page. */
				if (unlikely(offset - 1 >= (unsigned long)(at - out)))
					return false;
				from = at - offset;
				match = token & LZ4V_RUN_MASK;
				if (likely(match != LZ4V_RUN_MASK)) {
					match += LZ4V_MIN_MATCH;
					diff |= lz4v_diff16(at, from, match);
					if (unlikely(match > 16))
						diff |= lz4v_diff16_all(at + match - 16,
									from + match - 16);
					at += match;
					continue;
				}
				/*
				 * A long match with one length byte, the common
				 * kind: the general path's tests, in short.  Any
				 * other takes them in full.
				 */
				if (unlikely(src + len - in <= LZ4V_LAST_LITERALS ||
					     *in == LZ4V_MORE)) {
					ip = in - src;
					op = at - out;
					goto general_match;
				}
				match += LZ4V_MIN_MATCH + *in++;
				if (unlikely(match + LZ4V_LAST_LITERALS >
					     (unsigned long)(out + size - at)))
					return false;
				diff |= lz4v_diff_long(at, from, match);
				at += match;
			} while (likely(in < in_end && at < at_end));
			ip = in - src;
			op = at - out;
		}
		if (diff)
			return false;

		/*
		 * Never taken: every path below leaves a byte for the next
		 * token.  It keeps the walk inside the block if that is
		 * ever wrong.
		 */
		if (unlikely(ip >= len))
			return false;
		token = src[ip++];
		literals = token >> 4;
		match = token & LZ4V_RUN_MASK;

		if (literals != LZ4V_RUN_MASK && ip < short_ip &&
		    op < short_op) {
			/*
			 * The shortcut near the end of the page, where the
			 * decoder's choice of path decides: at least 32 bytes
			 * of the page follow op, so the compares may read 16
			 * bytes, and the match's 18 bytes at most fit.
			 */
			u64 near = lz4v_diff16(out + op, src + ip, literals);

			op += literals;
			ip += literals;
			offset = lz4v_le16(src + ip);
			ip += 2;
			if (match != LZ4V_RUN_MASK &&
			    offset >= LZ4V_SHORT_MIN_OFFSET && offset <= op) {
				const u8 *from = out + op - offset;

				match += LZ4V_MIN_MATCH;
				near |= lz4v_diff16(out + op, from, match);
				if (match > 16)
					near |= lz4v_diff16_all(out + op + match - 16,
								from + match - 16);
				if (near)
					return false;
				op += match;
				continue;
			}
			if (near)
				return false;
			/* Any other match takes the general path's tests. */
		} else {
			/*
			 * The decoder wants more than 15 bytes of input left
			 * before it reads a literal length byte.
			 */
			if (literals == LZ4V_RUN_MASK &&
			    !lz4v_length(src, len, &ip, LZ4V_RUN_MASK, size,
					 &literals))
				return false;
			if (literals + LZ4V_MF_LIMIT > size - op ||
			    literals + LZ4V_LAST_INPUT > len - ip) {
				/*
				 * The last sequence: its literals must end
				 * both the block and the page.
				 */
				return literals == len - ip &&
				       literals == size - op &&
				       lz4v_same(out + op, src + ip, literals,
						 false);
			}
			/* Not the last: an offset and more follow. */
			if (!lz4v_same(out + op, src + ip, literals,
				       len - ip >= 16 && size - op >= 16))
				return false;
			op += literals;
			ip += literals;
			offset = lz4v_le16(src + ip);
			ip += 2;
		}

		/*
		 * The general match.  An offset of 0 would compare the page
		 * with itself and prove nothing: the format forbids it.
		 */
		if (!offset || offset > op)
			return false;
general_match:
		/* The decoder wants 5 bytes left after each length byte. */
		if (match == LZ4V_RUN_MASK &&
		    !lz4v_length(src, len, &ip, LZ4V_LAST_LITERALS, size,
				 &match))
			return false;
		match += LZ4V_MIN_MATCH;
		if (match + LZ4V_LAST_LITERALS > size - op)
			return false;
		if (!lz4v_same(out + op, out + op - offset, match,
			       size - op >= 16))
			return false;
		op += match;
	}
}
