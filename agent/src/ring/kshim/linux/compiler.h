/*
 * __always_inline, likely() and unlikely() for the module's C built in userspace
 * (kmod/ozram_lz4_verify.c).
 */
#ifndef OZRAM_KSHIM_LINUX_COMPILER_H
#define OZRAM_KSHIM_LINUX_COMPILER_H

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#endif
