// compress_into(): each page's bytes straight into a buffer of the caller's,
// checked against each format's reference decoder and against compress().
#include <gtest/gtest.h>
#include <lz4.h>
#include <lzo/lzo1x.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "ozram/backend.hpp"
#include "ozram/error.hpp"
#include "test_pages.hpp"

namespace ozram {
namespace {

// What the caller's buffers hold before the call: any byte left as it is was
// not written.
constexpr std::uint8_t UNTOUCHED = 0xa5;

struct Variant {
    Backend backend;
    unsigned threads;
    Algorithm algorithm;
};

std::string variant_name(const testing::TestParamInfo<Variant>& info) {
    std::string name = std::string(to_string(info.param.backend)) + "_threads" +
                       std::to_string(info.param.threads) + "_" +
                       std::string(to_string(info.param.algorithm));
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

// Text, incompressible and same-filled pages, interleaved so that every
// chunk of the pool gets each kind.
std::vector<Page> mixed_pages() {
    std::vector<Page> pages;
    for (std::uint64_t i = 0; i < 150; ++i) {
        switch (i % 5) {
            case 0:
                pages.push_back(test::filled_page(0));
                break;
            case 1:
                pages.push_back(test::random_page(i));
                break;
            case 2:
                pages.push_back(test::filled_page(0x0102030405060708ULL * i));
                break;
            default:
                pages.push_back(test::text_page(i));
        }
    }
    return pages;
}

// Decodes `length` bytes of `format` with that format's own library.
bool reference_decode(Algorithm format, const std::uint8_t* block, std::size_t length,
                      std::uint8_t* page) {
    switch (format) {
        case Algorithm::Lz4:
        case Algorithm::Lz4hc:
            return LZ4_decompress_safe(reinterpret_cast<const char*>(block),
                                       reinterpret_cast<char*>(page), static_cast<int>(length),
                                       PAGE_SIZE) == static_cast<int>(PAGE_SIZE);
        case Algorithm::Zstd: {
            const std::size_t out = ZSTD_decompress(page, PAGE_SIZE, block, length);
            return !ZSTD_isError(out) && out == PAGE_SIZE;
        }
        case Algorithm::Lzo:
        case Algorithm::LzoRle: {
            // The agent's lzo-rle blocks are plain LZO1X (algorithm.hpp).
            lzo_uint out = PAGE_SIZE;
            return lzo1x_decompress_safe(block, length, page, &out, nullptr) == LZO_E_OK &&
                   out == PAGE_SIZE;
        }
    }
    return false;
}

class CompressInto : public testing::TestWithParam<Variant> {
  protected:
    [[nodiscard]] std::unique_ptr<PageCompressor> make() const {
        CpuConfig config;
        config.threads = GetParam().threads;
        config.algorithm = GetParam().algorithm;
        return make_cpu_compressor(GetParam().backend, config);
    }
};

INSTANTIATE_TEST_SUITE_P(Backends, CompressInto,
                         testing::Values(Variant{Backend::Scalar, 0, Algorithm::Lz4},
                                         Variant{Backend::Cpu, 1, Algorithm::Lz4},
                                         Variant{Backend::Cpu, 3, Algorithm::Lz4},
                                         Variant{Backend::Cpu, 2, Algorithm::Lz4hc},
                                         Variant{Backend::Cpu, 2, Algorithm::Zstd},
                                         Variant{Backend::Cpu, 2, Algorithm::Lzo},
                                         Variant{Backend::Cpu, 2, Algorithm::LzoRle}),
                         variant_name);

TEST_P(CompressInto, WritesOnlyEachCompressedBlockIntoItsOwnBuffer) {
    const std::vector<Page> pages = mixed_pages();
    const auto in = test::pointers(pages);
    std::vector<Page> outputs(pages.size());
    for (Page& output : outputs) {
        output.fill(UNTOUCHED);
    }
    auto out_ptrs = test::pointers(outputs);
    // A different order from the pages': each page's bytes must follow it.
    std::reverse(out_ptrs.begin(), out_ptrs.end());

    auto compressor = make();
    BatchResult into;
    compressor->compress_into(in, out_ptrs, into);
    BatchResult reference;
    compressor->compress(in, reference);

    ASSERT_EQ(into.pages.size(), pages.size());
    EXPECT_TRUE(into.payload.empty());
    std::size_t compressed = 0;
    std::size_t raw = 0;
    std::size_t same = 0;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        SCOPED_TRACE("page " + std::to_string(i));
        const CompressedPage& page = into.pages[i];
        const CompressedPage& expected = reference.pages[i];
        EXPECT_EQ(page.offset, 0u);
        ASSERT_EQ(page.encoding, expected.encoding);
        ASSERT_EQ(page.size, expected.size);
        const std::uint8_t* output = out_ptrs[i];
        std::size_t written = 0;
        switch (page.encoding) {
            case PageEncoding::SameFilled:
                ++same;
                EXPECT_EQ(page.fill_word, expected.fill_word);
                EXPECT_EQ(test::filled_page(page.fill_word), pages[i]);
                break;
            case PageEncoding::Raw:
                ++raw;
                break;
            case PageEncoding::Lz4:
            case PageEncoding::Compressed: {
                ++compressed;
                written = page.size;
                ASSERT_GT(page.size, 0u);
                ASSERT_LE(page.size, DEFAULT_HUGE_THRESHOLD);
                EXPECT_TRUE(
                    std::equal(output, output + page.size, reference.bytes(expected).begin()));
                Page restored{};
                const Algorithm format =
                    page.encoding == PageEncoding::Lz4 ? Algorithm::Lz4 : GetParam().algorithm;
                EXPECT_TRUE(reference_decode(format, output, page.size, restored.data()));
                EXPECT_EQ(restored, pages[i]);
                break;
            }
        }
        // Nothing past the block: a raw or same-filled page's buffer is untouched.
        EXPECT_TRUE(std::all_of(output + written, output + PAGE_SIZE,
                                [](std::uint8_t b) { return b == UNTOUCHED; }));
    }
    EXPECT_EQ(same, 60u);
    EXPECT_EQ(raw, 30u);
    EXPECT_EQ(compressed, 60u);
}

TEST_P(CompressInto, RefusesAnOutputCountOtherThanThePages) {
    const std::vector<Page> pages = mixed_pages();
    const auto in = test::pointers(pages);
    std::vector<Page> outputs(pages.size() - 1);
    const auto out_ptrs = test::pointers(outputs);
    BatchResult result;
    try {
        make()->compress_into(in, out_ptrs, result);
        FAIL() << "compress_into took " << out_ptrs.size() << " outputs for " << in.size()
               << " pages";
    } catch (const Error& error) {
        EXPECT_EQ(error.code().value(), EINVAL);
    }
}

TEST_P(CompressInto, RefusesANullOutput) {
    const std::vector<Page> pages = mixed_pages();
    const auto in = test::pointers(pages);
    std::vector<Page> outputs(pages.size());
    auto out_ptrs = test::pointers(outputs);
    out_ptrs[77] = nullptr;
    BatchResult result;
    try {
        make()->compress_into(in, out_ptrs, result);
        FAIL() << "compress_into wrote page 77 through a null pointer";
    } catch (const Error& error) {
        EXPECT_EQ(error.code().value(), EINVAL);
    }
}

}  // namespace
}  // namespace ozram
