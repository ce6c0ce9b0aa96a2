// Malformed blocks into the decompression kernel (emulated warp): mutated,
// truncated, extended and random inputs.  Each must give an error status or
// exactly the page LZ4_decompress_safe makes of the same bytes; the sanitizer
// build of this test turns any out-of-bounds access into a failure.
#include <gtest/gtest.h>
#include <lz4.h>

#include <random>

#include "host_codec.hpp"

namespace ozram::testing {
namespace {

constexpr int ITERATIONS = 6000;

std::vector<std::vector<std::uint8_t>> seed_blocks() {
    std::vector<std::vector<std::uint8_t>> blocks;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        for (const TestPage& page :
             {text_page(seed), mixed_page(seed), periodic_page(seed * 3, seed)}) {
            // Ours and liblz4's, whose parses differ.
            blocks.push_back(compress_on_host(page, kernels::PAGE_BYTES).bytes);
            std::vector<std::uint8_t> theirs(LZ4_compressBound(page.size()));
            const int n = LZ4_compress_default(
                reinterpret_cast<const char*>(page.data()), reinterpret_cast<char*>(theirs.data()),
                static_cast<int>(page.size()), static_cast<int>(theirs.size()));
            theirs.resize(n);
            blocks.push_back(theirs);
        }
    }
    return blocks;
}

// Whether a block that liblz4 decodes holds a match of offset 0.  The format
// forbids it, and the kernel rejects it, but LZ4_decompress_safe's fast path
// lets it through (copying the output onto itself), so there the two differ.
bool has_zero_offset(const std::vector<std::uint8_t>& block) {
    std::size_t ip = 0;
    auto extra = [&](std::size_t& length) {
        for (std::uint8_t byte = 255; byte == 255 && ip < block.size(); length += byte)
            byte = block[ip++];
    };
    while (ip < block.size()) {
        const std::uint8_t token = block[ip++];
        std::size_t literals = token >> 4;
        if (literals == 15)
            extra(literals);
        ip += literals;
        if (ip + 2 > block.size())
            return false;
        if (block[ip] == 0 && block[ip + 1] == 0)
            return true;
        ip += 2;
        std::size_t match = token & 15;
        if (match == 15)
            extra(match);
    }
    return false;
}

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> block, std::mt19937_64& rng) {
    auto pick = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
    switch (rng() % 6) {
        case 0:  // flip a few bits
            for (int i = 0, n = 1 + pick(4); i < n; ++i)
                block[pick(block.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
            break;
        case 1:  // overwrite a byte, often a token-like or length-like value
            block[pick(block.size())] = static_cast<std::uint8_t>(
                rng() % 2 ? rng() : std::vector<int>{0, 15, 240, 255}[pick(4)]);
            break;
        case 2:  // truncate
            block.resize(pick(block.size()));
            break;
        case 3:  // append junk
            for (int i = 0, n = 1 + pick(64); i < n; ++i)
                block.push_back(static_cast<std::uint8_t>(rng()));
            break;
        case 4:  // entirely random bytes of a random length
            block.resize(1 + pick(kernels::PAGE_BYTES));
            for (auto& b : block)
                b = static_cast<std::uint8_t>(rng());
            break;
        default: {  // repeat a slice somewhere else
            const std::size_t from = pick(block.size()), to = pick(block.size());
            const std::size_t n = std::min({pick(32), block.size() - from, block.size() - to});
            std::copy_n(block.begin() + from, n, block.begin() + to);
            break;
        }
    }
    if (block.size() > kernels::PAGE_BYTES)
        block.resize(kernels::PAGE_BYTES);
    return block;
}

TEST(KernelDecompressFuzz, MalformedBlocksFailCleanlyOrMatchLiblz4) {
    const auto seeds = seed_blocks();
    std::mt19937_64 rng(20260101);
    int rejected = 0, accepted = 0, zero_offsets = 0;
    for (int iteration = 0; iteration < ITERATIONS; ++iteration) {
        const auto block = mutate(seeds[rng() % seeds.size()], rng);
        SCOPED_TRACE(iteration);

        TestPage ours;
        ours.fill(0xee);
        const auto status = decompress_lz4_on_host(block, ours);

        // liblz4 on an exact-size copy, too.
        std::vector<char> input(block.begin(), block.end());
        TestPage theirs{};
        const int n = block.empty()
                          ? -1
                          : LZ4_decompress_safe(
                                input.data(), reinterpret_cast<char*>(theirs.data()),
                                static_cast<int>(input.size()), static_cast<int>(theirs.size()));
        const bool liblz4_ok = n == static_cast<int>(kernels::PAGE_BYTES);
        if (status == kernels::PAGE_OK) {
            ++accepted;
            ASSERT_TRUE(liblz4_ok) << "accepted a block liblz4 rejects";
            ASSERT_EQ(ours, theirs);
        } else {
            ++rejected;
            ASSERT_TRUE(status == kernels::PAGE_CORRUPT || status == kernels::PAGE_BAD_DESCRIPTOR);
            if (liblz4_ok) {
                ASSERT_TRUE(has_zero_offset(block)) << "rejected a block liblz4 decodes";
                ++zero_offsets;
            }
            TestPage untouched;
            untouched.fill(0xee);
            ASSERT_EQ(ours, untouched) << "wrote the page despite an error";
        }
    }
    std::printf("fuzz: %d accepted, %d rejected (%d only for an offset of 0)\n", accepted, rejected,
                zero_offsets);
    EXPECT_GT(rejected, ITERATIONS / 4);
    EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace ozram::testing
