#include "drain_loop.hpp"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "log.hpp"
#include "ozram/error.hpp"
#include "ozram/gpu.hpp"

namespace ozram::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// How often a waiting loop looks at the shared indices again: short enough
// against a 200 us flush timeout, long enough not to burn a core.
constexpr std::chrono::microseconds POLL_STEP{20};
// How long completions wait for CQ room before they are dropped (the
// producer then takes the slots back by its timeout).
constexpr std::chrono::seconds CQ_ROOM_TIMEOUT{1};

// The library's pages are the ring's slots.
static_assert(PAGE_SIZE == OZRAM_RING_PAGE_SIZE);
// A submission's algorithm is the library's Algorithm of the same number.
static_assert(static_cast<int>(Algorithm::Lz4) == OZRAM_RING_ALG_LZ4);
static_assert(static_cast<int>(Algorithm::Lz4hc) == OZRAM_RING_ALG_LZ4HC);
static_assert(static_cast<int>(Algorithm::Lzo) == OZRAM_RING_ALG_LZO);
static_assert(static_cast<int>(Algorithm::LzoRle) == OZRAM_RING_ALG_LZO_RLE);
static_assert(static_cast<int>(Algorithm::Zstd) == OZRAM_RING_ALG_ZSTD);
static_assert(ALGORITHM_COUNT == OZRAM_RING_ALG_NR);

// The one place where a PageEncoding becomes the ring's enum
// ozram_ring_encoding.  PageEncoding keeps values of its own (the CUDA
// kernels write them into their descriptors) so that the library and its
// kernels do not depend on the ring's ABI header.
std::uint32_t ring_encoding(PageEncoding encoding) {
    switch (encoding) {
        case PageEncoding::Lz4:
            return OZRAM_RING_ENC_LZ4;
        case PageEncoding::Raw:
            return OZRAM_RING_ENC_RAW;
        case PageEncoding::SameFilled:
            return OZRAM_RING_ENC_SAME_FILLED;
        case PageEncoding::Compressed:
            return OZRAM_RING_ENC_COMPRESSED;
    }
    return 0;
}

// Batches the GPU backend handed to the CPU so far (0 for other compressors).
std::uint64_t gpu_fallbacks(const PageCompressor& compressor) {
    const auto* gpu = dynamic_cast<const GpuBatchCompressor*>(&compressor);
    return gpu ? gpu->fallback_batches() : 0;
}

}  // namespace

DrainLoop::DrainLoop(ring::RingTransport& transport, CompressorPicker& picker)
    : DrainLoop(transport, picker, own_metrics_) {}

DrainLoop::DrainLoop(ring::RingTransport& transport, CompressorPicker& picker,
                     AgentMetrics& metrics)
    : transport_(transport),
      queues_(transport.view()),
      picker_(&picker),
      metrics_(metrics),
      doorbell_(transport, metrics),
      batch_size_(transport.view().header.slots),
      sqes_(transport.view().header.slots),
      pages_(transport.view().header.slots),
      outputs_(transport.view().header.slots),
      spare_sqes_(transport.view().header.slots),
      spare_pages_(transport.view().header.slots),
      gpu_flag_(ozram_ring_producer_cqe_flags(&transport.view().header) & OZRAM_RING_CQE_F_GPU),
      raw_length_(ozram_ring_producer_raw_length(&transport.view().header)) {
    // Reserve the largest batch once; BatchResult::reset() keeps capacity.
    result_.reset_without_payload(transport.view().header.slots);
}

void DrainLoop::set_batching(std::uint32_t batch_size, std::chrono::microseconds flush) {
    batch_size_ = std::clamp<std::uint32_t>(batch_size, 1, transport_.view().header.slots);
    flush_ = flush;
}

Step DrainLoop::step(std::chrono::microseconds idle_timeout) {
    std::uint32_t available = queues_.pending();
    if (available == 0) {
        if (queues_.stopping()) {
            return Step::Stopping;
        }
        if (transport_.wait_for_work(idle_timeout) == ring::Wake::ProducerGone) {
            return Step::ProducerGone;
        }
        available = queues_.pending();
        if (available == 0) {
            return queues_.stopping() ? Step::Stopping : Step::Idle;
        }
    }
    const std::uint32_t taken = std::min(fill(available), batch_size_);
    const std::uint32_t valid = gather(taken);
    // The entries are copied: the producer may reuse them now.
    queues_.consume(taken);
    metrics_.record_rejected_submissions(taken - valid);
    if (valid == 0) {
        return Step::Drained;
    }
    // One compression per algorithm in the batch, each over a run of pages.
    const std::array<std::uint32_t, OZRAM_RING_ALG_NR> runs = group_by_algorithm(valid);
    std::uint32_t first = 0;
    for (std::uint32_t algorithm = 0; algorithm < OZRAM_RING_ALG_NR; ++algorithm) {
        if (runs[algorithm] != 0) {
            compress_run(first, runs[algorithm], static_cast<Algorithm>(algorithm));
            first += runs[algorithm];
        }
    }
    return Step::Drained;
}

std::array<std::uint32_t, OZRAM_RING_ALG_NR> DrainLoop::group_by_algorithm(std::uint32_t count) {
    std::array<std::uint32_t, OZRAM_RING_ALG_NR> runs{};
    for (std::uint32_t i = 0; i < count; ++i) {
        ++runs[ozram_ring_sqe_algorithm(&sqes_[i])];
    }
    if (std::ranges::count(runs, 0u) == OZRAM_RING_ALG_NR - 1) {
        return runs;  // one algorithm, the usual case: nothing to move
    }
    // A stable counting sort into the spare arrays, which then swap in.
    std::array<std::uint32_t, OZRAM_RING_ALG_NR> next{};
    for (std::uint32_t algorithm = 1; algorithm < OZRAM_RING_ALG_NR; ++algorithm) {
        next[algorithm] = next[algorithm - 1] + runs[algorithm - 1];
    }
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t at = next[ozram_ring_sqe_algorithm(&sqes_[i])]++;
        spare_sqes_[at] = sqes_[i];
        spare_pages_[at] = pages_[i];
    }
    sqes_.swap(spare_sqes_);
    pages_.swap(spare_pages_);
    return runs;
}

void DrainLoop::compress_run(std::uint32_t first, std::uint32_t count, Algorithm algorithm) {
    std::int32_t status = OZRAM_RING_STATUS_OK;
    std::uint32_t cqe_flags = 0;
    Backend backend = Backend::Scalar;
    bool gpu_fell_back = false;
    try {
        PageCompressor& compressor = picker_->pick_for(algorithm, count);
        backend = compressor.backend();
        const std::uint64_t fallbacks_before = gpu_fallbacks(compressor);
        // Straight into the output slots: the compressor's bytes are where
        // the producer reads them, with no copy in between.
        const ring::RingView& view = queues_.view();
        for (std::uint32_t i = 0; i < count; ++i) {
            outputs_[i] = view.output_slot(sqes_[first + i].slot);
        }
        compressor.compress_into(std::span<const std::uint8_t* const>(pages_.data() + first, count),
                                 std::span<std::uint8_t* const>(outputs_.data(), count), result_);
        // A batch of which any part fell back to the CPU counts as CPU work.
        gpu_fell_back = gpu_fallbacks(compressor) != fallbacks_before;
        if (backend == Backend::Gpu && !gpu_fell_back) {
            cqe_flags = gpu_flag_;
        }
        if (result_.pages.size() != count) {
            throw Error(EIO, "the compressor returned " + std::to_string(result_.pages.size()) +
                                 " pages for " + std::to_string(count));
        }
    } catch (const std::system_error& error) {
        // The producer compresses these pages itself.
        status = -std::clamp(error.code().value(), 1, 4095);
        log_error(std::string("batch of ") + std::to_string(count) + " " +
                  std::string(to_string(algorithm)) + " pages failed: " + error.what());
    } catch (const std::exception& error) {
        status = -EIO;
        log_error(std::string("batch of ") + std::to_string(count) + " " +
                  std::string(to_string(algorithm)) + " pages failed: " + error.what());
    }
    metrics_.record_batch(backend, count, result_, status == OZRAM_RING_STATUS_OK, gpu_fell_back);
    // What the GPU handed to the CPU counts as CPU work.
    complete(first, count, status, cqe_flags,
             backend == Backend::Gpu && gpu_fell_back ? Backend::Cpu : backend);
}

std::uint32_t DrainLoop::fill(std::uint32_t available) {
    if (available >= batch_size_ || flush_.count() == 0) {
        return available;
    }
    const auto deadline = Clock::now() + flush_;
    while (available < batch_size_ && !queues_.stopping()) {
        const auto now = Clock::now();
        if (now >= deadline) {
            break;
        }
        std::this_thread::sleep_for(std::min<Clock::duration>(POLL_STEP, deadline - now));
        available = queues_.pending();
    }
    return available;
}

std::uint32_t DrainLoop::gather(std::uint32_t count) {
    const ring::RingView& view = queues_.view();
    std::uint32_t valid = 0;
    for (std::uint32_t k = 0; k < count; ++k) {
        const ozram_ring_sqe sqe = queues_.peek(k);
        if (ozram_ring_check_sqe(&sqe, view.header.slots) != OZRAM_RING_OK) {
            // No slot to answer for: nothing the producer could accept.
            continue;
        }
        sqes_[valid] = sqe;
        pages_[valid] = view.staging_slot(sqe.slot);
        ++valid;
    }
    return valid;
}

bool DrainLoop::wait_for_cq_room() {
    if (queues_.cq_space() > 0) {
        return true;
    }
    // Let the producer see what is posted so far, then give it time to reap.
    queues_.publish();
    doorbell_.ring();
    const auto deadline = Clock::now() + CQ_ROOM_TIMEOUT;
    while (queues_.cq_space() == 0) {
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(POLL_STEP);
    }
    return true;
}

void DrainLoop::complete(std::uint32_t first, std::uint32_t count, std::int32_t status,
                         std::uint32_t cqe_flags, Backend backend) {
    const ring::RingView& view = queues_.view();
    const std::size_t threshold = view.header.huge_threshold;
    std::uint64_t pages = 0;
    std::uint64_t failed = 0;
    std::uint64_t bytes = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        if (!wait_for_cq_room()) {
            metrics_.record_dropped_completions(count - i);
            log_warning("the producer reaps no completions; dropped " + std::to_string(count - i));
            break;
        }
        const ozram_ring_sqe& sqe = sqes_[first + i];
        ozram_ring_cqe cqe{sqe.slot, sqe.generation, status, 0, 0, 0, 0};
        if (status == OZRAM_RING_STATUS_OK) {
            const CompressedPage& page = result_.pages[i];
            cqe.encoding = ring_encoding(page.encoding);
            if (page.encoding == PageEncoding::SameFilled) {
                cqe.fill = page.fill_word;
            } else if ((page.encoding == PageEncoding::Lz4 ||
                        page.encoding == PageEncoding::Compressed) &&
                       page.size > 0 && page.size <= threshold) {
                cqe.length = page.size;  // the bytes are in the slot already
            } else {
                // Raw, or LZ4 above the ring's threshold: the producer stores
                // the page it staged, and from ABI 1.4 wants no copy of it.
                cqe.encoding = ring_encoding(PageEncoding::Raw);
                cqe.length = raw_length_;
                if (raw_length_ != 0) {
                    std::memcpy(view.output_slot(sqe.slot), pages_[first + i], PAGE_SIZE);
                }
            }
            cqe.flags = cqe_flags;
            ++pages;
            bytes += cqe.length;
        } else {
            ++failed;
        }
        queues_.post(cqe);
    }
    metrics_.record_completed(backend, pages, bytes);
    metrics_.record_failed_pages(failed);
    queues_.publish();
    doorbell_.ring();
}

}  // namespace ozram::daemon
