#include "drain_loop.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "largest_batch.hpp"
#include "log.hpp"
#include "ozram/error.hpp"

namespace ozram::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// How often a waiting loop looks at the shared indices again: short enough
// against a 200 us flush timeout, long enough not to burn a core.
constexpr std::chrono::microseconds POLL_STEP{20};
// How long completions wait for CQ room before they are dropped (the
// producer then takes the slots back by its timeout).
constexpr std::chrono::seconds CQ_ROOM_TIMEOUT{1};
// More batches in flight than this is a configuration mistake.
constexpr std::uint32_t MAX_BATCHES_IN_FLIGHT = 64;
// gathered_at_ of a slot with no entry in the batch being gathered.
constexpr std::uint32_t NOT_GATHERED = UINT32_MAX;

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
      spare_sqes_(transport.view().header.slots),
      spare_pages_(transport.view().header.slots),
      gpu_flag_(ozram_ring_producer_cqe_flags(&transport.view().header) & OZRAM_RING_CQE_F_GPU),
      raw_length_(ozram_ring_producer_raw_length(&transport.view().header)),
      levels_((transport.view().header.features & OZRAM_RING_FEAT_LEVELS) != 0),
      slot_writer_(transport.view().header.slots, 0),
      gathered_at_(transport.view().header.slots, NOT_GATHERED) {
    set_batches_in_flight(DEFAULT_BATCHES_IN_FLIGHT);
}

DrainLoop::~DrainLoop() {
    abandon_in_flight();
}

void DrainLoop::set_batching(std::uint32_t batch_size, std::chrono::microseconds flush) {
    batch_size_ = largest_batch(batch_size, transport_.view().header.slots);
    flush_ = flush;
}

void DrainLoop::set_batches_in_flight(std::uint32_t batches) {
    if (batches_in_flight() != 0) {
        throw Error(EBUSY, "the batches in flight can change only with none in flight");
    }
    const std::uint32_t slots = transport_.view().header.slots;
    batches_.resize(std::clamp<std::uint32_t>(batches, 1, MAX_BATCHES_IN_FLIGHT));
    // Every entry can hold a whole ring: step() then allocates nothing.
    for (Batch& batch : batches_) {
        batch.sqes.resize(slots);
        batch.pages.resize(slots);
        batch.outputs.resize(slots);
        batch.result.reset_without_payload(slots);
    }
}

std::uint32_t DrainLoop::batches_in_flight() const {
    return static_cast<std::uint32_t>(std::count_if(batches_.begin(), batches_.end(),
                                                    [](const Batch& b) { return b.order != 0; }));
}

Step DrainLoop::step(std::chrono::microseconds idle_timeout) {
    bool took = false;
    for (;;) {
        std::uint32_t available = queues_.pending();
        if (available == 0 && batches_in_flight() == 0 && !took) {
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
        // Take work while a batch can start; with none in flight, a
        // partial batch waits for the flush timeout to fill.
        if (available == 0 || batches_in_flight() == batches_.size()) {
            break;
        }
        if (batches_in_flight() == 0) {
            available = fill(available);
        }
        const std::uint32_t taken = std::min(available, batch_size_);
        const std::uint32_t valid = gather(taken);
        // The entries are copied: the producer may reuse them now.
        queues_.consume(taken);
        took = true;
        // One batch per algorithm in the SQ's batch, each over a run of pages.
        const std::array<std::uint32_t, OZRAM_RING_ALG_NR> runs = group_by_algorithm(valid);
        std::uint32_t first = 0;
        for (std::uint32_t algorithm = 0; algorithm < OZRAM_RING_ALG_NR; ++algorithm) {
            if (runs[algorithm] != 0) {
                start_levels(first, runs[algorithm], static_cast<Algorithm>(algorithm));
                first += runs[algorithm];
            }
        }
    }
    // Post what has finished, waiting for the oldest at least.
    if (Batch* batch = oldest(); batch != nullptr) {
        finish(*batch);
    }
    finish_done();
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

void DrainLoop::start_levels(std::uint32_t first, std::uint32_t count, Algorithm algorithm) {
    const auto level = [this](std::uint32_t i) { return ozram_ring_sqe_level(&sqes_[i]); };
    const std::uint32_t end = first + count;
    // Devices at different levels: each level's pages next to each other, in
    // their order of arrival (an insertion sort, which allocates nothing and
    // is quick on what is nearly always one level or a few long runs).
    for (std::uint32_t i = first + 1; i < end; ++i) {
        for (std::uint32_t j = i; j > first && level(j - 1) > level(j); --j) {
            std::swap(sqes_[j - 1], sqes_[j]);
            std::swap(pages_[j - 1], pages_[j]);
        }
    }
    for (std::uint32_t i = first; i < end;) {
        std::uint32_t j = i + 1;
        while (j < end && level(j) == level(i)) {
            ++j;
        }
        start_run(i, j - i, algorithm, level(i));
        i = j;
    }
}

DrainLoop::Batch* DrainLoop::oldest() {
    Batch* found = nullptr;
    for (Batch& batch : batches_) {
        if (batch.order != 0 && (found == nullptr || batch.order < found->order)) {
            found = &batch;
        }
    }
    return found;
}

DrainLoop::Batch& DrainLoop::room_for(PageCompressor& compressor) {
    for (;;) {
        std::size_t on_compressor = 0;
        Batch* free = nullptr;
        Batch* oldest_on_compressor = nullptr;
        for (Batch& batch : batches_) {
            if (batch.order == 0) {
                free = free != nullptr ? free : &batch;
            } else if (batch.compressor == &compressor) {
                ++on_compressor;
                if (oldest_on_compressor == nullptr || batch.order < oldest_on_compressor->order) {
                    oldest_on_compressor = &batch;
                }
            }
        }
        if (free != nullptr && on_compressor < compressor.max_in_flight()) {
            return *free;
        }
        finish(free == nullptr ? *oldest() : *oldest_on_compressor);
    }
}

void DrainLoop::start_run(std::uint32_t first, std::uint32_t count, Algorithm algorithm,
                          int level) {
    PageCompressor* compressor = nullptr;
    try {
        compressor = &picker_->pick_at(algorithm, level, count);
    } catch (const std::exception& error) {
        // No compressor for the format, or none could be made (memory): the
        // producer compresses these itself.
        log_error(std::string("batch of ") + std::to_string(count) + " " +
                  std::string(to_string(algorithm)) + " pages at level " + std::to_string(level) +
                  " failed: " + error.what());
        const auto* system_error = dynamic_cast<const std::system_error*>(&error);
        const int code = system_error != nullptr ? system_error->code().value()
                         : dynamic_cast<const std::bad_alloc*>(&error) ? ENOMEM
                                                                       : EIO;
        post_failed(first, count, -std::clamp(code, 1, 4095));
        return;
    }
    const ring::RingView& view = queues_.view();
    const auto most = static_cast<std::uint32_t>(
        std::clamp<std::size_t>(compressor->max_batch_pages(), 1, count));
    for (std::uint32_t done = 0; done < count; done += most) {
        const std::uint32_t n = std::min(most, count - done);
        finish_writers_of(first + done, n);
        Batch& batch = room_for(*compressor);
        batch.compressor = compressor;
        batch.intended = compressor->backend();
        batch.algorithm = algorithm;
        batch.level = level;
        batch.count = n;
        for (std::uint32_t i = 0; i < n; ++i) {
            batch.sqes[i] = sqes_[first + done + i];
            batch.pages[i] = pages_[first + done + i];
            // Straight into the output slots: the compressor's bytes are where
            // the producer reads them, with no copy in between.
            batch.outputs[i] = view.output_slot(batch.sqes[i].slot);
        }
        batch.order = next_order_++;
        for (std::uint32_t i = 0; i < n; ++i) {
            slot_writer_[batch.sqes[i].slot] = batch.order;
        }
        std::optional<std::string> refused;  // why submit() refused the batch
        try {
            batch.ticket = compressor->submit(
                std::span<const std::uint8_t* const>(batch.pages.data(), n),
                std::span<std::uint8_t* const>(batch.outputs.data(), n), batch.result);
        } catch (const std::exception& error) {
            refused = error.what();
        } catch (...) {
            refused = "an exception of unknown type";
        }
        if (refused) {
            log_warning("batch of " + std::to_string(n) + " " + std::string(to_string(algorithm)) +
                        " pages refused by the " + std::string(to_string(batch.intended)) +
                        " backend: " + *refused + "; compressing it on the CPU");
            batch.compressor = nullptr;  // finish() redoes it on the CPU
        }
    }
}

void DrainLoop::finish_in_flight() {
    while (Batch* batch = oldest()) {
        try {
            finish(*batch);
        } catch (const std::exception& error) {
            // finish() has waited for the compressor before it posts, the
            // only step that throws: the batch is over, unposted.
            log_warning(std::string("the completions of a batch in flight at the end: ") +
                        error.what());
            release(*batch);
        }
    }
}

void DrainLoop::abandon_in_flight() noexcept {
    for (Batch& batch : batches_) {
        if (batch.order == 0) {
            continue;
        }
        if (batch.compressor != nullptr) {
            try {
                batch.compressor->complete(batch.ticket);
            } catch (...) {  // NOLINT(bugprone-empty-catch): the batch is dropped either way
            }
        }
        release(batch);
    }
}

void DrainLoop::finish_writers_of(std::uint32_t first, std::uint32_t count) {
    for (std::uint32_t i = first; i < first + count; ++i) {
        const std::uint64_t writer = slot_writer_[sqes_[i].slot];
        if (writer == 0) {
            continue;
        }
        // Always there: release() clears the marks of every batch it lets go.
        const auto batch = std::ranges::find(batches_, writer, &Batch::order);
        if (batch != batches_.end()) {
            finish(*batch);
        }
    }
}

void DrainLoop::release(Batch& batch) noexcept {
    for (std::uint32_t i = 0; i < batch.count; ++i) {
        std::uint64_t& writer = slot_writer_[batch.sqes[i].slot];
        if (writer == batch.order) {
            writer = 0;
        }
    }
    batch.order = 0;
    batch.compressor = nullptr;
    batch.intended = Backend::Cpu;
}

void DrainLoop::finish_done() {
    for (Batch& batch : batches_) {
        if (batch.order == 0) {
            continue;
        }
        bool done = true;
        try {
            done = batch.compressor == nullptr || batch.compressor->poll(batch.ticket);
        } catch (...) {  // NOLINT(bugprone-empty-catch): finish() sees it again
        }
        if (done) {
            finish(batch);
        }
    }
}

void DrainLoop::finish(Batch& batch) {
    const std::span<const std::uint8_t* const> pages(batch.pages.data(), batch.count);
    const std::span<std::uint8_t* const> outputs(batch.outputs.data(), batch.count);
    const auto what = [&] {  // for the logs only: no allocation on the way that works
        return "batch of " + std::to_string(batch.count) + " " +
               std::string(to_string(batch.algorithm)) + " pages";
    };
    const Backend intended = batch.intended;
    std::int32_t status = OZRAM_RING_STATUS_OK;
    bool fell_back = batch.compressor == nullptr;
    if (!fell_back) {
        try {
            batch.compressor->complete(batch.ticket);
            if (batch.result.pages.size() != batch.count) {
                throw Error(EIO, "the compressor returned " +
                                     std::to_string(batch.result.pages.size()) + " pages for " +
                                     std::to_string(batch.count));
            }
        } catch (const std::exception& error) {
            log_warning(what() + " failed on the " + std::string(to_string(intended)) +
                        " backend: " + error.what() + "; compressing it on the CPU");
            fell_back = true;
        }
    }
    if (fell_back) {
        // The CPU redoes the batch: its pages are still staged and its
        // slots still the agent's, whatever the backend did with them.
        try {
            picker_->fallback_at(batch.algorithm, batch.level)
                .compress_into(pages, outputs, batch.result);
        } catch (const std::system_error& error) {
            status = -std::clamp(error.code().value(), 1, 4095);
            log_error(what() + " failed: " + error.what());
        } catch (const std::exception& error) {
            status = -EIO;
            log_error(what() + " failed: " + error.what());
        }
    }
    // The compressor is done with the batch: should posting fail, nothing
    // waits for it again.
    batch.compressor = nullptr;
    const Backend backend = status == OZRAM_RING_STATUS_OK ? batch.result.backend : intended;
    // A batch that any part of fell back to the CPU counts as CPU work.
    const bool gpu_fell_back = intended == Backend::Gpu && backend != Backend::Gpu;
    metrics_.record_batch(intended, batch.count, batch.result, status == OZRAM_RING_STATUS_OK,
                          gpu_fell_back);
    post(batch, status, backend == Backend::Gpu ? gpu_flag_ : 0, backend);
    release(batch);
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
    std::uint32_t rejected = 0;
    std::uint32_t refused = 0;
    for (std::uint32_t k = 0; k < count; ++k) {
        const ozram_ring_sqe sqe = queues_.peek(k);
        const ozram_ring_verdict verdict = ozram_ring_check_sqe(&sqe, view.header.slots, levels_);
        if (verdict != OZRAM_RING_OK) {
            ++rejected;
        }
        if (verdict == OZRAM_RING_BAD_SLOT) {
            continue;  // no slot to answer for: nothing the producer could accept
        }
        if (verdict != OZRAM_RING_OK) {
            // The producer compresses the page itself at once, rather than
            // after its time-out.
            if (post_one({sqe.slot, sqe.generation, -EINVAL, 0, 0, 0, 0})) {
                metrics_.record_failed_pages(1);
            } else {
                metrics_.record_dropped_completions(1);
            }
            ++refused;
            continue;
        }
        std::uint32_t& at = gathered_at_[sqe.slot];
        if (at != NOT_GATHERED) {
            // Taken back and staged again before this agent saw the first
            // posting: only the newer wants an answer, and the slot's
            // output is written once.
            sqes_[at] = sqe;
            continue;
        }
        at = valid;
        sqes_[valid] = sqe;
        pages_[valid] = view.staging_slot(sqe.slot);
        ++valid;
    }
    for (std::uint32_t i = 0; i < valid; ++i) {
        gathered_at_[sqes_[i].slot] = NOT_GATHERED;
    }
    metrics_.record_rejected_submissions(rejected);
    if (refused != 0) {
        queues_.publish();
        doorbell_.ring();
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

bool DrainLoop::post_one(const ozram_ring_cqe& cqe) {
    if (!wait_for_cq_room()) {
        return false;
    }
    queues_.post(cqe);
    return true;
}

void DrainLoop::post_failed(std::uint32_t first, std::uint32_t count, std::int32_t status) {
    std::uint64_t posted = 0;
    for (; posted < count; ++posted) {
        const ozram_ring_sqe& sqe = sqes_[first + posted];
        if (!post_one({sqe.slot, sqe.generation, status, 0, 0, 0, 0})) {
            metrics_.record_dropped_completions(count - posted);
            log_warning("the producer reaps no completions; dropped " +
                        std::to_string(count - posted));
            break;
        }
    }
    metrics_.record_failed_pages(posted);
    queues_.publish();
    doorbell_.ring();
}

void DrainLoop::post(const Batch& batch, std::int32_t status, std::uint32_t cqe_flags,
                     Backend backend) {
    const ring::RingView& view = queues_.view();
    const std::size_t threshold = view.header.huge_threshold;
    std::uint64_t pages = 0;
    std::uint64_t failed = 0;
    std::uint64_t bytes = 0;
    for (std::uint32_t i = 0; i < batch.count; ++i) {
        const ozram_ring_sqe& sqe = batch.sqes[i];
        ozram_ring_cqe cqe{sqe.slot, sqe.generation, status, 0, 0, 0, 0};
        if (status == OZRAM_RING_STATUS_OK) {
            const CompressedPage& page = batch.result.pages[i];
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
                    std::memcpy(view.output_slot(sqe.slot), batch.pages[i], PAGE_SIZE);
                }
            }
            cqe.flags = cqe_flags;
        }
        if (!post_one(cqe)) {
            metrics_.record_dropped_completions(batch.count - i);
            log_warning("the producer reaps no completions; dropped " +
                        std::to_string(batch.count - i));
            break;
        }
        if (status == OZRAM_RING_STATUS_OK) {
            ++pages;
            bytes += cqe.length;
        } else {
            ++failed;
        }
    }
    metrics_.record_completed(backend, pages, bytes);
    metrics_.record_failed_pages(failed);
    queues_.publish();
    doorbell_.ring();
}

}  // namespace ozram::daemon
