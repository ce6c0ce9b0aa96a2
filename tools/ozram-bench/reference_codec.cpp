// The references the library is measured against: each format's own library
// and nothing else (zstd with the kernel's parameters, set as the agent
// sets them), fanned out over plain threads.
#include <lz4.h>
#include <lz4hc.h>
#include <lzo/lzo1x.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "codec.hpp"
#include "cpu/zstd_parameters.hpp"
#include "ozram/page.hpp"
#include "stopwatch.hpp"

namespace ozram::bench {
namespace {

// Room for any of the formats' worst case on one page: LZO1X's is the largest.
constexpr std::size_t BLOCK_CAPACITY = PAGE_SIZE + PAGE_SIZE / 16 + 64 + 3;
static_assert(LZ4_COMPRESSBOUND(PAGE_SIZE) <= BLOCK_CAPACITY);
static_assert(ZSTD_COMPRESSBOUND(PAGE_SIZE) <= BLOCK_CAPACITY);

// Each format below is one thread's working state: compress() returns the
// block's length (0 on failure), decompress() the decoded length (or -1), as
// the library reports them.  One state per thread, made once and kept.

// LZ4_compress_default, the call a program makes without tuning anything.
struct Lz4Format {
    static constexpr const char* NAME = "liblz4";
    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) {
        const int n =
            LZ4_compress_default(reinterpret_cast<const char*>(page), reinterpret_cast<char*>(dst),
                                 PAGE_SIZE, static_cast<int>(BLOCK_CAPACITY));
        return n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    long decompress(const std::uint8_t* src, std::size_t len, std::uint8_t* page) {
        return LZ4_decompress_safe(reinterpret_cast<const char*>(src),
                                   reinterpret_cast<char*>(page), static_cast<int>(len), PAGE_SIZE);
    }
};

// LZ4HC at liblz4's default level (the kernel's lz4hc level), in a state kept
// per thread: LZ4_compress_HC would allocate one for every page.
struct Lz4hcFormat {
    static constexpr const char* NAME = "liblz4hc";
    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) {
        const int n = LZ4_compress_HC_extStateHC(
            state.get(), reinterpret_cast<const char*>(page), reinterpret_cast<char*>(dst),
            PAGE_SIZE, static_cast<int>(BLOCK_CAPACITY), LZ4HC_CLEVEL_DEFAULT);
        return n > 0 ? static_cast<std::size_t>(n) : 0;
    }
    long decompress(const std::uint8_t* src, std::size_t len, std::uint8_t* page) {
        return LZ4_decompress_safe(reinterpret_cast<const char*>(src),
                                   reinterpret_cast<char*>(page), static_cast<int>(len), PAGE_SIZE);
    }
    std::unique_ptr<LZ4_streamHC_t> state = std::make_unique<LZ4_streamHC_t>();
};

// LZO1X-1 (the kernel's lzo, and what the library stores for lzo-rle), and
// liblzo2's safe decoder.
struct LzoFormat {
    static constexpr const char* NAME = "liblzo2";
    LzoFormat() {
        if (lzo_init() != LZO_E_OK) {
            throw std::runtime_error("liblzo2 failed its start-up checks (lzo_init)");
        }
    }
    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) {
        lzo_uint n = BLOCK_CAPACITY;
        return lzo1x_1_compress(page, PAGE_SIZE, dst, &n, work.data()) == LZO_E_OK ? n : 0;
    }
    long decompress(const std::uint8_t* src, std::size_t len, std::uint8_t* page) {
        lzo_uint n = PAGE_SIZE;
        const int status = lzo1x_decompress_safe(src, len, page, &n, nullptr);
        return status == LZO_E_OK ? static_cast<long>(n) : -1;
    }
    std::vector<lzo_align_t> work = std::vector<lzo_align_t>(
        (LZO1X_1_MEM_COMPRESS + sizeof(lzo_align_t) - 1) / sizeof(lzo_align_t));
};

// libzstd with the kernel's parameters (level 3's for an unknown source
// size, as crypto/zstd.c takes them), set once on a context per thread as
// the agent's codec sets them; ZSTD_compress2 then pledges each page's
// size.  Decoded with a context per
// thread too.
struct ZstdFormat {
    static constexpr const char* NAME = "libzstd";
    ZstdFormat() {
        if (cctx == nullptr || dctx == nullptr) {
            throw std::runtime_error("libzstd: no memory for a context");
        }
        if (!codecs::set_kernel_zstd_parameters(cctx.get(), 0)) {
            throw std::runtime_error("libzstd: the kernel's parameters were refused");
        }
    }
    std::size_t compress(const std::uint8_t* page, std::uint8_t* dst) {
        const std::size_t n = ZSTD_compress2(cctx.get(), dst, BLOCK_CAPACITY, page, PAGE_SIZE);
        return ZSTD_isError(n) ? 0 : n;
    }
    long decompress(const std::uint8_t* src, std::size_t len, std::uint8_t* page) {
        const std::size_t n = ZSTD_decompressDCtx(dctx.get(), page, PAGE_SIZE, src, len);
        return ZSTD_isError(n) ? -1 : static_cast<long>(n);
    }
    struct FreeCCtx {
        void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
    };
    struct FreeDCtx {
        void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
    };
    std::unique_ptr<ZSTD_CCtx, FreeCCtx> cctx{ZSTD_createCCtx()};
    std::unique_ptr<ZSTD_DCtx, FreeDCtx> dctx{ZSTD_createDCtx()};
};

template <typename Format>
class ReferenceCodec final : public Codec {
  public:
    explicit ReferenceCodec(unsigned threads)
        : name_(std::string(Format::NAME) + "-" + std::to_string(threads)), threads_(threads) {
        for (unsigned i = 0; i < threads; ++i) {
            formats_.push_back(std::make_unique<Format>());
        }
    }

    const std::string& name() const override { return name_; }
    unsigned threads() const override { return threads_; }

    PassResult run_pass(std::span<const std::uint8_t* const> pages, std::size_t batch,
                        std::vector<bool>& failed) override {
        prepare(std::min(batch, pages.size()));
        PassResult pass;
        for (std::size_t first = 0; first < pages.size(); first += batch) {
            const auto batch_pages = pages.subspan(first, std::min(batch, pages.size() - first));
            auto start = Clock::now();
            fan_out(batch_pages.size(), [&](Format& format, std::size_t i) {
                sizes_[i] = format.compress(batch_pages[i], compressed(i));
            });
            pass.compress_ns += elapsed_ns(start);

            std::memset(restored_.data(), 0xA5, batch_pages.size() * PAGE_SIZE);
            start = Clock::now();
            fan_out(batch_pages.size(), [&](Format& format, std::size_t i) {
                decoded_[i] = sizes_[i] == 0 ? -1
                                             : format.decompress(compressed(i), sizes_[i],
                                                                 restored_.data() + i * PAGE_SIZE);
            });
            pass.decompress_ns += elapsed_ns(start);

            // Every page must have been compressed and restored exactly by
            // the library's own decoder.
            for (std::size_t i = 0; i < batch_pages.size(); ++i) {
                pass.bytes_out += sizes_[i];
                if (sizes_[i] == 0 || decoded_[i] != static_cast<long>(PAGE_SIZE) ||
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
            compressed_.assign(batch * BLOCK_CAPACITY, 0);
            restored_.assign(batch * PAGE_SIZE, 0);
            sizes_.assign(batch, 0);
            decoded_.assign(batch, 0);
        }
    }

    std::uint8_t* compressed(std::size_t i) { return compressed_.data() + i * BLOCK_CAPACITY; }

    // Splits pages [0, n) into one contiguous share per thread; the calling
    // thread takes the last share.  Threads are started per batch: this is
    // the plain fan-out a program gets without a pool.  Each share works
    // with the state of its own index.
    template <typename Work>
    void fan_out(std::size_t n, Work work) {
        const auto shares = std::min<std::size_t>(threads_, n);
        const auto run_share = [&](std::size_t share) {
            const auto begin = n * share / shares;
            const auto end = n * (share + 1) / shares;
            for (auto i = begin; i < end; ++i) {
                work(*formats_[share], i);
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
    std::vector<std::unique_ptr<Format>> formats_;
    std::vector<std::uint8_t> compressed_;
    std::vector<std::uint8_t> restored_;
    std::vector<std::size_t> sizes_;
    std::vector<long> decoded_;
};

}  // namespace

std::unique_ptr<Codec> make_reference_codec(Algorithm algorithm, unsigned threads) {
    threads = std::max(threads, 1U);
    switch (algorithm) {
        case Algorithm::Lz4:
            return std::make_unique<ReferenceCodec<Lz4Format>>(threads);
        case Algorithm::Lz4hc:
            return std::make_unique<ReferenceCodec<Lz4hcFormat>>(threads);
        case Algorithm::Lzo:
        case Algorithm::LzoRle:
            return std::make_unique<ReferenceCodec<LzoFormat>>(threads);
        case Algorithm::Zstd:
            return std::make_unique<ReferenceCodec<ZstdFormat>>(threads);
    }
    throw std::invalid_argument("no reference library for this algorithm");
}

std::string reference_library(Algorithm algorithm) {
    switch (algorithm) {
        case Algorithm::Lz4:
            return Lz4Format::NAME;
        case Algorithm::Lz4hc:
            return Lz4hcFormat::NAME;
        case Algorithm::Lzo:
        case Algorithm::LzoRle:
            return LzoFormat::NAME;
        case Algorithm::Zstd:
            return ZstdFormat::NAME;
    }
    throw std::invalid_argument("no reference library for this algorithm");
}

std::unique_ptr<Codec> make_liblz4_codec(unsigned threads) {
    return make_reference_codec(Algorithm::Lz4, threads);
}

}  // namespace ozram::bench
