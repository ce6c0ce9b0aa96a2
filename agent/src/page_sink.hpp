// Where a backend writes the compressed bytes of each page of a batch: the
// result's own payload (PageCompressor::compress()), or buffers the caller
// owns (PageCompressor::compress_into(): the ring's output slots), so that no
// copy lies between a compressor and where its bytes are wanted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ozram/batch_result.hpp"

namespace ozram {

class PageSink {
  public:
    // Page i's bytes go to result.payload at i * PAGE_SIZE; the payload must
    // already hold a page per page of the batch (BatchResult::reset()).
    [[nodiscard]] static PageSink payload(BatchResult& result) {
        return PageSink(result.payload.data(), {});
    }
    // Page i's bytes go to outputs[i], PAGE_SIZE writable bytes each.
    [[nodiscard]] static PageSink buffers(std::span<std::uint8_t* const> outputs) {
        return PageSink(nullptr, outputs);
    }

    [[nodiscard]] std::uint8_t* slot(std::size_t i) const {
        return payload_ != nullptr ? payload_ + i * PAGE_SIZE : outputs_[i];
    }
    // The CompressedPage::offset of page i: where its bytes lie in the payload,
    // or 0 when they lie in a buffer of their own.
    [[nodiscard]] std::uint32_t offset(std::size_t i) const {
        return payload_ != nullptr ? static_cast<std::uint32_t>(i * PAGE_SIZE) : 0;
    }
    // A raw page's bytes are the page itself.  The payload must hold them (a
    // BatchResult stands on its own); a caller's buffers need not, since the
    // caller has the page.
    [[nodiscard]] bool copies_raw() const { return payload_ != nullptr; }

  private:
    PageSink(std::uint8_t* payload, std::span<std::uint8_t* const> outputs)
        : payload_(payload), outputs_(outputs) {}

    std::uint8_t* payload_;
    std::span<std::uint8_t* const> outputs_;
};

}  // namespace ozram
