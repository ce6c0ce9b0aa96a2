/*
 * The unaligned loads and stores of lib/lz4, for a little-endian host:
 * <linux/unaligned.h> on 6.12, <asm/unaligned.h> on 6.1.  A memcpy() of
 * the object's size is what the kernel's own versions compile to.
 */
#ifndef OZRAM_KERNEL_LZ4_LINUX_UNALIGNED_H
#define OZRAM_KERNEL_LZ4_LINUX_UNALIGNED_H

#include <string.h>

#include <linux/types.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the kernel's LZ4 decoder is built here for little-endian hosts only"
#endif
/* What <asm/byteorder.h> says on a little-endian kernel. */
#ifndef __LITTLE_ENDIAN
#define __LITTLE_ENDIAN 1234
#endif

#define get_unaligned(ptr)                                             \
	({                                                             \
		__typeof__(*(ptr)) value_;                             \
		memcpy(&value_, (ptr), sizeof(value_));                \
		value_;                                                \
	})

#define put_unaligned(value, ptr)                                      \
	do {                                                           \
		__typeof__(*(ptr)) value_ = (value);                   \
		memcpy((ptr), &value_, sizeof(value_));                \
	} while (0)

static inline __u16 get_unaligned_le16(const void *p)
{
	return get_unaligned((const __u16 *)p);
}

static inline void put_unaligned_le16(__u16 value, void *p)
{
	put_unaligned(value, (__u16 *)p);
}

#endif
