// Malformed blocks into the decompression kernel (emulated warp): mutated,
// truncated, extended and random inputs.  Each must give an error status or
// exactly the page LZ4_decompress_safe makes of the same bytes; the sanitizer
// build of this test turns any out-of-bounds access into a failure.
#include <gtest/gtest.h>
#include <lz4.h>

#include <random>

#include "fuzz_blocks.hpp"
#include "host_codec.hpp"

namespace ozram::testing {
namespace {

constexpr int ITERATIONS = 6000;

TEST(KernelDecompressFuzz, MalformedBlocksFailCleanlyOrMatchLiblz4) {
    const auto seeds = seed_blocks();
    std::mt19937_64 rng(20260101);
    int rejected = 0, accepted = 0, zero_offsets = 0;
    for (int iteration = 0; iteration < ITERATIONS; ++iteration) {
        const auto block = mutate(seeds[rng() % seeds.size()], rng);
        SCOPED_TRACE(iteration);

        Page ours;
        ours.fill(0xee);
        const auto status = decompress_lz4_on_host(block, ours);
        Page reversed;
        reversed.fill(0xee);
        ASSERT_EQ(decompress_on_host(block, {0, 0, PageEncoding::Lz4, 0, 0}, reversed,
                                     kernels::LaneOrder::Descending),
                  status);
        ASSERT_EQ(reversed, ours) << "the result depends on the order of the lanes";

        // liblz4 on an exact-size copy, too.
        std::vector<char> input(block.begin(), block.end());
        Page theirs{};
        const int n = block.empty()
                          ? -1
                          : LZ4_decompress_safe(
                                input.data(), reinterpret_cast<char*>(theirs.data()),
                                static_cast<int>(input.size()), static_cast<int>(theirs.size()));
        const bool liblz4_ok = n == static_cast<int>(PAGE_SIZE);
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
            Page untouched;
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
