// The library's backends, driven through the PageCompressor interface.
#include <algorithm>
#include <cstring>
#include <iostream>

#include "codec.hpp"
#include "ozram/batch_result.hpp"
#include "ozram/error.hpp"
#include "page_check.hpp"
#include "stopwatch.hpp"

namespace ozram::bench {
namespace {

class LibraryCodec final : public Codec {
  public:
    LibraryCodec(std::string name, std::unique_ptr<PageCompressor> compressor, unsigned threads,
                 Algorithm algorithm)
        : name_(std::move(name)),
          compressor_(std::move(compressor)),
          threads_(threads),
          algorithm_(algorithm) {}

    const std::string& name() const override { return name_; }
    unsigned threads() const override { return threads_; }

    PassResult run_pass(std::span<const std::uint8_t* const> pages, std::size_t batch,
                        std::vector<bool>& failed) override {
        prepare(std::min(batch, pages.size()));
        PassResult pass;
        for (std::size_t first = 0; first < pages.size(); first += batch) {
            const auto n = std::min(batch, pages.size() - first);
            run_batch(pages.subspan(first, n), first, pass, failed);
        }
        return pass;
    }

  private:
    void prepare(std::size_t batch) {
        if (restored_.size() < batch * PAGE_SIZE) {
            restored_.assign(batch * PAGE_SIZE, 0);
            restored_pages_.resize(batch);
            for (std::size_t i = 0; i < batch; ++i) {
                restored_pages_[i] = restored_.data() + i * PAGE_SIZE;
            }
        }
    }

    void run_batch(std::span<const std::uint8_t* const> pages, std::size_t first, PassResult& pass,
                   std::vector<bool>& failed) {
        const auto mark_all_failed = [&](const std::exception& e) {
            report_once(e);
            for (std::size_t i = 0; i < pages.size(); ++i) {
                failed[first + i] = true;
            }
        };
        try {
            const auto start = Clock::now();
            compressor_->compress(pages, result_);
            pass.compress_ns += elapsed_ns(start);
            if (compressor_->backend() == Backend::Gpu) {
                pass.kernel_ns += result_.kernel_time_ns;
            }
        } catch (const std::exception& e) {
            mark_all_failed(e);
            return;
        }
        for (const auto& page : result_.pages) {
            pass.bytes_out += page.stored_size();
            pass.raw_pages += page.encoding == PageEncoding::Raw;
            pass.same_filled_pages += page.encoding == PageEncoding::SameFilled;
        }
        const auto restored = std::span<std::uint8_t* const>(restored_pages_).first(pages.size());
        // Whatever the previous batch left must not pass for this one's output.
        std::memset(restored_.data(), 0xA5, pages.size() * PAGE_SIZE);
        try {
            const auto start = Clock::now();
            compressor_->decompress(result_, restored);
            pass.decompress_ns += elapsed_ns(start);
        } catch (const std::exception& e) {
            mark_all_failed(e);
            return;
        }
        for (std::size_t i = 0; i < pages.size(); ++i) {
            const bool restored_ok = std::memcmp(restored[i], pages[i], PAGE_SIZE) == 0;
            if (!restored_ok || result_.pages.size() != pages.size() ||
                !stored_page_matches(result_, i, pages[i], algorithm_)) {
                failed[first + i] = true;
            }
        }
    }

    void report_once(const std::exception& e) {
        if (!reported_) {
            std::cerr << "ozram-bench: " << name_ << ": " << e.what() << "\n";
            reported_ = true;
        }
    }

    std::string name_;
    std::unique_ptr<PageCompressor> compressor_;
    unsigned threads_;
    Algorithm algorithm_;
    BatchResult result_;
    std::vector<std::uint8_t> restored_;
    std::vector<std::uint8_t*> restored_pages_;
    bool reported_ = false;
};

}  // namespace

std::unique_ptr<Codec> make_library_codec(std::string name,
                                          std::unique_ptr<PageCompressor> compressor,
                                          unsigned threads, Algorithm algorithm) {
    return std::make_unique<LibraryCodec>(std::move(name), std::move(compressor), threads,
                                          algorithm);
}

}  // namespace ozram::bench
