// Each format the CPU backends produce, checked with the reference decoder of
// its own library, and the CPU compressor in each format.
#include "cpu/block_codec.hpp"

#include <gtest/gtest.h>
#include <lz4.h>
#include <lzo/lzo1x.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getParams
#include <zstd.h>

#include <atomic>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ozram/algorithm.hpp"
#include "ozram/backend.hpp"
#include "test_pages.hpp"

namespace ozram {
namespace {

// Text, random bytes, one word repeated, and text that ends in zeroes.
std::vector<Page> mixed_pages(std::size_t count, std::uint64_t seed) {
    std::vector<Page> pages;
    for (std::size_t i = 0; i < count; ++i) {
        switch (i % 4) {
            case 0:
                pages.push_back(test::text_page(seed + i));
                break;
            case 1:
                pages.push_back(test::random_page(seed + i));
                break;
            case 2:
                pages.push_back(test::filled_page(0x0101010101010101ULL * (seed + i)));
                break;
            default:
                pages.push_back(test::text_page(seed + i));
                std::memset(pages.back().data() + PAGE_SIZE / 2, 0, PAGE_SIZE / 2);
        }
    }
    return pages;
}

constexpr Algorithm ALL[] = {Algorithm::Lz4, Algorithm::Lz4hc, Algorithm::Lzo, Algorithm::LzoRle,
                             Algorithm::Zstd};

// The page a block gives with the reference decoder of its format's library,
// or nothing when that decoder refuses it or gives another length.
std::optional<Page> reference_decode(Algorithm algorithm, const std::uint8_t* block,
                                     std::size_t length) {
    Page page{};
    switch (algorithm) {
        case Algorithm::Lz4:
        case Algorithm::Lz4hc:
            if (LZ4_decompress_safe(reinterpret_cast<const char*>(block),
                                    reinterpret_cast<char*>(page.data()), static_cast<int>(length),
                                    static_cast<int>(PAGE_SIZE)) != static_cast<int>(PAGE_SIZE)) {
                return std::nullopt;
            }
            return page;
        case Algorithm::Lzo:
        case Algorithm::LzoRle: {
            lzo_uint out = PAGE_SIZE;
            if (lzo_init() != LZO_E_OK ||
                lzo1x_decompress_safe(block, length, page.data(), &out, nullptr) != LZO_E_OK ||
                out != PAGE_SIZE) {
                return std::nullopt;
            }
            return page;
        }
        case Algorithm::Zstd: {
            const std::size_t out = ZSTD_decompress(page.data(), PAGE_SIZE, block, length);
            if (ZSTD_isError(out) || out != PAGE_SIZE) {
                return std::nullopt;
            }
            return page;
        }
    }
    return std::nullopt;
}

TEST(Algorithm, NamesAreTheKernels) {
    for (const Algorithm algorithm : ALL) {
        EXPECT_EQ(parse_algorithm(to_string(algorithm)), algorithm);
    }
    EXPECT_EQ(to_string(Algorithm::LzoRle), "lzo-rle");
    EXPECT_EQ(parse_algorithm("deflate"), std::nullopt);
    EXPECT_EQ(parse_algorithm("LZ4"), std::nullopt);
}

TEST(BlockCodec, EveryFormatRoundTripsThroughItsLibrarysDecoder) {
    const std::vector<Page> pages = mixed_pages(64, 7);
    std::vector<std::uint8_t> block(BLOCK_BOUND);
    for (const Algorithm algorithm : ALL) {
        SCOPED_TRACE(std::string(to_string(algorithm)));
        const auto codec = make_block_codec(algorithm, 1);
        for (std::size_t i = 0; i < pages.size(); ++i) {
            const std::size_t length = codec->compress(pages[i].data(), block.data());
            ASSERT_GT(length, 0u) << "page " << i;
            ASSERT_LE(length, BLOCK_BOUND) << "page " << i;
            const auto decoded = reference_decode(algorithm, block.data(), length);
            ASSERT_TRUE(decoded.has_value()) << "page " << i;
            EXPECT_EQ(*decoded, pages[i]) << "page " << i;
            Page ours{};
            EXPECT_TRUE(decompress_block(algorithm, block.data(), length, ours.data()));
            EXPECT_EQ(ours, pages[i]) << "page " << i;
        }
    }
}

TEST(BlockCodec, DecodersRefuseCutAndDamagedBlocks) {
    const Page page = mixed_pages(1, 3).front();
    std::vector<std::uint8_t> block(BLOCK_BOUND);
    for (const Algorithm algorithm : ALL) {
        SCOPED_TRACE(std::string(to_string(algorithm)));
        const std::size_t length =
            make_block_codec(algorithm, 1)->compress(page.data(), block.data());
        ASSERT_GT(length, 2u);
        Page out{};
        EXPECT_FALSE(decompress_block(algorithm, block.data(), length - 1, out.data()));
        EXPECT_FALSE(decompress_block(algorithm, block.data(), 0, out.data()));
        std::vector<std::uint8_t> garbage(length, 0xee);
        EXPECT_FALSE(decompress_block(algorithm, garbage.data(), garbage.size(), out.data()));
    }
}

// The kernel's lzo-rle decoder reads a stream that starts with byte 17 as
// the RLE format; LZO1X-1 output must never start so.
TEST(BlockCodec, LzoBlocksNeverStartWithTheRleMarker) {
    const std::vector<Page> pages = mixed_pages(256, 11);
    std::vector<std::uint8_t> block(BLOCK_BOUND);
    const auto codec = make_block_codec(Algorithm::LzoRle, 1);
    for (std::size_t i = 0; i < pages.size(); ++i) {
        ASSERT_GT(codec->compress(pages[i].data(), block.data()), 0u);
        EXPECT_NE(block[0], 17) << "page " << i;
    }
}

// The kernel's zstd takes level 3's parameters for an unknown source size;
// so do the agent's frames, which also say their content size.
TEST(BlockCodec, ZstdFramesCarryTheirSizeAndTheKernelsParameters) {
    const Page page = mixed_pages(1, 5).front();
    std::vector<std::uint8_t> block(BLOCK_BOUND);
    const std::size_t length =
        make_block_codec(Algorithm::Zstd, 1)->compress(page.data(), block.data());
    ASSERT_GT(length, 0u);
    EXPECT_EQ(ZSTD_getFrameContentSize(block.data(), length), PAGE_SIZE);
    const std::size_t level3 = ZSTD_compress(std::vector<std::uint8_t>(BLOCK_BOUND).data(),
                                             BLOCK_BOUND, page.data(), PAGE_SIZE, 3);
    ASSERT_FALSE(ZSTD_isError(level3));
    EXPECT_LE(length, level3 + 16) << "level 3 should compress a page alike";
}

// The kernel resets its context, sets each parameter and pledges the page's
// size before every page; the codec sets the parameters once.  The frames
// must be the same, byte for byte, page after page on the same codec.
TEST(BlockCodec, ZstdFramesAreThoseOfTheKernelsCallsForEveryPage) {
    const std::vector<Page> pages = mixed_pages(32, 17);
    const auto codec = make_block_codec(Algorithm::Zstd, 1);
    ZSTD_CCtx* kernel_like = ZSTD_createCCtx();
    ASSERT_NE(kernel_like, nullptr);
    const ZSTD_parameters params = ZSTD_getParams(3, 0, 0);
    std::vector<std::uint8_t> ours(BLOCK_BOUND);
    std::vector<std::uint8_t> theirs(BLOCK_BOUND);
    for (std::size_t i = 0; i < pages.size(); ++i) {
        const std::size_t length = codec->compress(pages[i].data(), ours.data());
        ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_reset(kernel_like, ZSTD_reset_session_and_parameters)));
        ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(kernel_like, PAGE_SIZE)));
        const std::pair<ZSTD_cParameter, int> settings[] = {
            {ZSTD_c_windowLog, static_cast<int>(params.cParams.windowLog)},
            {ZSTD_c_hashLog, static_cast<int>(params.cParams.hashLog)},
            {ZSTD_c_chainLog, static_cast<int>(params.cParams.chainLog)},
            {ZSTD_c_searchLog, static_cast<int>(params.cParams.searchLog)},
            {ZSTD_c_minMatch, static_cast<int>(params.cParams.minMatch)},
            {ZSTD_c_targetLength, static_cast<int>(params.cParams.targetLength)},
            {ZSTD_c_strategy, static_cast<int>(params.cParams.strategy)},
            {ZSTD_c_contentSizeFlag, params.fParams.contentSizeFlag},
            {ZSTD_c_checksumFlag, params.fParams.checksumFlag},
            {ZSTD_c_dictIDFlag, !params.fParams.noDictIDFlag},
        };
        for (const auto& [parameter, value] : settings) {
            ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_setParameter(kernel_like, parameter, value)));
        }
        const std::size_t expected =
            ZSTD_compress2(kernel_like, theirs.data(), theirs.size(), pages[i].data(), PAGE_SIZE);
        ASSERT_FALSE(ZSTD_isError(expected));
        ASSERT_EQ(length, expected) << "page " << i;
        EXPECT_EQ(std::memcmp(ours.data(), theirs.data(), length), 0) << "page " << i;
    }
    ZSTD_freeCCtx(kernel_like);
}

// Decoding on several threads at once: each has its own context.
TEST(BlockCodec, ZstdDecodesOnManyThreads) {
    const std::vector<Page> pages = mixed_pages(16, 19);
    std::vector<std::vector<std::uint8_t>> blocks;
    const auto codec = make_block_codec(Algorithm::Zstd, 1);
    for (const Page& page : pages) {
        std::vector<std::uint8_t> block(BLOCK_BOUND);
        block.resize(codec->compress(page.data(), block.data()));
        ASSERT_FALSE(block.empty());
        blocks.push_back(std::move(block));
    }
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int round = 0; round < 50; ++round) {
                for (std::size_t i = 0; i < pages.size(); ++i) {
                    Page out{};
                    if (!decompress_block(Algorithm::Zstd, blocks[i].data(), blocks[i].size(),
                                          out.data()) ||
                        out != pages[i]) {
                        ++wrong;
                    }
                }
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    EXPECT_EQ(wrong.load(), 0);
}

TEST(CpuCompressor, CompressesAndRestoresEveryFormat) {
    const std::vector<Page> pages = mixed_pages(96, 13);
    std::vector<const std::uint8_t*> in;
    for (const Page& page : pages) {
        in.push_back(page.data());
    }
    for (const Algorithm algorithm : ALL) {
        SCOPED_TRACE(std::string(to_string(algorithm)));
        CpuConfig config;
        config.threads = 2;
        config.algorithm = algorithm;
        const auto compressor = make_cpu_compressor(Backend::Cpu, config);
        BatchResult result;
        compressor->compress(in, result);
        ASSERT_EQ(result.pages.size(), pages.size());
        std::size_t compressed = 0;
        for (std::size_t i = 0; i < pages.size(); ++i) {
            const CompressedPage& entry = result.pages[i];
            if (entry.encoding == PageEncoding::Raw || entry.encoding == PageEncoding::SameFilled) {
                continue;
            }
            EXPECT_EQ(entry.encoding,
                      algorithm == Algorithm::Lz4 ? PageEncoding::Lz4 : PageEncoding::Compressed);
            EXPECT_LE(entry.size, config.huge_threshold);
            const auto decoded =
                reference_decode(algorithm, result.payload.data() + entry.offset, entry.size);
            ASSERT_TRUE(decoded.has_value()) << "page " << i;
            EXPECT_EQ(*decoded, pages[i]) << "page " << i;
            ++compressed;
        }
        EXPECT_GT(compressed, pages.size() / 4) << "most test pages compress";
        std::vector<Page> restored(pages.size());
        std::vector<std::uint8_t*> out;
        for (Page& page : restored) {
            out.push_back(page.data());
        }
        compressor->decompress(result, out);
        EXPECT_EQ(restored, pages);
    }
}

}  // namespace
}  // namespace ozram
