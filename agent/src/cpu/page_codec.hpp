// One page in, one page out: zram's three storage forms for a single page.
// The CPU backends run these over their share of a batch; the GPU backend's
// fallback pages take the same path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "cpu/block_codec.hpp"
#include "ozram/algorithm.hpp"
#include "ozram/batch_result.hpp"
#include "ozram/page.hpp"

namespace ozram {

// Encodes pages one at a time in one format.  Holds that format's working
// memory, so each worker thread owns one encoder and no page allocates.
class PageEncoder {
  public:
    // huge_threshold in [1, PAGE_SIZE]: the largest block kept; a page whose
    // compressed form is longer is stored raw (zram: comp_len >=
    // huge_class_size, with huge_threshold = huge_class_size - 1).
    PageEncoder(std::size_t huge_threshold, int lz4_acceleration,
                Algorithm algorithm = Algorithm::Lz4, int level = 0);
    ~PageEncoder();
    PageEncoder(PageEncoder&&) noexcept;
    PageEncoder& operator=(PageEncoder&&) noexcept;

    // Encodes `page` and says how it is stored; the caller sets the returned
    // page's offset.  A compressed block is written to `slot` (PAGE_SIZE
    // writable bytes).  A Raw page's bytes are `page` itself and are not
    // copied: the caller copies them where it needs them.  Throws Error
    // when the codec's library fails (BlockCodec::compress).
    [[nodiscard]] CompressedPage encode(const std::uint8_t* page, std::uint8_t* slot);

  private:
    struct Scratch;
    std::unique_ptr<BlockCodec> codec_;
    std::unique_ptr<Scratch> scratch_;
    std::size_t threshold_;
    PageEncoding compressed_;  // Lz4 for LZ4, Compressed for the other formats
};

// Restores batch.pages[index], compressed in `algorithm`, into the PAGE_SIZE
// bytes at `page`.  Throws Error(EIO, "page N: ...") when the entry or its
// bytes are inconsistent; never reads outside the payload nor writes outside
// `page`.
void decode_page(const BatchResult& batch, std::size_t index, std::uint8_t* page,
                 Algorithm algorithm = Algorithm::Lz4);

}  // namespace ozram
