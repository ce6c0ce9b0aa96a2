/*
 * The kernel's own integer types for kmod/ozram_ring_slots.c, built in
 * userspace.  The userspace <linux/types.h> has only the __u32 kind.
 */
#ifndef OZRAM_KSHIM_LINUX_TYPES_H
#define OZRAM_KSHIM_LINUX_TYPES_H

#include_next <linux/types.h>

#ifndef __cplusplus
#include <stdbool.h>
#endif

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#endif
