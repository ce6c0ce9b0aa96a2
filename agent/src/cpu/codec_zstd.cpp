// zstd frames with libzstd, made as the kernel's zstd algorithm makes them:
// crypto/zstd.c asks for level 3's parameters for an unknown source size
// (zstd_get_params(3, 0)), and lib/zstd's zstd_compress_cctx() sets each of
// them on a reset context, pledges the page's size and calls ZSTD_compress2.
// The same calls here give the agent's pages what the kernel's would take.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getParams
#include <zstd.h>

#include <utility>

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
        if (!set_up()) {
            return 0;
        }
        const std::size_t length = ZSTD_compress2(context_, dst, BLOCK_BOUND, page, PAGE_SIZE);
        return ZSTD_isError(length) ? 0 : length;
    }

  private:
    // zstd_cctx_init() of Linux 6.1, call for call.
    bool set_up() {
        const ZSTD_compressionParameters& c = params_.cParams;
        const ZSTD_frameParameters& f = params_.fParams;
        const std::pair<ZSTD_cParameter, int> settings[] = {
            {ZSTD_c_windowLog, static_cast<int>(c.windowLog)},
            {ZSTD_c_hashLog, static_cast<int>(c.hashLog)},
            {ZSTD_c_chainLog, static_cast<int>(c.chainLog)},
            {ZSTD_c_searchLog, static_cast<int>(c.searchLog)},
            {ZSTD_c_minMatch, static_cast<int>(c.minMatch)},
            {ZSTD_c_targetLength, static_cast<int>(c.targetLength)},
            {ZSTD_c_strategy, static_cast<int>(c.strategy)},
            {ZSTD_c_contentSizeFlag, f.contentSizeFlag},
            {ZSTD_c_checksumFlag, f.checksumFlag},
            {ZSTD_c_dictIDFlag, !f.noDictIDFlag},
        };
        if (ZSTD_isError(ZSTD_CCtx_reset(context_, ZSTD_reset_session_and_parameters)) ||
            ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(context_, PAGE_SIZE))) {
            return false;
        }
        for (const auto& [parameter, value] : settings) {
            if (ZSTD_isError(ZSTD_CCtx_setParameter(context_, parameter, value))) {
                return false;
            }
        }
        return true;
    }

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
