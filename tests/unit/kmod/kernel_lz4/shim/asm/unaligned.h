/* 6.1's name for <linux/unaligned.h>. */
#include <linux/unaligned.h>
