// The GPU backend's host half on the emulated device: every path a batch can
// take (pages read in place or copied, bytes written in place or packed and
// copied out, batches in flight), each page checked with liblz4, and what
// the host copies counted.
#include <algorithm>
#include <deque>

#include "gpu_host_support.hpp"

namespace ozram::gpu::test {
namespace {

TEST(GpuHostHalf, CompressIntoThePayloadPacksThePagesBackToBack) {
    auto [device, gpu] = emulated_gpu({.batch_size = 64});
    const auto pages = mixed_pages(300);  // five chunks through four slots
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    EXPECT_EQ(wrong_in_payload(batch, pages), 0u);
    std::uint64_t stored = 0;
    for (const CompressedPage& page : batch.pages)
        stored += page.stored_size();
    EXPECT_EQ(batch.payload.size(), stored) << "a packed payload holds the stored bytes only";
    EXPECT_EQ(batch.backend, Backend::Gpu);
    EXPECT_EQ(gpu->fallback_batches(), 0u);
    EXPECT_GT(device->ran(Operation::Compress), 4u);
}

TEST(GpuHostHalf, DecompressRestoresEveryPage) {
    auto [device, gpu] = emulated_gpu({.batch_size = 100});
    const auto pages = mixed_pages(250);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    Area restored(pages.size());
    gpu->decompress(batch, restored.outputs());
    EXPECT_EQ(wrong_restored(restored, pages), 0u);
    EXPECT_EQ(gpu->fallback_batches(), 0u);
}

// The agent's path: pages in registered (read-only) memory, outputs in
// memory registered for the device to write.  The host copies no byte: it
// reads one 16-byte descriptor a page, and the device writes the compressed
// bytes (rounded up to whole 16-byte vectors), nothing of the pages.
TEST(GpuHostHalf, TheAgentsPathCopiesNothingOnTheHost) {
    auto [device, gpu] = emulated_gpu({.batch_size = 128});
    const auto pages = mixed_pages(500);
    Area staging(pages);
    Area output(pages.size());
    ASSERT_TRUE(gpu->register_host_region(staging.span()));
    ASSERT_TRUE(gpu->register_output_region(output.span()));
    BatchResult batch;
    const auto outputs = output.outputs();
    gpu->compress_into(staging.pointers(), outputs, batch);
    EXPECT_EQ(wrong_in_outputs(batch, outputs, pages), 0u);

    std::uint64_t compressed = 0;
    for (const CompressedPage& page : batch.pages)
        compressed += page.encoding == PageEncoding::Lz4 ? page.size : 0;
    const GpuHostWork work = gpu->host_work();
    EXPECT_EQ(work.bytes_copied, 0u);
    EXPECT_EQ(work.descriptor_bytes, 16 * pages.size());
    EXPECT_LE(work.bytes_copied + work.descriptor_bytes, compressed + 16 * pages.size());
    EXPECT_EQ(work.pages_in_place, pages.size());
    EXPECT_EQ(work.outputs_in_place, pages.size());
    EXPECT_LE(device->bytes_written_to_host(), compressed + 15 * pages.size());
    // Back to back, the pages came up by DMA, not by the gather kernel.
    EXPECT_EQ(device->ran(Operation::Gather), 0u);
    EXPECT_EQ(device->bytes_read_from_host(), 0u);
    EXPECT_GE(device->bytes_uploaded(), pages.size() * PAGE_SIZE);
    // The compression kernel wrote each page's bytes to its buffer itself:
    // no copy-out kernel ran after it.
    EXPECT_EQ(device->ran(Operation::CopyOut), 0u);
    EXPECT_EQ(device->ran(Operation::Compress), (pages.size() + 127) / 128);
}

// Pages scattered over registered memory (a ring's slots in the order its
// producer freed them) are read by the gather kernel, a warp a page.
TEST(GpuHostHalf, ScatteredPagesAreGatheredByTheDevice) {
    auto [device, gpu] = emulated_gpu({.batch_size = 128});
    const auto pages = mixed_pages(256);
    Area staging(pages);
    ASSERT_TRUE(gpu->register_host_region(staging.span()));
    auto inputs = staging.pointers();
    std::reverse(inputs.begin(), inputs.end());
    std::vector<Page> reversed(pages.rbegin(), pages.rend());
    BatchResult batch;
    gpu->compress(inputs, batch);
    EXPECT_EQ(wrong_in_payload(batch, reversed), 0u);
    EXPECT_EQ(device->ran(Operation::Gather), 2u);
    EXPECT_EQ(device->bytes_read_from_host(), pages.size() * PAGE_SIZE);
    EXPECT_EQ(gpu->host_work().bytes_copied, batch.payload.size()) << "pages were copied";
}

// Per page, the host copies at most its compressed size and reads a 16-byte
// descriptor, on every path where the pages lie in registered memory:
// bytes into registered outputs, into unregistered ones, and into the
// payload.
TEST(GpuHostHalf, HostBytesPerPageAreAtMostTheCompressedSizeAndADescriptor) {
    const auto pages = mixed_pages(400);
    for (const char* where : {"registered outputs", "unregistered outputs", "payload"}) {
        SCOPED_TRACE(where);
        auto [device, gpu] = emulated_gpu({.batch_size = 100});
        Area staging(pages);
        Area output(pages.size());
        ASSERT_TRUE(gpu->register_host_region(staging.span()));
        if (std::string(where) == "registered outputs") {
            ASSERT_TRUE(gpu->register_output_region(output.span()));
        }
        BatchResult batch;
        const auto outputs = output.outputs();
        if (std::string(where) == "payload") {
            gpu->compress(staging.pointers(), batch);
            EXPECT_EQ(wrong_in_payload(batch, pages), 0u);
        } else {
            gpu->compress_into(staging.pointers(), outputs, batch);
            EXPECT_EQ(wrong_in_outputs(batch, outputs, pages), 0u);
        }
        std::uint64_t stored = 0;
        for (const CompressedPage& page : batch.pages) {
            const bool kept = std::string(where) == "payload" || page.encoding != PageEncoding::Raw;
            stored += kept ? page.size : 0;
        }
        const GpuHostWork work = gpu->host_work();
        EXPECT_EQ(work.bytes_copied, std::string(where) == "registered outputs" ? 0 : stored);
        EXPECT_EQ(work.descriptor_bytes, 16 * pages.size());
        EXPECT_LE(work.bytes_copied + work.descriptor_bytes, stored + 16 * pages.size());
    }
}

// Pages in memory the driver cannot register are copied into pinned
// buffers first: the one path that copies whole pages, counted as such.
TEST(GpuHostHalf, UnregisteredPagesAreCopiedAndCounted) {
    auto [device, gpu] = emulated_gpu({.batch_size = 64});
    device->refuse_registration(true);
    const auto pages = mixed_pages(100);
    Area staging(pages);
    EXPECT_FALSE(gpu->register_host_region(staging.span()));
    BatchResult batch;
    gpu->compress(staging.pointers(), batch);
    EXPECT_EQ(wrong_in_payload(batch, pages), 0u);
    EXPECT_EQ(gpu->pages_copied(), pages.size());
    EXPECT_EQ(gpu->pages_read_in_place(), 0u);
    EXPECT_GE(gpu->host_work().bytes_copied, pages.size() * PAGE_SIZE);
}

TEST(GpuHostHalf, DecompressionUploadsOnlyCompressedBytes) {
    auto [device, gpu] = emulated_gpu({.batch_size = 50});
    const auto pages = mixed_pages(200);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    std::uint64_t compressed = 0;
    for (const CompressedPage& page : batch.pages)
        compressed += page.size;
    for (const bool registered : {false, true}) {
        SCOPED_TRACE(registered ? "registered payload" : "payload copied by the host");
        if (registered) {
            ASSERT_TRUE(gpu->register_host_region({batch.payload.data(), batch.payload.size()}));
        }
        const std::uint64_t uploaded_before = device->bytes_uploaded();
        Area restored(pages.size());
        gpu->decompress(batch, restored.outputs());
        EXPECT_EQ(wrong_restored(restored, pages), 0u);
        // Blocks, plus per page an offset, a descriptor and a destination.
        EXPECT_EQ(device->bytes_uploaded() - uploaded_before,
                  compressed + pages.size() * (4 + 16 + 8));
    }
}

// Registered destinations get their pages from the decompression kernel
// itself: nothing comes down by DMA but the descriptors, so a batch is done
// when its kernel is.
TEST(GpuHostHalf, RegisteredDestinationsAreWrittenByTheDecompressionKernel) {
    auto [device, gpu] = emulated_gpu({.batch_size = 64});
    const auto pages = mixed_pages(256);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    ASSERT_TRUE(gpu->register_host_region({batch.payload.data(), batch.payload.size()}));
    Area restored(pages.size());
    ASSERT_TRUE(gpu->register_output_region(restored.span()));
    const std::uint64_t downloaded_before = device->bytes_downloaded();
    const std::uint64_t written_before = device->bytes_written_to_host();
    const std::uint64_t copied_before = gpu->host_work().bytes_copied;
    gpu->decompress(batch, restored.outputs());
    EXPECT_EQ(wrong_restored(restored, pages), 0u);
    EXPECT_EQ(device->bytes_downloaded() - downloaded_before,
              pages.size() * sizeof(kernels::PageDescriptor));
    EXPECT_EQ(device->bytes_written_to_host() - written_before, pages.size() * PAGE_SIZE);
    EXPECT_EQ(gpu->host_work().bytes_copied, copied_before);
}

// Batches in flight: up to the bound, completed in any order, each page
// right, and the device's events asked about before any result is read.
TEST(GpuHostHalf, BatchesInFlightCompleteInAnyOrder) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 3});
    EXPECT_EQ(gpu->max_in_flight(), 3u);
    EXPECT_EQ(gpu->max_batch_pages(), 32u);
    ThreeBatches three;
    const auto tickets = three.submit(*gpu);
    BatchResult extra;
    EXPECT_THROW((void)gpu->submit(std::span(three.inputs).first(1),
                                   std::span(three.outputs).first(1), extra),
                 Error)
        << "a fourth batch while three are in flight";
    EXPECT_FALSE(gpu->poll(tickets[1])) << "the emulated device is busy the first time it is asked";
    for (const std::size_t b : {2u, 0u, 1u}) {
        gpu->complete(tickets[b]);
        EXPECT_EQ(wrong_in_outputs(three.results[b], three.outputs_of(b), three.pages,
                                   b * ThreeBatches::PAGES),
                  0u)
            << "batch " << b;
        EXPECT_EQ(three.results[b].backend, Backend::Gpu);
    }
    EXPECT_THROW(gpu->complete(tickets[0]), Error) << "a ticket completes once";
}

// A region given back while batches that read it are in flight: the device
// must not read memory the driver no longer maps, so unregistering first
// lets those batches finish, and their results stay the device's.
TEST(GpuHostHalf, UnregisteringARegionWaitsForTheBatchesThatReadIt) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 3});
    const auto pages = mixed_pages(64);
    Area staging(pages);
    Area output(pages.size());
    ASSERT_TRUE(gpu->register_host_region(staging.span()));
    const auto inputs = staging.pointers();
    const auto outputs = output.outputs();
    std::vector<BatchResult> results(2);
    const auto tickets = submit_in_batches(*gpu, inputs, outputs, results, 32);
    EXPECT_TRUE(gpu->unregister_host_region(staging.span().data()));
    EXPECT_EQ(device->registered_regions(), 0u);
    for (std::size_t b = 0; b < tickets.size(); ++b) {
        gpu->complete(tickets[b]);
        EXPECT_EQ(
            wrong_in_outputs(results[b], std::span(outputs).subspan(b * 32, 32), pages, b * 32), 0u)
            << "batch " << b;
        EXPECT_EQ(results[b].backend, Backend::Gpu) << "batch " << b;
    }
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "no batch read the region after it went";
    EXPECT_EQ(device->bytes_uploaded() + device->bytes_read_from_host(), pages.size() * PAGE_SIZE);
}

TEST(GpuHostHalf, ABatchTooLargeForASlotIsRefused) {
    auto [device, gpu] = emulated_gpu({.batch_size = 16});
    const auto pages = mixed_pages(17);
    const auto inputs = pointers_to(pages);
    Area output(pages.size());
    const auto outputs = output.outputs();
    BatchResult result;
    EXPECT_THROW((void)gpu->submit(inputs, outputs, result), Error);
    // The synchronous calls split it instead.
    gpu->compress_into(inputs, outputs, result);
    EXPECT_EQ(wrong_in_outputs(result, outputs, pages), 0u);
}

TEST(GpuHostHalf, EveryKernelRunsThroughThePipeline) {
    const auto pages = mixed_pages(120);
    for (const GpuCompressKernel kernel : ALL_GPU_COMPRESS_KERNELS) {
        SCOPED_TRACE(std::string(to_string(kernel)));
        auto [device, gpu] = emulated_gpu({.batch_size = 50, .kernel = kernel});
        BatchResult batch;
        gpu->compress(pointers_to(pages), batch);
        EXPECT_EQ(wrong_in_payload(batch, pages), 0u);
    }
}

}  // namespace
}  // namespace ozram::gpu::test
