// The compression kernels' block shape: the one the device's occupancy
// calculator picks keeps at least as many warps as any other, and every
// shape, a last block only partly filled included, writes the blocks of the
// host emulation, byte for byte.
#include "device_kernels.hpp"
#include "gpu_test_support.hpp"
#include "host_codec.hpp"

namespace ozram::testing {
namespace {

using GpuBlockShape = GpuTest;

TEST_F(GpuBlockShape, TheChosenShapeKeepsTheMostWarps) {
    for (const GpuCompressKernel kernel : ALL_GPU_COMPRESS_KERNELS) {
        SCOPED_TRACE(std::string(to_string(kernel)));
        kernels::BlockShape chosen;
        ASSERT_EQ(kernels::compress_block_shape(kernel, chosen), cudaSuccess);
        ASSERT_GE(chosen.warps_per_block, 1u);
        ASSERT_LE(chosen.warps_per_block, kernels::MAX_COMPRESS_WARPS_PER_BLOCK);
        EXPECT_EQ(chosen.warps_per_multiprocessor % chosen.warps_per_block, 0u);
        for (unsigned warps = 1; warps <= kernels::MAX_COMPRESS_WARPS_PER_BLOCK; ++warps) {
            kernels::BlockShape other;
            ASSERT_EQ(kernels::compress_block_shape(kernel, other, warps), cudaSuccess) << warps;
            EXPECT_EQ(other.warps_per_block, warps);
            if (warps < chosen.warps_per_block)
                EXPECT_LT(other.warps_per_multiprocessor, chosen.warps_per_multiprocessor) << warps;
            else
                EXPECT_LE(other.warps_per_multiprocessor, chosen.warps_per_multiprocessor) << warps;
        }
    }
}

TEST_F(GpuBlockShape, EveryShapeWritesTheHostEmulationsBlocks) {
    // 301 pages: no block size above 1 divides them, so a last block is
    // always part empty.
    const auto pages = corpus_pages(301);
    for (const GpuCompressKernel kernel : ALL_GPU_COMPRESS_KERNELS) {
        SCOPED_TRACE(std::string(to_string(kernel)));
        std::vector<HostCompressed> host;
        for (const Page& page : pages)
            host.push_back(compress_on_host(page, DEFAULT_HUGE_THRESHOLD,
                                            kernels::LaneOrder::Ascending, kernel));
        for (unsigned warps = 0; warps <= kernels::MAX_COMPRESS_WARPS_PER_BLOCK; ++warps) {
            kernels::BlockShape shape;
            ASSERT_EQ(kernels::compress_block_shape(kernel, shape, warps), cudaSuccess);
            if (shape.warps_per_multiprocessor == 0)
                continue;  // a block this size does not fit: it is never launched
            const auto device = compress_on_device(pages, kernel, warps);
            std::size_t differing = 0;
            for (std::size_t i = 0; i < pages.size(); ++i) {
                const kernels::PageDescriptor& d = device[i].descriptor;
                const kernels::PageDescriptor& h = host[i].descriptor;
                if (d.encoding != h.encoding || d.size != h.size || d.status != h.status ||
                    d.fill_word != h.fill_word || device[i].bytes != host[i].bytes)
                    ++differing;
            }
            EXPECT_EQ(differing, 0u) << "blocks of " << warps << " warps";
        }
    }
}

}  // namespace
}  // namespace ozram::testing
