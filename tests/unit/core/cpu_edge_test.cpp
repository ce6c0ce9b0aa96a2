// Edge cases of the CPU backends: batch sizes, thresholds, bad arguments.
#include <gtest/gtest.h>
#include <lz4.h>

#include <vector>

#include "ozram/backend.hpp"
#include "ozram/error.hpp"
#include "test_pages.hpp"

namespace ozram {
namespace {

constexpr Backend CPU_BACKENDS[] = {Backend::Scalar, Backend::Cpu};

// The size of a page's LZ4 block with unlimited room, computed by liblz4
// itself: what decides Raw against Lz4 for a given threshold.
int independent_lz4_size(const Page& page) {
    std::vector<char> out(LZ4_compressBound(static_cast<int>(PAGE_SIZE)));
    return LZ4_compress_default(reinterpret_cast<const char*>(page.data()), out.data(),
                                static_cast<int>(PAGE_SIZE), static_cast<int>(out.size()));
}

TEST(CpuEdge, EmptyBatch) {
    for (const Backend backend : CPU_BACKENDS) {
        const auto compressor = make_cpu_compressor(backend);
        BatchResult result;
        result.reset(5);
        compressor->compress({}, result);
        EXPECT_TRUE(result.pages.empty());
        EXPECT_TRUE(result.payload.empty());
        EXPECT_EQ(result.input_bytes(), 0u);
        compressor->decompress(result, {});
    }
}

TEST(CpuEdge, OnePage) {
    for (const Backend backend : CPU_BACKENDS) {
        const std::vector<Page> page{test::text_page(3)};
        const auto counts = test::expect_round_trip(*make_cpu_compressor(backend), page);
        EXPECT_EQ(counts.lz4, 1u);
    }
}

TEST(CpuEdge, BatchLargerThanAnythingConfigured) {
    // 20000 pages (80 MiB), built from a few distinct pages to keep it quick.
    std::vector<Page> distinct;
    for (std::uint64_t seed = 0; seed < 16; ++seed) {
        distinct.push_back(test::text_page(seed));
        distinct.push_back(test::random_page(seed));
        distinct.push_back(test::filled_page(seed));
    }
    std::vector<Page> pages(20000);
    for (std::size_t i = 0; i < pages.size(); ++i) {
        pages[i] = distinct[(i * 7) % distinct.size()];
    }
    for (const Backend backend : CPU_BACKENDS) {
        const auto counts = test::expect_round_trip(*make_cpu_compressor(backend), pages);
        EXPECT_EQ(counts.lz4 + counts.raw + counts.same_filled, pages.size());
        EXPECT_GT(counts.lz4, 6000u);
        EXPECT_GT(counts.raw, 6000u);
        EXPECT_GT(counts.same_filled, 6000u);
    }
}

TEST(CpuEdge, AllIncompressible) {
    std::vector<Page> pages;
    for (std::uint64_t seed = 100; seed < 400; ++seed) {
        pages.push_back(test::random_page(seed));
    }
    for (const Backend backend : CPU_BACKENDS) {
        const auto compressor = make_cpu_compressor(backend);
        BatchResult result;
        compressor->compress(test::pointers(pages), result);
        const auto counts = test::expect_faithful(result, pages);
        EXPECT_EQ(counts.raw, pages.size());
        std::size_t stored = 0;
        for (const CompressedPage& page : result.pages) {
            stored += page.stored_size();
        }
        EXPECT_EQ(stored, pages.size() * PAGE_SIZE) << "nothing stored smaller than the page";
    }
}

TEST(CpuEdge, HugeThresholdDecidesRawExactlyAsZram) {
    // Pages whose LZ4 size spreads over the whole range: text with a growing
    // share of random bytes.
    std::vector<Page> pages;
    for (std::size_t noise = 0; noise <= PAGE_SIZE; noise += 256) {
        Page page = test::text_page(noise);
        const Page random = test::random_page(noise);
        std::copy(random.begin(), random.begin() + noise, page.begin());
        pages.push_back(page);
    }
    for (const std::size_t threshold :
         {std::size_t{1}, std::size_t{63}, std::size_t{1023}, std::size_t{2047},
          DEFAULT_HUGE_THRESHOLD, PAGE_SIZE - 1, PAGE_SIZE}) {
        for (const Backend backend : CPU_BACKENDS) {
            SCOPED_TRACE("threshold " + std::to_string(threshold));
            const auto compressor =
                make_cpu_compressor(backend, CpuConfig{.huge_threshold = threshold});
            BatchResult result;
            compressor->compress(test::pointers(pages), result);
            test::expect_faithful(result, pages, threshold);
            for (std::size_t i = 0; i < pages.size(); ++i) {
                const int lz4_size = independent_lz4_size(pages[i]);
                const bool huge = static_cast<std::size_t>(lz4_size) > threshold;
                EXPECT_EQ(result.pages[i].encoding, huge ? PageEncoding::Raw : PageEncoding::Lz4)
                    << "page " << i << ", LZ4 size " << lz4_size;
                if (!huge) {
                    EXPECT_EQ(result.pages[i].size, static_cast<std::uint32_t>(lz4_size));
                }
            }
        }
    }
}

TEST(CpuEdge, HugeThresholdIsTheLargestLz4BlockKept) {
    const Page page = test::text_page(7);
    const std::size_t length = static_cast<std::size_t>(independent_lz4_size(page));
    ASSERT_LT(length, PAGE_SIZE);
    const std::uint8_t* const one[] = {page.data()};
    for (const Backend backend : CPU_BACKENDS) {
        BatchResult at;
        make_cpu_compressor(backend, CpuConfig{.huge_threshold = length})->compress(one, at);
        EXPECT_EQ(at.pages[0].encoding, PageEncoding::Lz4) << to_string(backend);
        EXPECT_EQ(at.pages[0].size, length);
        BatchResult below;
        make_cpu_compressor(backend, CpuConfig{.huge_threshold = length - 1})->compress(one, below);
        EXPECT_EQ(below.pages[0].encoding, PageEncoding::Raw) << to_string(backend);
    }
}

TEST(CpuEdge, BadConfigIsRejected) {
    const auto expect_einval = [](Backend backend, CpuConfig config) {
        try {
            (void)make_cpu_compressor(backend, config);
            ADD_FAILURE() << "no error";
        } catch (const Error& error) {
            EXPECT_EQ(error.code().value(), EINVAL) << error.what();
        }
    };
    expect_einval(Backend::Scalar, CpuConfig{.huge_threshold = 0});
    expect_einval(Backend::Cpu, CpuConfig{.huge_threshold = PAGE_SIZE + 1});
    expect_einval(Backend::Scalar, CpuConfig{.lz4_acceleration = 0});
    expect_einval(Backend::Cpu, CpuConfig{.lz4_acceleration = -3});
    expect_einval(Backend::Cpu, CpuConfig{.threads = 100000});
    expect_einval(Backend::Gpu, CpuConfig{});
}

TEST(CpuEdge, MismatchedDestinationCountIsRejected) {
    const std::vector<Page> pages{test::text_page(1), test::text_page(2)};
    for (const Backend backend : CPU_BACKENDS) {
        const auto compressor = make_cpu_compressor(backend);
        BatchResult result;
        compressor->compress(test::pointers(pages), result);
        std::vector<Page> restored(1);
        try {
            compressor->decompress(result, test::pointers(restored));
            ADD_FAILURE() << "no error";
        } catch (const Error& error) {
            EXPECT_EQ(error.code().value(), EINVAL) << error.what();
        }
    }
}

TEST(CpuEdge, NullPagePointerIsRejected) {
    const Page page = test::text_page(1);
    const std::vector<const std::uint8_t*> in{page.data(), nullptr};
    for (const Backend backend : CPU_BACKENDS) {
        BatchResult result;
        try {
            make_cpu_compressor(backend)->compress(in, result);
            ADD_FAILURE() << "no error";
        } catch (const Error& error) {
            EXPECT_EQ(error.code().value(), EINVAL) << error.what();
            EXPECT_NE(std::string(error.what()).find("page 1"), std::string::npos) << error.what();
        }
    }
}

}  // namespace
}  // namespace ozram
