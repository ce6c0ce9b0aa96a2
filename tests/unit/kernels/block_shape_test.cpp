// The rule that picks a compression kernel's block size, against a model of
// an H100's multiprocessor (the device itself answers with CUDA's occupancy
// calculator, which applies the same limits).
#include "kernels/block_shape.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/lz4_compress.cuh"

namespace ozram::kernels {
namespace {

// An H100's multiprocessor: 228 KiB of shared memory, of which each block
// also takes 1 KiB; at most 32 blocks and 64 warps; 64 Ki registers, 48 a
// thread (what the window kernels take).
struct H100Model {
    unsigned scratch_bytes;  // shared memory per warp
    unsigned operator()(unsigned warps) const {
        const unsigned block_bytes = warps * scratch_bytes + 1024;
        const unsigned by_memory = 228 * 1024 / block_bytes;
        const unsigned by_warps = 64 / warps;
        const unsigned by_registers = 65536 / (warps * 32 * 48);
        return std::min({by_memory, by_warps, by_registers, 32u});
    }
};

template <CompressKernel Kernel>
BlockShape shape_on_h100() {
    return most_resident_shape(32, H100Model{sizeof(CompressScratch<Kernel>)});
}

TEST(BlockShape, EachWindowKernelGetsTheSizeThatKeepsMostWarps) {
    // window-11, 8 KiB a warp: blocks of 4 keep 6 x 4 = 24 warps, 14 keep 28.
    EXPECT_EQ(H100Model{sizeof(CompressScratch<CompressKernel::Window11>)}(4) * 4, 24u);
    const BlockShape window11 = shape_on_h100<CompressKernel::Window11>();
    EXPECT_EQ(window11.warps_per_block, 14u);
    EXPECT_EQ(window11.warps_per_multiprocessor, 28u);

    const BlockShape window10 = shape_on_h100<CompressKernel::Window10>();
    EXPECT_EQ(window10.warps_per_block, 4u);
    EXPECT_EQ(window10.warps_per_multiprocessor, 36u);

    const BlockShape window12 = shape_on_h100<CompressKernel::Window12>();
    EXPECT_EQ(window12.warps_per_block, 2u);
    EXPECT_EQ(window12.warps_per_multiprocessor, 18u);
}

TEST(BlockShape, OfSizesThatTieTheSmallestWins) {
    const BlockShape shape = most_resident_shape(32, [](unsigned warps) { return 16 / warps; });
    EXPECT_EQ(shape.warps_per_block, 1u);
    EXPECT_EQ(shape.warps_per_multiprocessor, 16u);
}

TEST(BlockShape, NoSizeThatFitsGivesNoShape) {
    const BlockShape shape = most_resident_shape(32, [](unsigned) { return 0; });
    EXPECT_EQ(shape.warps_per_block, 0u);
    EXPECT_EQ(shape.warps_per_multiprocessor, 0u);
    EXPECT_EQ(most_resident_shape(0, [](unsigned) { return 4; }).warps_per_block, 0u);
}

}  // namespace
}  // namespace ozram::kernels
