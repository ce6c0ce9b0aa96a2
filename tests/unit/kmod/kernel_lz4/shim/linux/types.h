/*
 * What lib/lz4 takes from the kernel's <linux/types.h> and from the
 * compiler flags every kernel file is built with: the fixed-width and
 * pointer-sized integers, bool, and the annotations of <linux/compiler.h>.
 */
#ifndef OZRAM_KERNEL_LZ4_LINUX_TYPES_H
#define OZRAM_KERNEL_LZ4_LINUX_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include <linux/compiler.h>
#include_next <linux/types.h>

#endif
