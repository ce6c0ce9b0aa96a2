/* Section annotations, which mean nothing in a userspace library. */
#ifndef OZRAM_KERNEL_LZ4_LINUX_INIT_H
#define OZRAM_KERNEL_LZ4_LINUX_INIT_H

#define __init
#define __exit

#endif
