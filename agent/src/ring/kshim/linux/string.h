/* memcmp() and memcpy() for kmod/ozram_ring_slots.c in userspace. */
#ifndef OZRAM_KSHIM_LINUX_STRING_H
#define OZRAM_KSHIM_LINUX_STRING_H

#include <string.h>

#endif
