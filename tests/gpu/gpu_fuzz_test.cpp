// The device decoder fed malformed blocks: each page must come back with an
// error status and untouched, or exactly as LZ4_decompress_safe decodes it;
// and the statuses must be those of the host emulation of the same source.
#include <lz4.h>

#include <random>

#include "device_kernels.hpp"
#include "fuzz_blocks.hpp"
#include "gpu_test_support.hpp"
#include "host_codec.hpp"

namespace ozram::testing {
namespace {

using GpuDecoderFuzz = GpuTest;

void fuzz_device_decoder(std::size_t count, std::uint64_t seed) {
    const auto seeds = seed_blocks();
    std::mt19937_64 rng(seed);
    std::vector<std::vector<std::uint8_t>> blocks;
    for (std::size_t i = 0; i < count; ++i)
        blocks.push_back(mutate(seeds[rng() % seeds.size()], rng));
    blocks.push_back({});  // an empty block
    const auto decoded = decode_on_device(blocks);

    std::size_t accepted = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        SCOPED_TRACE(i);
        Page host;
        host.fill(0xee);
        const auto host_status = decompress_lz4_on_host(blocks[i], host);
        ASSERT_EQ(decoded[i].status, host_status);
        ASSERT_EQ(decoded[i].page, host);  // untouched (0xee) on an error

        Page theirs{};
        const int n = blocks[i].empty()
                          ? -1
                          : LZ4_decompress_safe(reinterpret_cast<const char*>(blocks[i].data()),
                                                reinterpret_cast<char*>(theirs.data()),
                                                static_cast<int>(blocks[i].size()), PAGE_SIZE);
        if (decoded[i].status == kernels::PAGE_OK) {
            ++accepted;
            ASSERT_EQ(n, static_cast<int>(PAGE_SIZE));
            ASSERT_EQ(decoded[i].page, theirs);
        } else if (n == static_cast<int>(PAGE_SIZE)) {
            ASSERT_TRUE(has_zero_offset(blocks[i]));
        }
    }
    EXPECT_GT(accepted, 0u);
}

TEST_F(GpuDecoderFuzz, MalformedBlocksFailCleanlyOrMatchLiblz4) {
    fuzz_device_decoder(20000, 7);
}

}  // namespace
}  // namespace ozram::testing
