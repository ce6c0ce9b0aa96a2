// Pages read in place: registered host memory (ordinary heap memory, and a
// read-only shared mapping like the agent's view of a ring's staging area)
// is read by the gather kernel instead of being copied into pinned buffers.
// Every result is checked against liblz4's decoder, and the counters show
// which path each chunk took.
#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include "gpu_test_support.hpp"
#include "ozram/error.hpp"

namespace ozram::testing {
namespace {

using GpuInPlace = GpuTest;

std::unique_ptr<GpuBatchCompressor> small_batches(std::size_t batch_size) {
    GpuBatchConfig config;
    config.batch_size = batch_size;
    config.ring_buffer_slots = 3;
    return GpuBatchCompressor::create(config);
}

TEST_F(GpuInPlace, RegisteredHeapPagesAreReadInPlace) {
    const auto pages = corpus_pages(300);
    AlignedPages memory(pages);
    auto gpu = small_batches(128);
    ASSERT_TRUE(gpu->register_host_region(memory.span()))
        << "the driver refused ordinary heap memory";
    BatchResult batch;
    gpu->compress(memory.pointers(), batch);
    EXPECT_EQ(count_wrong_pages(batch, pages), 0u);
    EXPECT_EQ(gpu->pages_read_in_place(), pages.size());
    EXPECT_EQ(gpu->pages_copied(), 0u);
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

// A staging slot holds another page in the next batch: the device must read
// the new bytes, not anything it cached from the old ones.
TEST_F(GpuInPlace, ReusedAddressesGiveTheirNewContents) {
    const auto first = corpus_pages(200);
    std::vector<Page> second = first;
    for (std::size_t i = 0; i < second.size(); ++i)
        second[i][i % PAGE_SIZE] ^= 0x5a;
    AlignedPages memory(first);
    auto gpu = small_batches(64);
    ASSERT_TRUE(gpu->register_host_region(memory.span()));
    BatchResult batch;
    gpu->compress(memory.pointers(), batch);
    EXPECT_EQ(count_wrong_pages(batch, first), 0u);
    for (std::size_t i = 0; i < second.size(); ++i)
        std::memcpy(memory.page(i), second[i].data(), PAGE_SIZE);
    gpu->compress(memory.pointers(), batch);
    EXPECT_EQ(count_wrong_pages(batch, second), 0u);
    EXPECT_EQ(gpu->pages_read_in_place(), first.size() + second.size());
}

// A chunk is read in place only when all of its pages can be: one page
// outside the region, or one misaligned, sends its chunk through the copy.
TEST_F(GpuInPlace, AChunkWithAPageOutsideIsCopied) {
    const auto pages = corpus_pages(3 * 64);  // synthetic pages too: more than 3 chunks
    ASSERT_GT(pages.size(), 3u * 64);
    AlignedPages memory(pages);
    std::vector<Page> outside = pages;  // the same bytes, in unregistered memory
    auto gpu = small_batches(64);
    ASSERT_TRUE(gpu->register_host_region(memory.span()));
    auto pointers = memory.pointers();
    pointers[64 + 5] = outside[64 + 5].data();  // chunk 1: one page elsewhere
    // Chunk 2: one page at a misaligned address inside a registered region.
    AlignedPages misaligned_home({pages[0], pages[0]});
    std::memcpy(misaligned_home.page(0) + 8, pages[128].data(), PAGE_SIZE);
    ASSERT_TRUE(gpu->register_host_region(misaligned_home.span()));
    pointers[128] = misaligned_home.page(0) + 8;
    BatchResult batch;
    gpu->compress(pointers, batch);
    EXPECT_EQ(count_wrong_pages(batch, pages), 0u);
    // Chunks 1 and 2 are copied; every other chunk is read in place.
    EXPECT_EQ(gpu->pages_read_in_place(), pages.size() - 128);
    EXPECT_EQ(gpu->pages_copied(), 128u);
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuInPlace, AnUnregisteredRegionIsCopiedAgain) {
    const auto pages = corpus_pages(100);
    AlignedPages memory(pages);
    auto gpu = small_batches(256);
    ASSERT_TRUE(gpu->register_host_region(memory.span()));
    try {
        (void)gpu->register_host_region(memory.span().subspan(PAGE_SIZE, PAGE_SIZE));
        ADD_FAILURE() << "an overlapping region was accepted";
    } catch (const Error& error) {
        EXPECT_EQ(error.code().value(), EEXIST);
    }
    EXPECT_FALSE(gpu->unregister_host_region(memory.page(1)));
    EXPECT_TRUE(gpu->unregister_host_region(memory.page(0)));
    EXPECT_FALSE(gpu->unregister_host_region(memory.page(0)));
    BatchResult batch;
    gpu->compress(memory.pointers(), batch);
    EXPECT_EQ(count_wrong_pages(batch, pages), 0u);
    EXPECT_EQ(gpu->pages_read_in_place(), 0u);
    EXPECT_EQ(gpu->pages_copied(), pages.size());
    // And may be registered again, by this compressor or another.
    EXPECT_TRUE(gpu->register_host_region(memory.span()));
}

// The agent maps a ring's staging area shared and read-only.  Where the
// device supports read-only registration, such a mapping is read in place;
// elsewhere the driver refuses it and the pages are copied.  Either way the
// result is right.
TEST_F(GpuInPlace, ASharedReadOnlyMappingLikeTheStagingArea) {
    const auto pages = corpus_pages(256);
    const std::size_t bytes = pages.size() * PAGE_SIZE;
    void* mapping = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mapping, MAP_FAILED);
    auto* staging = static_cast<std::uint8_t*>(mapping);
    for (std::size_t i = 0; i < pages.size(); ++i)
        std::memcpy(staging + i * PAGE_SIZE, pages[i].data(), PAGE_SIZE);
    ASSERT_EQ(mprotect(mapping, bytes, PROT_READ), 0);

    int read_only_supported = 0;
    ASSERT_EQ(
        cudaDeviceGetAttribute(&read_only_supported, cudaDevAttrHostRegisterReadOnlySupported, 0),
        cudaSuccess);
    auto gpu = small_batches(64);
    const bool registered = gpu->register_host_region({staging, bytes});
    if (read_only_supported) {
        EXPECT_TRUE(registered) << "the device supports read-only registration";
    }
    std::vector<const std::uint8_t*> pointers;
    for (std::size_t i = 0; i < pages.size(); ++i)
        pointers.push_back(staging + i * PAGE_SIZE);
    BatchResult batch;
    gpu->compress(pointers, batch);
    EXPECT_EQ(count_wrong_pages(batch, pages), 0u);
    EXPECT_EQ(gpu->pages_read_in_place(), registered ? pages.size() : 0u);
    EXPECT_EQ(gpu->pages_copied(), registered ? 0u : pages.size());
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
    if (registered) {
        EXPECT_TRUE(gpu->unregister_host_region(staging));
    }
    munmap(mapping, bytes);
}

}  // namespace
}  // namespace ozram::testing
