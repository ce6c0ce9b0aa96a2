// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own LZ4 decoder, lib/lz4/lz4_decompress.c of a Debian
 * linux-source tree, built for userspace: the decoder that reads ozram's
 * objects back, against which the tests hold the module's LZ4 check.
 *
 * The build names the kernel (OZRAM_KERNEL_LZ4_ID, such as 6_1).  Every
 * function the file exports is renamed after it, so that the decoders of
 * several kernels link beside liblz4, whose functions have the same names.
 */
#define OZRAM_KERNEL_LZ4_PASTE(id, name) ozram_kernel_lz4_##id##_##name
#define OZRAM_KERNEL_LZ4_NAME(id, name) OZRAM_KERNEL_LZ4_PASTE(id, name)
#define OZRAM_KERNEL_LZ4(name) OZRAM_KERNEL_LZ4_NAME(OZRAM_KERNEL_LZ4_ID, name)

#define LZ4_decompress_safe OZRAM_KERNEL_LZ4(decompress_safe)
#define LZ4_decompress_safe_partial OZRAM_KERNEL_LZ4(decompress_safe_partial)
#define LZ4_decompress_fast OZRAM_KERNEL_LZ4(decompress_fast)
#define LZ4_setStreamDecode OZRAM_KERNEL_LZ4(setStreamDecode)
#define LZ4_decompress_safe_continue OZRAM_KERNEL_LZ4(decompress_safe_continue)
#define LZ4_decompress_fast_continue OZRAM_KERNEL_LZ4(decompress_fast_continue)
#define LZ4_decompress_safe_usingDict OZRAM_KERNEL_LZ4(decompress_safe_usingDict)
#define LZ4_decompress_fast_usingDict OZRAM_KERNEL_LZ4(decompress_fast_usingDict)

#include "lz4_decompress.c"
