/*
 * __ffs() and __fls() for lib/lz4 in userspace: the index of the lowest
 * and of the highest bit set in a word that is not zero.
 */
#ifndef OZRAM_KERNEL_LZ4_LINUX_BITOPS_H
#define OZRAM_KERNEL_LZ4_LINUX_BITOPS_H

#include <limits.h>

#define BITS_PER_LONG (CHAR_BIT * (int)sizeof(long))

static inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

static inline unsigned long __fls(unsigned long word)
{
	return BITS_PER_LONG - 1 - __builtin_clzl(word);
}

#endif
