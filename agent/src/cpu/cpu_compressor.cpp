// CpuCompressor: splits a batch over the pool; each page goes through the
// single-page codec into its own slot of the result.
#include "cpu/cpu_compressor.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>

#include "ozram/error.hpp"

namespace ozram {
namespace {

// Below this many pages per participant a batch is not worth a wake-up: a
// page takes a few microseconds, about what waking a sleeping thread costs.
constexpr std::size_t MIN_PAGES_PER_CHUNK = 16;
// Chunks per participant: enough to even out fast (same-filled) and slow
// (incompressible) stretches of a batch, few enough to keep claiming cheap.
constexpr std::size_t CHUNKS_PER_PARTICIPANT = 4;
// But never more pages than this per chunk: pages of one stretch of memory
// cost alike and the next stretch differently, so large chunks finish at
// uneven times and the thread with the last one works alone at the end of
// the batch.  32 pages take ~100 us; a claim is one atomic add.  (Measured:
// 0.94x -> 0.98x of a plain 2-thread liblz4 fan-out at 1024-page batches,
// 0.91x -> 0.94x at 16384; see Documentation/performance.md.)
constexpr std::size_t MAX_PAGES_PER_CHUNK = 32;
// The last page's offset must fit CompressedPage::offset.
constexpr std::size_t MAX_BATCH_PAGES = std::numeric_limits<std::uint32_t>::max() / PAGE_SIZE;
// Batches in flight: the seeds' pipeline depth, as the GPU backend's.
constexpr std::size_t BATCHES_IN_FLIGHT = 4;

std::uint64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now() - since)
                                          .count());
}

}  // namespace

CpuCompressor::CpuCompressor(Backend backend, const CpuConfig& config)
    : backend_(backend),
      algorithm_(config.algorithm),
      pool_(backend == Backend::Scalar ? 1 : config.threads),
      runner_(
          BATCHES_IN_FLIGHT,
          [](void* self, std::span<const std::uint8_t* const> pages,
             std::span<std::uint8_t* const> outputs, BatchResult& out) {
              static_cast<CpuCompressor*>(self)->compress_into_now(pages, outputs, out);
          },
          this) {
    encoders_.reserve(pool_.participants());
    for (unsigned i = 0; i < pool_.participants(); ++i) {
        encoders_.emplace_back(config.huge_threshold, config.lz4_acceleration, config.algorithm,
                               config.level);
    }
}

std::size_t CpuCompressor::grain(std::size_t pages) const {
    const std::size_t chunks = std::size_t{pool_.participants()} * CHUNKS_PER_PARTICIPANT;
    return std::clamp((pages + chunks - 1) / chunks, MIN_PAGES_PER_CHUNK, MAX_PAGES_PER_CHUNK);
}

void CpuCompressor::compress(std::span<const std::uint8_t* const> pages, BatchResult& out) {
    runner_.wait_idle();
    const auto start = std::chrono::steady_clock::now();
    // Page offsets are 32-bit (CompressedPage::offset): about a million pages.
    if (pages.size() > MAX_BATCH_PAGES) {
        throw Error(EINVAL, "compress: batch of " + std::to_string(pages.size()) +
                                " pages exceeds the limit of " + std::to_string(MAX_BATCH_PAGES));
    }
    out.reset(pages.size());
    encode_batch(pages, PageSink::payload(out), out);
    out.total_time_ns = elapsed_ns(start);
    out.kernel_time_ns = out.total_time_ns;
    out.backend = backend_;
}

void CpuCompressor::compress_into(std::span<const std::uint8_t* const> pages,
                                  std::span<std::uint8_t* const> outputs, BatchResult& out) {
    runner_.wait_idle();
    compress_into_now(pages, outputs, out);
}

PageCompressor::Ticket CpuCompressor::submit(std::span<const std::uint8_t* const> pages,
                                             std::span<std::uint8_t* const> outputs,
                                             BatchResult& out) {
    return runner_.submit(pages, outputs, out);
}

bool CpuCompressor::poll(Ticket ticket) {
    return runner_.poll(ticket);
}

void CpuCompressor::complete(Ticket ticket) {
    runner_.complete(ticket);
}

void CpuCompressor::compress_into_now(std::span<const std::uint8_t* const> pages,
                                      std::span<std::uint8_t* const> outputs, BatchResult& out) {
    const auto start = std::chrono::steady_clock::now();
    if (outputs.size() != pages.size()) {
        throw Error(EINVAL, "compress_into: " + std::to_string(pages.size()) + " pages but " +
                                std::to_string(outputs.size()) + " outputs");
    }
    out.reset_without_payload(pages.size());
    encode_batch(pages, PageSink::buffers(outputs), out);
    out.total_time_ns = elapsed_ns(start);
    out.kernel_time_ns = out.total_time_ns;
    out.backend = backend_;
}

void CpuCompressor::encode_batch(std::span<const std::uint8_t* const> pages, const PageSink& sink,
                                 BatchResult& out) {
    pool_.parallel_for(
        pages.size(), grain(pages.size()), [&](std::size_t begin, std::size_t end, unsigned slot) {
            PageEncoder& encoder = encoders_[slot];
            for (std::size_t i = begin; i < end; ++i) {
                if (pages[i] == nullptr) {
                    throw Error(EINVAL, "page " + std::to_string(i) + ": null page pointer");
                }
                std::uint8_t* const bytes = sink.slot(i);
                if (bytes == nullptr) {
                    throw Error(EINVAL, "page " + std::to_string(i) + ": null output pointer");
                }
                CompressedPage page = encoder.encode(pages[i], bytes);
                if (page.encoding == PageEncoding::Raw && sink.copies_raw()) {
                    std::memcpy(bytes, pages[i], PAGE_SIZE);
                }
                page.offset = sink.offset(i);
                out.pages[i] = page;
            }
        });
}

void CpuCompressor::decompress(const BatchResult& in, std::span<std::uint8_t* const> pages) {
    runner_.wait_idle();
    if (pages.size() != in.pages.size()) {
        throw Error(EINVAL, "decompress: " + std::to_string(in.pages.size()) +
                                " compressed pages but " + std::to_string(pages.size()) +
                                " destination pages");
    }
    pool_.parallel_for(
        pages.size(), grain(pages.size()), [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t i = begin; i < end; ++i) {
                if (pages[i] == nullptr) {
                    throw Error(EINVAL, "page " + std::to_string(i) + ": null destination pointer");
                }
                decode_page(in, i, pages[i], algorithm_);
            }
        });
}

}  // namespace ozram
