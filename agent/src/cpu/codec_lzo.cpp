// LZO1X blocks with liblzo2.  The kernel's lzo algorithm is LZO1X-1.  Its
// lzo-rle adds run-length codes, marked by a stream that starts with byte 17
// and a version byte; a plain LZO1X stream never starts with 17 (its first
// code is a literal run, 18 and up, or 0 for a long one), and the kernel's
// decoder (lzo1x_decompress_safe, shared by both algorithms) reads it as
// version 0.  So LZO1X-1 output serves both names; it lacks only the RLE
// codes, which matter for long runs of zeroes.
#include <lzo/lzo1x.h>

#include <array>
#include <mutex>
#include <string>

#include "cpu/codecs.hpp"
#include "ozram/error.hpp"

namespace ozram::codecs {
namespace {

void init_lzo_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (lzo_init() != LZO_E_OK) {
            throw Error(EIO, "liblzo2 failed its start-up checks (lzo_init)");
        }
    });
}

class LzoCodec final : public BlockCodec {
  public:
    LzoCodec() { init_lzo_once(); }
    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) override {
        lzo_uint length = BLOCK_BOUND;
        if (const int status = lzo1x_1_compress(page, PAGE_SIZE, dst, &length, work_.data());
            status != LZO_E_OK) {
            throw Error(EIO, "liblzo2 cannot compress a page: error " + std::to_string(status));
        }
        return length;
    }

  private:
    // lzo_align_t keeps the work memory aligned as liblzo2 wants it.
    std::array<lzo_align_t, (LZO1X_1_MEM_COMPRESS + sizeof(lzo_align_t) - 1) / sizeof(lzo_align_t)>
        work_{};
};

}  // namespace

std::unique_ptr<BlockCodec> make_lzo() {
    return std::make_unique<LzoCodec>();
}

bool decompress_lzo(const std::uint8_t* src, std::size_t len, std::uint8_t* page) {
    init_lzo_once();
    lzo_uint out = PAGE_SIZE;
    return len > 0 && lzo1x_decompress_safe(src, len, page, &out, nullptr) == LZO_E_OK &&
           out == PAGE_SIZE;
}

}  // namespace ozram::codecs
