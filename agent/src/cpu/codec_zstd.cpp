// zstd frames with libzstd, made with the parameters the kernel's zstd
// algorithm uses (crypto/zstd.c: level 3, parameters chosen for an unknown
// source size), so that the agent's pages take what the kernel's would.
// ZSTD_getParams and ZSTD_compress_advanced are the very calls the kernel's
// zstd_compress_cctx() makes; libzstd marks the second deprecated in favour
// of ZSTD_compress2, whose parameters would have to be set one by one to
// reach the same frame.
#define ZSTD_STATIC_LINKING_ONLY
#define ZSTD_DISABLE_DEPRECATE_WARNINGS
#include <zstd.h>

#include "cpu/codecs.hpp"
#include "ozram/error.hpp"

namespace ozram::codecs {
namespace {

constexpr int KERNEL_ZSTD_LEVEL = 3;

static_assert(ZSTD_COMPRESSBOUND(PAGE_SIZE) <= BLOCK_BOUND);

class ZstdCodec final : public BlockCodec {
  public:
    ZstdCodec() : context_(ZSTD_createCCtx()), params_(ZSTD_getParams(KERNEL_ZSTD_LEVEL, 0, 0)) {
        if (context_ == nullptr) {
            throw Error(ENOMEM, "libzstd: no memory for a compression context");
        }
    }
    ~ZstdCodec() override { ZSTD_freeCCtx(context_); }
    ZstdCodec(const ZstdCodec&) = delete;
    ZstdCodec& operator=(const ZstdCodec&) = delete;

    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) override {
        const std::size_t length = ZSTD_compress_advanced(context_, dst, BLOCK_BOUND, page,
                                                          PAGE_SIZE, nullptr, 0, params_);
        return ZSTD_isError(length) ? 0 : length;
    }

  private:
    ZSTD_CCtx* context_;
    ZSTD_parameters params_;
};

}  // namespace

std::unique_ptr<BlockCodec> make_zstd() {
    return std::make_unique<ZstdCodec>();
}

bool decompress_zstd(const std::uint8_t* src, std::size_t len, std::uint8_t* page) {
    const std::size_t out = ZSTD_decompress(page, PAGE_SIZE, src, len);
    return !ZSTD_isError(out) && out == PAGE_SIZE;
}

}  // namespace ozram::codecs
