// The parameters with which the kernel makes a zstd frame of a page, set on
// a libzstd context: shared by the agent's zstd codec and the benchmark's
// libzstd reference, so that both make the frames the kernel would.
#pragma once

#include <zstd.h>

namespace ozram::codecs {

// Resets `context` and sets on it, one call for each, the parameters that
// the kernel's zstd sets (lib/zstd's zstd_cctx_init()): level 3's for an
// unknown source size at `level` 0, as crypto/zstd.c asks for them; at
// another level that level's for a page, as ozram.ko and zram 6.12 ask.
// False where libzstd refuses one.
[[nodiscard]] bool set_kernel_zstd_parameters(ZSTD_CCtx* context, int level);

}  // namespace ozram::codecs
