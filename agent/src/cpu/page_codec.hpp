// One page in, one page out: zram's three storage forms for a single page.
// The CPU backends run these over their share of a batch; the GPU backend's
// fallback pages take the same path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ozram/batch_result.hpp"
#include "ozram/page.hpp"

namespace ozram {

// Encodes pages one at a time.  Holds one LZ4 state, so each worker thread
// owns one encoder and no page allocates.
class PageEncoder {
  public:
    // huge_threshold in [1, PAGE_SIZE]: the largest LZ4 block kept; a page
    // whose LZ4 form is longer is stored raw (zram: comp_len >= huge_class_size,
    // with huge_threshold = huge_class_size - 1).
    PageEncoder(std::size_t huge_threshold, int lz4_acceleration);
    ~PageEncoder();
    PageEncoder(PageEncoder&&) noexcept;
    PageEncoder& operator=(PageEncoder&&) noexcept;

    // Encodes `page` into `slot` (PAGE_SIZE writable bytes) and says how it is
    // stored; the caller sets the returned page's offset.
    [[nodiscard]] CompressedPage encode(const std::uint8_t* page, std::uint8_t* slot);

  private:
    struct Lz4State;
    std::unique_ptr<Lz4State> state_;
    std::size_t threshold_;
    int acceleration_;
};

// Restores batch.pages[index] into the PAGE_SIZE bytes at `page`.  Throws
// Error(EIO, "page N: ...") when the entry or its bytes are inconsistent; never
// reads outside the payload nor writes outside `page`.
void decode_page(const BatchResult& batch, std::size_t index, std::uint8_t* page);

}  // namespace ozram
