// The result of compressing one batch: the pages, their bytes and the timings.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ozram/page.hpp"

namespace ozram {

// A BatchResult owns the compressed bytes of a batch.  Page i's bytes are
// payload[pages[i].offset, +pages[i].size).  Backends write page i at offset
// i * PAGE_SIZE, so a BatchResult reused across batches of the same size never
// reallocates: pass the same object to compress() again.
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

    // What the calibrated cost model predicts the CPU would have taken for the
    // same pages (0 when unknown); see pcie_rule_satisfied().
    std::uint64_t cpu_estimate_ns = 0;

    [[nodiscard]] std::span<const std::uint8_t> bytes(const CompressedPage& page) const {
        return std::span<const std::uint8_t>(payload).subspan(page.offset, page.size);
    }
    [[nodiscard]] std::size_t input_bytes() const { return pages.size() * PAGE_SIZE; }
    [[nodiscard]] std::size_t stored_bytes() const;

    // input_bytes / total_time, in bytes per second; 0 when no time was taken.
    [[nodiscard]] double throughput_bytes_per_sec(std::size_t input_bytes) const;
    // input bytes / stored bytes (> 1 means smaller); same-filled pages store
    // nothing, so an all-same-filled batch reports +infinity; 0 when empty.
    [[nodiscard]] double compression_ratio() const;
    // Whether offloading this batch paid: its measured end-to-end time beat the
    // cost model's CPU estimate for the same pages.  The seed's "compute > 5x
    // transfer" test cancels the page count; see Documentation/cost-model.md.
    [[nodiscard]] bool pcie_rule_satisfied() const;

    // Empties the result for a batch of n pages, keeping capacity.
    void reset(std::size_t n);
};

}  // namespace ozram
