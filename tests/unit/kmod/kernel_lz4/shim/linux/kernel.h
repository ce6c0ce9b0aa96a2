/* min() and BUILD_BUG_ON() for lib/lz4 in userspace. */
#ifndef OZRAM_KERNEL_LZ4_LINUX_KERNEL_H
#define OZRAM_KERNEL_LZ4_LINUX_KERNEL_H

#define min(a, b) ((a) < (b) ? (a) : (b))
#define BUILD_BUG_ON(condition) _Static_assert(!(condition), #condition)

#endif
