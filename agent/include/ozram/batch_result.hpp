// The result of compressing one batch: the pages, their bytes and the timings.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ozram/backend_kind.hpp"
#include "ozram/page.hpp"

namespace ozram {

// A BatchResult owns the compressed bytes of a batch.  Page i's bytes are
// payload[pages[i].offset, +pages[i].size), except after compress_into(),
// which leaves them in the caller's buffers and the payload empty.  The CPU
// backends write page i at offset i * PAGE_SIZE; the GPU backend packs the
// pages' bytes one after the other.  Either way a BatchResult reused across
// batches of the same size keeps its capacity and does not reallocate: pass
// the same object to compress() again.
struct BatchResult {
    std::vector<CompressedPage> pages;
    std::vector<std::uint8_t> payload;

    // Per-stage times.  The CPU backends report their whole time as
    // kernel_time_ns and zero transfers; the GPU backend measures each stage
    // with CUDA events.
    std::uint64_t h2d_time_ns = 0;
    std::uint64_t kernel_time_ns = 0;
    std::uint64_t d2h_time_ns = 0;
    std::uint64_t total_time_ns = 0;  // wall clock, call to return

    // The backend that compressed the batch: the CPU's when a GPU batch
    // fell back to it.
    Backend backend = Backend::Scalar;

    [[nodiscard]] std::span<const std::uint8_t> bytes(const CompressedPage& page) const {
        return std::span<const std::uint8_t>(payload).subspan(page.offset, page.size);
    }
    [[nodiscard]] std::size_t input_bytes() const { return pages.size() * PAGE_SIZE; }

    // Empties the result for a batch of n pages, keeping capacity.
    void reset(std::size_t n);
    // The same for a batch whose bytes go to the caller's buffers
    // (PageCompressor::compress_into()): the payload is emptied too.
    void reset_without_payload(std::size_t n);
};

}  // namespace ozram
