// The decompression kernel, run through the emulated warp: it restores
// liblz4's blocks and the compressor's, and rejects impossible descriptors.
#include <gtest/gtest.h>
#include <lz4.h>

#include "host_codec.hpp"

namespace ozram::testing {
namespace {

std::vector<std::uint8_t> liblz4_block(const Page& page) {
    std::vector<std::uint8_t> out(LZ4_compressBound(page.size()));
    const int n = LZ4_compress_default(reinterpret_cast<const char*>(page.data()),
                                       reinterpret_cast<char*>(out.data()),
                                       static_cast<int>(page.size()), static_cast<int>(out.size()));
    out.resize(n > 0 ? n : 0);
    return out;
}

TEST(KernelDecompress, RestoresLiblz4Blocks) {
    std::size_t decoded_pages = 0;
    for (const auto& [kind, page] : page_corpus(300)) {
        SCOPED_TRACE(kind);
        const auto block = liblz4_block(page);
        ASSERT_FALSE(block.empty());
        if (block.size() > PAGE_SIZE)
            continue;  // would be stored raw
        Page out{};
        ASSERT_EQ(decompress_lz4_on_host(block, out), kernels::PAGE_OK);
        ASSERT_EQ(out, page);
        ++decoded_pages;
    }
    EXPECT_GT(decoded_pages, 300u);
}

TEST(KernelDecompress, RestoresEveryCompressedPage) {
    for (const auto& [kind, page] : page_corpus(300)) {
        SCOPED_TRACE(kind);
        const auto compressed = compress_on_host(page, PAGE_SIZE);
        Page out{};
        out.fill(0x5a);
        ASSERT_EQ(decompress_on_host(compressed.bytes, compressed.descriptor, out),
                  kernels::PAGE_OK);
        ASSERT_EQ(out, page);
    }
}

TEST(KernelDecompress, RejectsImpossibleDescriptors) {
    const Page page = text_page(3);
    const auto compressed = compress_on_host(page, PAGE_SIZE);
    ASSERT_EQ(compressed.descriptor.encoding, PageEncoding::Lz4);
    Page out{};
    kernels::PageDescriptor unknown = compressed.descriptor;
    unknown.encoding = static_cast<PageEncoding>(7);
    EXPECT_EQ(decompress_on_host(compressed.bytes, unknown, out), kernels::PAGE_BAD_DESCRIPTOR);
    EXPECT_EQ(decompress_on_host({}, compressed.descriptor, out), kernels::PAGE_BAD_DESCRIPTOR);
    kernels::PageDescriptor raw{0, 0, PageEncoding::Raw, 0, 0};
    EXPECT_EQ(decompress_on_host(compressed.bytes, raw, out), kernels::PAGE_BAD_DESCRIPTOR);
    std::vector<std::uint8_t> one_byte(1);
    kernels::PageDescriptor same{42, 0, PageEncoding::SameFilled, 0, 0};
    EXPECT_EQ(decompress_on_host(one_byte, same, out), kernels::PAGE_BAD_DESCRIPTOR);
    std::vector<std::uint8_t> too_long(PAGE_SIZE + 1);
    EXPECT_EQ(decompress_lz4_on_host(too_long, out), kernels::PAGE_BAD_DESCRIPTOR);
}

TEST(KernelDecompress, RestoresRawAndSameFilledPages) {
    const Page page = random_page(9);
    Page out{};
    EXPECT_EQ(decompress_on_host(page, {0, 0, PageEncoding::Raw, 0, 0}, out), kernels::PAGE_OK);
    EXPECT_EQ(out, page);
    EXPECT_EQ(decompress_on_host({}, {0xabababababababab, 0, PageEncoding::SameFilled, 0, 0}, out),
              kernels::PAGE_OK);
    EXPECT_EQ(out, same_filled_page(0xabababababababab));
}

TEST(KernelDecompress, RejectsOffsetZeroAndOffsetsBeforeThePage) {
    // 16 literals, then a match with the given offset, then 5 literals...: a
    // block that is only valid for offsets 1..16.
    auto block_with_offset = [](std::uint16_t offset) {
        std::vector<std::uint8_t> block = {0xff, 0x01};  // 15 + 1 = 16 literals, match code 15
        for (int i = 0; i < 16; ++i)
            block.push_back(static_cast<std::uint8_t>('a' + i));
        block.push_back(static_cast<std::uint8_t>(offset));
        block.push_back(static_cast<std::uint8_t>(offset >> 8));
        // match length 4 + 15 + 255*15 + 150 = 4094 - 16 - 5 = 4075? keep it exact below
        std::uint32_t rest = PAGE_SIZE - 16 - 5 - 4 - 15;
        while (rest >= 255) {
            block.push_back(255);
            rest -= 255;
        }
        block.push_back(static_cast<std::uint8_t>(rest));
        block.push_back(0x50);  // 5 final literals
        for (int i = 0; i < 5; ++i)
            block.push_back('z');
        return block;
    };
    Page out{};
    EXPECT_EQ(decompress_lz4_on_host(block_with_offset(1), out), kernels::PAGE_OK);
    EXPECT_EQ(out[4000], 'p');
    EXPECT_EQ(decompress_lz4_on_host(block_with_offset(16), out), kernels::PAGE_OK);
    EXPECT_EQ(decompress_lz4_on_host(block_with_offset(0), out), kernels::PAGE_CORRUPT);
    EXPECT_EQ(decompress_lz4_on_host(block_with_offset(17), out), kernels::PAGE_CORRUPT);
    EXPECT_EQ(decompress_lz4_on_host(block_with_offset(65535), out), kernels::PAGE_CORRUPT);
}

}  // namespace
}  // namespace ozram::testing
