// The "gpu" row: the GPU backend used as the agent uses it.  The corpus is
// registered with the driver and read in place (pinned host pages in); each
// batch's compressed bytes go straight into an output area of one 4 KiB
// buffer a page, registered for the device to write (as the ring's output
// area is); batches are submitted several at a time and completed in order.
// Decompression restores the pass's pages from a packed payload (registered)
// into a registered area.  Every page is checked after the timed sections.
//
// With rounds > 1 ("gpu-stream") a pass is the corpus that many times over,
// in one stream of batches and one decompression call: the pipeline fills
// and drains once a pass, not once a corpus.  Its times and sizes are given
// per corpus, so that its GB/s read like the gpu row's.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <memory>

#include "codec.hpp"
#include "ozram/error.hpp"
#include "ozram/gpu.hpp"
#include "page_check.hpp"
#include "stopwatch.hpp"
#include "timeline.hpp"

namespace ozram::bench {
namespace {

struct FreeBytes {
    void operator()(std::uint8_t* p) const { std::free(p); }
};
using Area = std::unique_ptr<std::uint8_t, FreeBytes>;

Area page_aligned(std::size_t bytes) {
    auto* p = static_cast<std::uint8_t*>(std::aligned_alloc(PAGE_SIZE, bytes));
    if (p == nullptr)
        throw Error(ENOMEM, "ozram-bench: cannot allocate " + std::to_string(bytes) + " bytes");
    return Area(p);
}

class GpuCodec final : public Codec {
  public:
    GpuCodec(std::string name, std::shared_ptr<GpuBatchCompressor> gpu, std::string timeline,
             unsigned rounds)
        : name_(std::move(name)),
          gpu_(std::move(gpu)),
          timeline_(std::move(timeline)),
          rounds_(std::max(rounds, 1u)) {
        // Another row may share the compressor: only the row with a
        // timeline turns it on.
        if (!timeline_.empty())
            gpu_->keep_timeline(true);
    }
    ~GpuCodec() override {
        for (const std::uint8_t* base : registered_)
            gpu_->unregister_host_region(base);
    }

    const std::string& name() const override { return name_; }
    unsigned threads() const override { return 0; }

    PassResult run_pass(std::span<const std::uint8_t* const> corpus, std::size_t batch,
                        std::vector<bool>& failed) override {
        stream_.clear();
        for (unsigned round = 0; round < rounds_; ++round)
            stream_.insert(stream_.end(), corpus.begin(), corpus.end());
        const std::span<const std::uint8_t* const> pages(stream_);
        prepare(pages.size());
        (void)gpu_->take_timeline();  // what came before this pass
        PassResult pass;
        const std::size_t per_batch = std::min(batch, gpu_->max_batch_pages());
        const std::size_t batches = (pages.size() + per_batch - 1) / per_batch;
        results_.resize(batches);

        std::deque<std::pair<PageCompressor::Ticket, std::size_t>> in_flight;
        const auto complete_oldest = [&] {
            gpu_->complete(in_flight.front().first);
            pass.kernel_ns += results_[in_flight.front().second].kernel_time_ns;
            in_flight.pop_front();
        };
        try {
            const auto start = Clock::now();
            for (std::size_t b = 0; b < batches; ++b) {
                const std::size_t first = b * per_batch;
                const std::size_t n = std::min(per_batch, pages.size() - first);
                if (in_flight.size() == gpu_->max_in_flight())
                    complete_oldest();
                in_flight.emplace_back(
                    gpu_->submit(pages.subspan(first, n),
                                 std::span<std::uint8_t* const>(outputs_).subspan(first, n),
                                 results_[b]),
                    b);
            }
            while (!in_flight.empty())
                complete_oldest();
            pass.compress_ns = elapsed_ns(start) / rounds_;
            pass.kernel_ns /= rounds_;
        } catch (const std::exception& e) {
            report_once(e);
            std::fill(failed.begin(), failed.end(), true);
            return pass;
        }

        // The pass's pages as one packed result, to restore and to check.
        whole_.pages.clear();
        whole_.payload.clear();  // keeps the registered capacity
        for (std::size_t b = 0; b < batches; ++b) {
            for (std::size_t i = 0; i < results_[b].pages.size(); ++i) {
                CompressedPage page = results_[b].pages[i];
                const std::uint8_t* source = page.encoding == PageEncoding::Raw
                                                 ? pages[b * per_batch + i]
                                                 : outputs_[b * per_batch + i];
                page.offset = static_cast<std::uint32_t>(whole_.payload.size());
                whole_.payload.insert(whole_.payload.end(), source, source + page.size);
                whole_.pages.push_back(page);
                if (b * per_batch + i < corpus.size()) {  // the first round's
                    pass.bytes_out += page.stored_size();
                    pass.raw_pages += page.encoding == PageEncoding::Raw;
                    pass.same_filled_pages += page.encoding == PageEncoding::SameFilled;
                }
            }
        }
        std::memset(restored_area_.get(), 0xA5, pages.size() * PAGE_SIZE);
        try {
            const auto start = Clock::now();
            gpu_->decompress(whole_, std::span(restored_).first(pages.size()));
            pass.decompress_ns = elapsed_ns(start) / rounds_;
        } catch (const std::exception& e) {
            report_once(e);
            std::fill(failed.begin(), failed.end(), true);
            return pass;
        }
        if (!timeline_.empty()) {
            const std::vector<GpuTimelineEntry> timeline = gpu_->take_timeline();
            write_timeline_csv(timeline_, timeline);
            std::cerr << summarize_timeline(timeline);
        }
        for (std::size_t i = 0; i < pages.size(); ++i) {
            if (std::memcmp(restored_[i], pages[i], PAGE_SIZE) != 0 ||
                !stored_page_matches(whole_, i, pages[i]))
                failed[i % corpus.size()] = true;
        }
        return pass;
    }

  private:
    // The areas the device writes and reads in place, registered once.
    void prepare(std::size_t count) {
        if (outputs_.size() >= count)
            return;
        const std::size_t bytes = count * PAGE_SIZE;
        output_area_ = page_aligned(bytes);
        restored_area_ = page_aligned(bytes);
        std::memset(output_area_.get(), 0, bytes);  // faulted in before the timed passes
        std::memset(restored_area_.get(), 0, bytes);
        whole_.payload.reserve(bytes);
        outputs_.clear();
        restored_.clear();
        for (std::size_t i = 0; i < count; ++i) {
            outputs_.push_back(output_area_.get() + i * PAGE_SIZE);
            restored_.push_back(restored_area_.get() + i * PAGE_SIZE);
        }
        const bool all = gpu_->register_output_region({output_area_.get(), bytes}) &&
                         gpu_->register_output_region({restored_area_.get(), bytes}) &&
                         gpu_->register_host_region({whole_.payload.data(), bytes});
        registered_ = {output_area_.get(), restored_area_.get(), whole_.payload.data()};
        if (!all) {
            std::cerr << "ozram-bench: " << name_
                      << ": the driver refused an area: its row copies on the host\n";
        }
    }

    void report_once(const std::exception& e) {
        if (!reported_) {
            std::cerr << "ozram-bench: " << name_ << ": " << e.what() << "\n";
            reported_ = true;
        }
    }

    std::string name_;
    std::shared_ptr<GpuBatchCompressor> gpu_;
    std::string timeline_;                     // where each pass's timeline goes, or none
    unsigned rounds_;                          // the corpus's times in a pass
    std::vector<const std::uint8_t*> stream_;  // the pass's pages, the corpus rounds_ times
    Area output_area_;
    Area restored_area_;
    std::vector<std::uint8_t*> outputs_;
    std::vector<std::uint8_t*> restored_;
    std::vector<BatchResult> results_;
    BatchResult whole_;
    std::vector<const std::uint8_t*> registered_;
    bool reported_ = false;
};

}  // namespace

std::unique_ptr<Codec> make_gpu_codec(std::string name, std::shared_ptr<GpuBatchCompressor> gpu,
                                      std::string timeline, unsigned rounds) {
    return std::make_unique<GpuCodec>(std::move(name), std::move(gpu), std::move(timeline), rounds);
}

}  // namespace ozram::bench
