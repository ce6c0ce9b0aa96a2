// zstd frames with libzstd, made as the kernel's zstd algorithm makes them:
// crypto/zstd.c asks for level 3's parameters for an unknown source size
// (zstd_get_params(3, 0)), and lib/zstd's zstd_compress_cctx() sets each of
// them on a reset context, pledges the page's size and calls ZSTD_compress2.
// Here the parameters are set once, when the context is made: libzstd keeps
// them across frames, and ZSTD_compress2 given a whole page pledges its size
// itself, so each page gets the frame the kernel's calls would give it,
// without ten parameter calls and a full reset per page.  At a level the
// device chose (algorithm_params), the module and zram 6.12 ask for that
// level's parameters for a page (zstd_get_params(level, PAGE_SIZE)): so
// does this codec.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getParams
#include <zstd.h>
#include <zstd_errors.h>

#include <memory>
#include <string>
#include <utility>

#include "cpu/codecs.hpp"
#include "cpu/zstd_parameters.hpp"
#include "ozram/error.hpp"

namespace ozram::codecs {
namespace {

constexpr int KERNEL_ZSTD_LEVEL = 3;

static_assert(ZSTD_COMPRESSBOUND(PAGE_SIZE) <= BLOCK_BOUND);

class ZstdCodec final : public BlockCodec {
  public:
    explicit ZstdCodec(int level) : context_(ZSTD_createCCtx()) {
        if (context_ == nullptr) {
            throw Error(ENOMEM, "libzstd: no memory for a compression context");
        }
        if (!set_kernel_zstd_parameters(context_, level)) {
            ZSTD_freeCCtx(context_);
            throw Error(EINVAL, "libzstd refused the kernel's zstd parameters");
        }
    }
    ~ZstdCodec() override { ZSTD_freeCCtx(context_); }
    ZstdCodec(const ZstdCodec&) = delete;
    ZstdCodec& operator=(const ZstdCodec&) = delete;

    // ZSTD_compress2 starts a new frame on the context (a session reset) and
    // keeps the parameters.
    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) override {
        const std::size_t length = ZSTD_compress2(context_, dst, BLOCK_BOUND, page, PAGE_SIZE);
        if (ZSTD_isError(length)) {
            // The context's workspace is allocated by the first frame.
            const bool memory = ZSTD_getErrorCode(length) == ZSTD_error_memory_allocation;
            throw Error(memory ? ENOMEM : EIO, std::string("libzstd cannot compress a page: ") +
                                                   ZSTD_getErrorName(length));
        }
        return length;
    }

  private:
    ZSTD_CCtx* context_;
};

}  // namespace

// The page's size is not set here: each ZSTD_compress2 pledges it.
bool set_kernel_zstd_parameters(ZSTD_CCtx* context, int level) {
    const ZSTD_parameters params =
        level == 0 ? ZSTD_getParams(KERNEL_ZSTD_LEVEL, 0, 0) : ZSTD_getParams(level, PAGE_SIZE, 0);
    const ZSTD_compressionParameters& c = params.cParams;
    const ZSTD_frameParameters& f = params.fParams;
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
    if (ZSTD_isError(ZSTD_CCtx_reset(context, ZSTD_reset_session_and_parameters))) {
        return false;
    }
    for (const auto& [parameter, value] : settings) {
        if (ZSTD_isError(ZSTD_CCtx_setParameter(context, parameter, value))) {
            return false;
        }
    }
    return true;
}

std::unique_ptr<BlockCodec> make_zstd(int level) {
    return std::make_unique<ZstdCodec>(level);
}

// ZSTD_decompress would allocate and free a decoding context of some 100 KiB
// for every page; each thread keeps one instead.
bool decompress_zstd(const std::uint8_t* src, std::size_t len, std::uint8_t* page) {
    struct FreeDCtx {
        void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
    };
    thread_local const std::unique_ptr<ZSTD_DCtx, FreeDCtx> context(ZSTD_createDCtx());
    if (context == nullptr) {
        return false;
    }
    const std::size_t out = ZSTD_decompressDCtx(context.get(), page, PAGE_SIZE, src, len);
    return !ZSTD_isError(out) && out == PAGE_SIZE;
}

}  // namespace ozram::codecs
