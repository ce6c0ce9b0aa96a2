/* A module's declarations, which mean nothing in a userspace library. */
#ifndef OZRAM_KERNEL_LZ4_LINUX_MODULE_H
#define OZRAM_KERNEL_LZ4_LINUX_MODULE_H

#define EXPORT_SYMBOL(symbol)
#define MODULE_LICENSE(license)
#define MODULE_DESCRIPTION(description)

#endif
