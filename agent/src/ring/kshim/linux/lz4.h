/* The kernel's LZ4 decoder is liblz4's LZ4_decompress_safe(), same prototype. */
#ifndef OZRAM_KSHIM_LINUX_LZ4_H
#define OZRAM_KSHIM_LINUX_LZ4_H

#include <lz4.h>

#endif
