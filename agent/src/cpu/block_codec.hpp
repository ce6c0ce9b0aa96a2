// One page compressed into one block of a format, with the library made for
// that format, and a block decoded back into one page.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ozram/algorithm.hpp"
#include "ozram/page.hpp"

namespace ozram {

// The most bytes any format takes for one page (LZO1X's worst case, the
// largest of the five): what a caller's scratch buffer must hold.
inline constexpr std::size_t BLOCK_BOUND = PAGE_SIZE + PAGE_SIZE / 16 + 64 + 3;

// A compressor with its working memory: one per thread, no allocation per page.
class BlockCodec {
  public:
    virtual ~BlockCodec() = default;
    // Compresses the PAGE_SIZE bytes at `page` into `dst` (BLOCK_BOUND
    // writable bytes) and returns the block's length.  Every page fits in
    // the bound, so a library that fails throws Error (ENOMEM when it ran
    // out of memory): the page is not incompressible, and must not be
    // answered as a raw page.
    [[nodiscard]] virtual std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) = 0;
};

// `lz4_acceleration` is liblz4's acceleration factor, for Algorithm::Lz4 at
// level 0; `level` any other (CpuConfig::level).
[[nodiscard]] std::unique_ptr<BlockCodec> make_block_codec(Algorithm algorithm,
                                                           int lz4_acceleration, int level = 0);

// Decodes `len` bytes at `src` with the safe decoder of the format; true
// when they give exactly one page, written to `page`.  Never reads past
// `src + len` nor writes outside the page.
[[nodiscard]] bool decompress_block(Algorithm algorithm, const std::uint8_t* src, std::size_t len,
                                    std::uint8_t* page);

}  // namespace ozram
