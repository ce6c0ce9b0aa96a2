// LZ4 and LZ4HC blocks with liblz4: both are the LZ4 block format, which the
// kernel's lz4 and lz4hc algorithms decode alike.
//
// LZ4HC resets its state fast: LZ4_compress_HC_extStateHC() clears all of its
// 256 KiB state before every 4 KiB page. The fast-reset call is in liblz4's
// static-linking API, which the static liblz4 this project links provides.
// LZ4 has no such gain: liblz4 clears its 16 KiB hash table for any input of
// 4 KiB or more, whichever call compresses it.
#define LZ4_HC_STATIC_LINKING_ONLY
#include <lz4.h>
#include <lz4hc.h>

#include <climits>
#include <string>

#include "cpu/codecs.hpp"
#include "ozram/error.hpp"

namespace ozram::codecs {
namespace {

static_assert(LZ4_COMPRESSBOUND(PAGE_SIZE) <= BLOCK_BOUND);

// With room for the bound, liblz4 has no reason to give up on a page.
std::size_t checked_length(int length, const char* codec) {
    if (length <= 0) {
        throw Error(EIO, std::string(codec) + " cannot compress a page");
    }
    return static_cast<std::size_t>(length);
}

class Lz4Codec final : public BlockCodec {
  public:
    explicit Lz4Codec(int acceleration) : acceleration_(acceleration) {}
    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) override {
        // The state is reused for every page: no allocation.
        const int length = LZ4_compress_fast_extState(
            &state_, reinterpret_cast<const char*>(page), reinterpret_cast<char*>(dst),
            static_cast<int>(PAGE_SIZE), static_cast<int>(BLOCK_BOUND), acceleration_);
        return checked_length(length, "liblz4");
    }

  private:
    LZ4_stream_t state_{};
    int acceleration_;
};

// The kernel's lz4hc compresses at LZ4HC_DEFAULT_CLEVEL, liblz4's default,
// unless the device chose a level.
class Lz4hcCodec final : public BlockCodec {
  public:
    explicit Lz4hcCodec(int level) : level_(level != 0 ? level : LZ4HC_CLEVEL_DEFAULT) {
        LZ4_initStreamHC(&state_, sizeof(state_));
    }
    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) override {
        const int length = LZ4_compress_HC_extStateHC_fastReset(
            &state_, reinterpret_cast<const char*>(page), reinterpret_cast<char*>(dst),
            static_cast<int>(PAGE_SIZE), static_cast<int>(BLOCK_BOUND), level_);
        return checked_length(length, "liblz4 (HC)");
    }

  private:
    LZ4_streamHC_t state_{};
    int level_;
};

}  // namespace

std::unique_ptr<BlockCodec> make_lz4(int acceleration) {
    return std::make_unique<Lz4Codec>(acceleration);
}

std::unique_ptr<BlockCodec> make_lz4hc(int level) {
    return std::make_unique<Lz4hcCodec>(level);
}

bool decompress_lz4(const std::uint8_t* src, std::size_t len, std::uint8_t* page) {
    if (len == 0 || len > INT_MAX) {
        return false;
    }
    return LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(page),
                               static_cast<int>(len),
                               static_cast<int>(PAGE_SIZE)) == static_cast<int>(PAGE_SIZE);
}

}  // namespace ozram::codecs
