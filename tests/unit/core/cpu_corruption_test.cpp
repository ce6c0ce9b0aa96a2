// Corrupt compressed input: an Error(EIO) naming the page, no crash, and no
// byte written outside the destination page.
#include <gtest/gtest.h>
#include <lz4.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ozram/backend.hpp"
#include "ozram/error.hpp"
#include "test_pages.hpp"

namespace ozram {
namespace {

constexpr Backend CPU_BACKENDS[] = {Backend::Scalar, Backend::Cpu};
constexpr std::uint8_t GUARD = 0xc3;
constexpr std::size_t GUARD_BYTES = 64;

// Destination pages with guard bytes around each, to catch stray writes.
class GuardedPages {
  public:
    explicit GuardedPages(std::size_t count)
        : count_(count), storage_(count * (PAGE_SIZE + GUARD_BYTES) + GUARD_BYTES, GUARD) {}
    [[nodiscard]] std::vector<std::uint8_t*> pointers() {
        std::vector<std::uint8_t*> out;
        for (std::size_t i = 0; i < count_; ++i) {
            out.push_back(storage_.data() + GUARD_BYTES + i * (PAGE_SIZE + GUARD_BYTES));
        }
        return out;
    }
    [[nodiscard]] bool guards_intact() const {
        for (std::size_t i = 0; i <= count_; ++i) {
            const std::uint8_t* guard = storage_.data() + i * (PAGE_SIZE + GUARD_BYTES);
            for (std::size_t j = 0; j < GUARD_BYTES; ++j) {
                if (guard[j] != GUARD) {
                    return false;
                }
            }
        }
        return true;
    }

  private:
    std::size_t count_;
    std::vector<std::uint8_t> storage_;
};

// A batch of text pages (all LZ4) compressed by `backend`.
BatchResult text_batch(Backend backend, std::size_t count) {
    std::vector<Page> pages;
    for (std::size_t i = 0; i < count; ++i) {
        pages.push_back(test::text_page(i));
    }
    BatchResult result;
    make_cpu_compressor(backend)->compress(test::pointers(pages), result);
    return result;
}

// Expects decompress() to throw Error(EIO) whose message names `page`.
void expect_eio(Backend backend, const BatchResult& batch, std::size_t page) {
    GuardedPages out(batch.pages.size());
    try {
        make_cpu_compressor(backend)->decompress(batch, out.pointers());
        ADD_FAILURE() << "no error for corrupt page " << page;
    } catch (const Error& error) {
        EXPECT_EQ(error.code().value(), EIO) << error.what();
        const std::string expected = "page " + std::to_string(page) + ":";
        EXPECT_EQ(std::string(error.what()).rfind(expected, 0), 0u) << "message: " << error.what();
    }
    EXPECT_TRUE(out.guards_intact());
}

using Corruption = std::function<void(BatchResult&, std::size_t page)>;

struct NamedCorruption {
    const char* name;
    Corruption apply;
};

const NamedCorruption CORRUPTIONS[] = {
    {"truncated block", [](BatchResult& b, std::size_t i) { b.pages[i].size /= 2; }},
    {"size past the payload",
     [](BatchResult& b, std::size_t i) {
         b.pages[i].size = static_cast<std::uint32_t>(b.payload.size());
     }},
    {"offset past the payload",
     [](BatchResult& b, std::size_t i) {
         b.pages[i].offset = static_cast<std::uint32_t>(b.payload.size() - 4);
     }},
    {"offset and size that wrap",
     [](BatchResult& b, std::size_t i) {
         b.pages[i].offset = 0xffffff00u;
         b.pages[i].size = 0x200u;
     }},
    {"raw with the wrong size",
     [](BatchResult& b, std::size_t i) { b.pages[i].encoding = PageEncoding::Raw; }},
    {"same-filled with bytes",
     [](BatchResult& b, std::size_t i) { b.pages[i].encoding = PageEncoding::SameFilled; }},
    {"unknown encoding",
     [](BatchResult& b, std::size_t i) { b.pages[i].encoding = static_cast<PageEncoding>(9); }},
    {"match offset before the start",
     [](BatchResult& b, std::size_t i) {
         // A block whose first sequence copies from 65535 bytes back.
         const std::uint8_t block[] = {0x10, 'x', 0xff, 0xff, 0x00};
         std::memcpy(b.payload.data() + b.pages[i].offset, block, sizeof(block));
         b.pages[i].size = sizeof(block);
     }},
    {"block of a shorter page",
     [](BatchResult& b, std::size_t i) {
         // A valid LZ4 block, but of 2048 bytes, not PAGE_SIZE.
         const Page text = test::text_page(99);
         const int n =
             LZ4_compress_default(reinterpret_cast<const char*>(text.data()),
                                  reinterpret_cast<char*>(b.payload.data() + b.pages[i].offset),
                                  2048, static_cast<int>(PAGE_SIZE));
         ASSERT_GT(n, 0);
         b.pages[i].size = static_cast<std::uint32_t>(n);
     }},
};

TEST(CpuCorruption, EachCorruptionIsEioNamingThePage) {
    for (const Backend backend : CPU_BACKENDS) {
        for (const NamedCorruption& corruption : CORRUPTIONS) {
            SCOPED_TRACE(std::string(to_string(backend)) + ": " + corruption.name);
            BatchResult batch = text_batch(backend, 8);
            corruption.apply(batch, 5);
            expect_eio(backend, batch, 5);
        }
    }
}

TEST(CpuCorruption, ErrorNamesTheFirstBadPageOfALargeBatch) {
    // Spread over many chunks, so that the parallel decoder meets the later
    // corruption first on some thread.
    for (const Backend backend : CPU_BACKENDS) {
        BatchResult batch = text_batch(backend, 600);
        batch.pages[577].size = 3;
        batch.pages[240].size /= 3;
        batch.pages[431].size = 1;
        expect_eio(backend, batch, 240);
    }
}

TEST(CpuCorruption, RandomByteFlipsNeverCrashOrOverrun) {
    std::mt19937_64 rng(2024);
    for (const Backend backend : CPU_BACKENDS) {
        const BatchResult original = text_batch(backend, 16);
        const auto decompressor = make_cpu_compressor(backend);
        std::size_t rejected = 0;
        for (int round = 0; round < 300; ++round) {
            BatchResult batch = original;
            const std::size_t page = rng() % batch.pages.size();
            const CompressedPage& entry = batch.pages[page];
            for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0; --flips) {
                batch.payload[entry.offset + rng() % entry.size] ^=
                    static_cast<std::uint8_t>(1 + rng() % 255);
            }
            GuardedPages out(batch.pages.size());
            try {
                decompressor->decompress(batch, out.pointers());
            } catch (const Error& error) {
                EXPECT_EQ(error.code().value(), EIO) << error.what();
                ++rejected;
            }
            ASSERT_TRUE(out.guards_intact()) << "round " << round;
        }
        // Most flips break the block; a flipped literal decodes to other data.
        EXPECT_GT(rejected, 0u);
    }
}

}  // namespace
}  // namespace ozram
