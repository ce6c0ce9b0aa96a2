// The reference the library is measured against: liblz4 and nothing else.
#include <lz4.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "codec.hpp"
#include "ozram/page.hpp"
#include "stopwatch.hpp"

namespace ozram::bench {
namespace {

const int PAGE_BOUND = LZ4_compressBound(PAGE_SIZE);

class Liblz4Codec final : public Codec {
  public:
    explicit Liblz4Codec(unsigned threads)
        : name_("liblz4-" + std::to_string(threads)), threads_(threads) {}

    const std::string& name() const override { return name_; }
    unsigned threads() const override { return threads_; }

    PassResult run_pass(std::span<const std::uint8_t* const> pages, std::size_t batch,
                        std::vector<bool>& failed) override {
        prepare(std::min(batch, pages.size()));
        PassResult pass;
        for (std::size_t first = 0; first < pages.size(); first += batch) {
            const auto batch_pages = pages.subspan(first, std::min(batch, pages.size() - first));
            auto start = Clock::now();
            fan_out(batch_pages.size(), [&](std::size_t i) { compress_page(batch_pages[i], i); });
            pass.compress_ns += elapsed_ns(start);

            std::memset(restored_.data(), 0xA5, batch_pages.size() * PAGE_SIZE);
            start = Clock::now();
            fan_out(batch_pages.size(), [&](std::size_t i) { decompress_page(i); });
            pass.decompress_ns += elapsed_ns(start);

            for (std::size_t i = 0; i < batch_pages.size(); ++i) {
                pass.bytes_out += static_cast<std::uint64_t>(std::max(sizes_[i], 0));
                if (sizes_[i] <= 0 || decoded_[i] != static_cast<int>(PAGE_SIZE) ||
                    std::memcmp(restored_.data() + i * PAGE_SIZE, batch_pages[i], PAGE_SIZE) != 0) {
                    failed[first + i] = true;
                }
            }
        }
        return pass;
    }

  private:
    void prepare(std::size_t batch) {
        if (sizes_.size() < batch) {
            compressed_.assign(batch * static_cast<std::size_t>(PAGE_BOUND), 0);
            restored_.assign(batch * PAGE_SIZE, 0);
            sizes_.assign(batch, 0);
            decoded_.assign(batch, 0);
        }
    }

    char* compressed(std::size_t i) {
        return compressed_.data() + i * static_cast<std::size_t>(PAGE_BOUND);
    }

    void compress_page(const std::uint8_t* page, std::size_t i) {
        sizes_[i] = LZ4_compress_default(reinterpret_cast<const char*>(page), compressed(i),
                                         PAGE_SIZE, PAGE_BOUND);
    }

    void decompress_page(std::size_t i) {
        decoded_[i] = LZ4_decompress_safe(compressed(i),
                                          reinterpret_cast<char*>(restored_.data() + i * PAGE_SIZE),
                                          std::max(sizes_[i], 0), PAGE_SIZE);
    }

    // Splits pages [0, n) into one contiguous share per thread; the calling
    // thread takes the last share.  Threads are started per batch: this is
    // the plain fan-out a program gets without a pool.
    template <typename Work>
    void fan_out(std::size_t n, Work work) {
        const auto shares = std::min<std::size_t>(threads_, n);
        const auto run_share = [&](std::size_t share) {
            const auto begin = n * share / shares;
            const auto end = n * (share + 1) / shares;
            for (auto i = begin; i < end; ++i) {
                work(i);
            }
        };
        std::vector<std::thread> workers;
        workers.reserve(shares - 1);
        for (std::size_t share = 0; share + 1 < shares; ++share) {
            workers.emplace_back(run_share, share);
        }
        run_share(shares - 1);
        for (auto& worker : workers) {
            worker.join();
        }
    }

    std::string name_;
    unsigned threads_;
    std::vector<char> compressed_;
    std::vector<std::uint8_t> restored_;
    std::vector<int> sizes_;
    std::vector<int> decoded_;
};

}  // namespace

std::unique_ptr<Codec> make_liblz4_codec(unsigned threads) {
    return std::make_unique<Liblz4Codec>(std::max(threads, 1U));
}

}  // namespace ozram::bench
