// Failures of the device, planted in the emulated device: a batch that fails
// is redone on the CPU with nothing lost; a failure that spoils one stream
// costs that stream only (a new one replaces it, the GPU stays in use, and
// a compressor sharing the device never notices); a failure that loses the
// context ends the GPU's use, with no device reset.
#include <algorithm>

#include "gpu_host_support.hpp"

namespace ozram::gpu::test {
namespace {

// What CUDA calls cudaErrorLaunchOutOfResources: the launch fails, the
// context lives on.
constexpr int LAUNCH_FAILED = 701;
// cudaErrorIllegalAddress: a kernel faulted and the context is lost.
constexpr int ILLEGAL_ADDRESS = 700;

TEST(GpuRecovery, AFailedKernelIsRedoneOnTheCpuAndTheGpuStays) {
    auto [device, gpu] = emulated_gpu({.batch_size = 40});
    const auto pages = mixed_pages(100);
    const std::size_t streams = device->streams();
    device->fail(Operation::Compress, 2, LAUNCH_FAILED, false);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    EXPECT_EQ(wrong_in_payload(batch, pages), 0u);
    EXPECT_EQ(batch.backend, Backend::Cpu);
    EXPECT_EQ(gpu->fallback_batches(), 1u);
    EXPECT_EQ(gpu->stream_recoveries(), 1u);
    EXPECT_TRUE(gpu->gpu_in_use());
    EXPECT_EQ(device->streams(), streams) << "the spoilt stream was replaced, not leaked";

    gpu->compress(pointers_to(pages), batch);
    EXPECT_EQ(wrong_in_payload(batch, pages), 0u);
    EXPECT_EQ(batch.backend, Backend::Gpu) << "the next batch is the GPU's again";
    EXPECT_EQ(gpu->fallback_batches(), 1u);
}

TEST(GpuRecovery, AFailedCopyIsRedoneOnTheCpu) {
    for (const Operation failing : {Operation::Upload, Operation::Gather, Operation::PackOffsets,
                                    Operation::CopyOut, Operation::Download}) {
        SCOPED_TRACE(static_cast<int>(failing));
        auto [device, gpu] = emulated_gpu({.batch_size = 64});
        const auto pages = mixed_pages(64);
        Area staging(pages);
        ASSERT_TRUE(gpu->register_host_region(staging.span()));
        device->fail(failing, 1, LAUNCH_FAILED, false);
        // In reverse: scattered, so that the gather kernel reads them.
        auto inputs = staging.pointers();
        std::reverse(inputs.begin(), inputs.end());
        BatchResult batch;
        gpu->compress(inputs, batch);
        EXPECT_EQ(wrong_in_payload(batch, std::vector<Page>(pages.rbegin(), pages.rend())), 0u);
        EXPECT_EQ(gpu->fallback_batches(), 1u);
        EXPECT_TRUE(gpu->gpu_in_use());
    }
}

// Of three batches in flight the middle one fails: it alone is redone on
// the CPU; the others are the GPU's, and every page is right.
TEST(GpuRecovery, OneFailedBatchInFlightIsRedoneAlone) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 3});
    ThreeBatches three;
    device->fail(Operation::Compress, 2, LAUNCH_FAILED, false);
    const auto tickets = three.submit(*gpu);
    for (std::size_t b = 0; b < ThreeBatches::BATCHES; ++b) {
        gpu->complete(tickets[b]);
        EXPECT_EQ(wrong_in_outputs(three.results[b], three.outputs_of(b), three.pages,
                                   b * ThreeBatches::PAGES),
                  0u)
            << "batch " << b;
        EXPECT_EQ(three.results[b].backend, b == 1 ? Backend::Cpu : Backend::Gpu) << "batch " << b;
    }
    EXPECT_EQ(gpu->fallback_batches(), 1u);
    EXPECT_EQ(gpu->stream_recoveries(), 1u);
}

// Two compressors on one device, as two agents' rings in one process: a
// failure on one's stream leaves the other's batch in flight untouched.
TEST(GpuRecovery, AFailureOnOneStreamLeavesAnotherCompressorAlone) {
    auto device = std::make_shared<EmulatedDevice>();
    auto a = make_gpu_compressor({.batch_size = 32}, device, {"emulated", {9, 0}});
    auto b = make_gpu_compressor({.batch_size = 32}, device, {"emulated", {9, 0}});
    const auto pages = mixed_pages(32);
    const auto inputs = pointers_to(pages);
    Area area_a(pages.size());
    Area area_b(pages.size());
    const auto out_a = area_a.outputs();
    const auto out_b = area_b.outputs();
    BatchResult result_a;
    BatchResult result_b;
    const auto ticket_b = b->submit(inputs, out_b, result_b);
    // The emulated device runs work when it is waited for: a's, first.
    device->fail(Operation::Compress, 1, LAUNCH_FAILED, false);
    const auto ticket_a = a->submit(inputs, out_a, result_a);
    a->complete(ticket_a);
    b->complete(ticket_b);
    EXPECT_EQ(wrong_in_outputs(result_a, out_a, pages), 0u);
    EXPECT_EQ(wrong_in_outputs(result_b, out_b, pages), 0u);
    EXPECT_EQ(result_a.backend, Backend::Cpu);
    EXPECT_EQ(result_b.backend, Backend::Gpu);
    EXPECT_EQ(b->fallback_batches(), 0u);
    EXPECT_TRUE(a->gpu_in_use());
    EXPECT_TRUE(b->gpu_in_use());
}

// An impossible descriptor costs its batch's stream, not the GPU.  The
// offsets and the copy-out run on it before the host checks it: with
// random pages, all raw, the packed output is exactly as large as the
// batch, and a block size past a page would write beyond it.
TEST(GpuRecovery, AnImpossibleDescriptorIsRedoneOnTheCpu) {
    std::vector<Page> random(64);
    std::uint64_t state = 1;
    for (Page& page : random)
        for (auto& byte : page) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            byte = static_cast<std::uint8_t>(state >> 56);
        }
    for (const auto& pages : {mixed_pages(64), random}) {
        auto [device, gpu] = emulated_gpu({.batch_size = 64});
        device->garble_next_compression();
        BatchResult batch;
        gpu->compress(pointers_to(pages), batch);
        EXPECT_EQ(wrong_in_payload(batch, pages), 0u);
        EXPECT_EQ(gpu->fallback_batches(), 1u);
        EXPECT_EQ(gpu->stream_recoveries(), 1u);
        EXPECT_TRUE(gpu->gpu_in_use());
    }
}

// A lost context ends the GPU's use for good, with every page still right:
// the batch in flight, and every later one, go to the CPU.
TEST(GpuRecovery, ALostContextSendsEveryBatchToTheCpu) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 2});
    const auto pages = mixed_pages(64);
    const auto inputs = pointers_to(pages);
    Area output(pages.size());
    const auto outputs = output.outputs();
    std::vector<BatchResult> results(2);
    device->fail(Operation::Compress, 1, ILLEGAL_ADDRESS, true);
    const auto first =
        gpu->submit(std::span(inputs).first(32), std::span(outputs).first(32), results[0]);
    const auto second =
        gpu->submit(std::span(inputs).last(32), std::span(outputs).last(32), results[1]);
    gpu->complete(first);
    gpu->complete(second);
    EXPECT_EQ(wrong_in_outputs(results[0], std::span(outputs).first(32), pages, 0), 0u);
    EXPECT_EQ(wrong_in_outputs(results[1], std::span(outputs).last(32), pages, 32), 0u);
    EXPECT_FALSE(gpu->gpu_in_use());
    BatchResult later;
    gpu->compress(inputs, later);
    EXPECT_EQ(wrong_in_payload(later, pages), 0u);
    EXPECT_EQ(later.backend, Backend::Cpu);
    Area restored(pages.size());
    gpu->decompress(later, restored.outputs());
    EXPECT_EQ(wrong_restored(restored, pages), 0u);
}

TEST(GpuRecovery, AFailedDecompressionIsRedoneOnTheCpu) {
    auto [device, gpu] = emulated_gpu({.batch_size = 50});
    const auto pages = mixed_pages(120);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    device->fail(Operation::Decompress, 1, LAUNCH_FAILED, false);
    Area restored(pages.size());
    gpu->decompress(batch, restored.outputs());
    EXPECT_EQ(wrong_restored(restored, pages), 0u);
    EXPECT_EQ(gpu->fallback_batches(), 1u);
}

// A batch in flight fails, and the new stream that would replace the
// spoilt one is refused: the GPU is given up while a synchronous call
// settles what was in flight, and that call, finding no GPU left, is the
// CPU's.
TEST(GpuRecovery, ASynchronousCallAfterTheGpuWasGivenUpWhileSettlingIsTheCpus) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 2});
    const auto pages = mixed_pages(32);
    const auto inputs = pointers_to(pages);
    Area output(pages.size());
    const auto outputs = output.outputs();
    BatchResult in_flight;
    device->fail(Operation::Compress, 1, LAUNCH_FAILED, false);
    const auto ticket = gpu->submit(inputs, outputs, in_flight);
    device->refuse_streams(1);
    BatchResult now;
    gpu->compress(inputs, now);
    EXPECT_EQ(wrong_in_payload(now, pages), 0u);
    EXPECT_EQ(now.backend, Backend::Cpu);
    gpu->complete(ticket);
    EXPECT_EQ(wrong_in_outputs(in_flight, outputs, pages, 0), 0u);
    EXPECT_FALSE(gpu->gpu_in_use());
}

// After the host checked every descriptor, a correct kernel leaves each
// page OK or CORRUPT: any other status, or none, is the device's failure,
// and the batch is redone on the CPU rather than reported corrupt.
TEST(GpuRecovery, AnImpossibleDecompressionStatusIsRedoneOnTheCpu) {
    for (const std::uint8_t status :
         {std::uint8_t{kernels::PAGE_BAD_DESCRIPTOR}, std::uint8_t{0xff}}) {
        SCOPED_TRACE(static_cast<int>(status));
        auto [device, gpu] = emulated_gpu({.batch_size = 64});
        const auto pages = mixed_pages(64);
        BatchResult batch;
        gpu->compress(pointers_to(pages), batch);
        device->garble_next_decompression(status);
        Area restored(pages.size());
        gpu->decompress(batch, restored.outputs());
        EXPECT_EQ(wrong_restored(restored, pages), 0u);
        EXPECT_EQ(gpu->fallback_batches(), 1u);
        EXPECT_TRUE(gpu->gpu_in_use());
    }
}

// A launch refused at once spoils its stream, and a new stream cannot be
// had: the slot would fail every batch it took, so the GPU is given up,
// and every page is still right.
TEST(GpuRecovery, AStreamThatCannotBeReplacedEndsTheGpusUse) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 2});
    const auto pages = mixed_pages(32);
    const auto inputs = pointers_to(pages);
    Area output(pages.size());
    const auto outputs = output.outputs();
    device->refuse_next(Operation::Compress);
    device->refuse_streams(1);
    BatchResult result;
    gpu->complete(gpu->submit(inputs, outputs, result));
    EXPECT_EQ(wrong_in_outputs(result, outputs, pages, 0), 0u);
    EXPECT_EQ(result.backend, Backend::Cpu);
    EXPECT_FALSE(gpu->gpu_in_use());
    BatchResult later;
    gpu->compress(inputs, later);
    EXPECT_EQ(wrong_in_payload(later, pages), 0u);
    EXPECT_EQ(later.backend, Backend::Cpu);
}

// Whether three batches in flight at once, as many as `gpu` takes, all
// run on the GPU and store their pages: no slot is held by a batch that
// failed earlier.
void expect_three_batches_on_the_gpu(GpuBatchCompressor& gpu) {
    ThreeBatches three;
    const auto tickets = three.submit(gpu);
    for (std::size_t b = 0; b < ThreeBatches::BATCHES; ++b) {
        gpu.complete(tickets[b]);
        EXPECT_EQ(wrong_in_outputs(three.results[b], three.outputs_of(b), three.pages,
                                   b * ThreeBatches::PAGES),
                  0u)
            << "batch " << b;
        EXPECT_EQ(three.results[b].backend, Backend::Gpu) << "batch " << b;
    }
}

// A failure that is not the device's (the host out of memory) fails its
// batch, whose caller redoes it, and releases what the batch held: the GPU
// stays in use with every slot.
TEST(GpuRecovery, AHostFailureWhileABatchStartsHoldsNoSlot) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 3});
    const auto pages = mixed_pages(32);
    Area output(pages.size());
    BatchResult result;
    device->exhaust_host_at_next(Operation::Compress);
    EXPECT_THROW(gpu->submit(pointers_to(pages), output.outputs(), result), std::bad_alloc);
    expect_three_batches_on_the_gpu(*gpu);
    EXPECT_EQ(gpu->fallback_batches(), 0u);
}

TEST(GpuRecovery, AHostFailureWhileABatchFinishesHoldsNoSlot) {
    auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 3});
    const auto pages = mixed_pages(32);
    Area output(pages.size());
    BatchResult result;
    const auto ticket = gpu->submit(pointers_to(pages), output.outputs(), result);
    device->exhaust_host_at_next_wait();
    EXPECT_THROW(gpu->complete(ticket), std::bad_alloc);
    EXPECT_THROW(gpu->complete(ticket), std::system_error) << "the ticket is over";
    expect_three_batches_on_the_gpu(*gpu);
}

// A synchronous call runs in chunks, a slot each, several in flight: a host
// failure while one finishes gives every chunk's slot back.
TEST(GpuRecovery, AHostFailureInASynchronousCallHoldsNoSlot) {
    for (const bool decompress : {false, true}) {
        SCOPED_TRACE(decompress ? "decompression" : "compression");
        auto [device, gpu] = emulated_gpu({.batch_size = 32, .ring_buffer_slots = 3});
        const auto pages = mixed_pages(128);
        BatchResult batch;
        Area restored(pages.size());
        if (decompress) {
            gpu->compress(pointers_to(pages), batch);
            device->exhaust_host_at_next_wait();
            EXPECT_THROW(gpu->decompress(batch, restored.outputs()), std::bad_alloc);
        } else {
            device->exhaust_host_at_next_wait();
            EXPECT_THROW(gpu->compress(pointers_to(pages), batch), std::bad_alloc);
        }
        expect_three_batches_on_the_gpu(*gpu);
        gpu->compress(pointers_to(pages), batch);
        EXPECT_EQ(wrong_in_payload(batch, pages), 0u);
        EXPECT_EQ(batch.backend, Backend::Gpu);
        gpu->decompress(batch, restored.outputs());
        EXPECT_EQ(wrong_restored(restored, pages), 0u);
        EXPECT_EQ(gpu->fallback_batches(), 0u);
    }
}

}  // namespace
}  // namespace ozram::gpu::test
