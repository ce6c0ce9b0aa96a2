// The GPU backend against liblz4 and against the host emulation of the same
// kernels: flags, bytes, ratio, and decompression on the device.
#include <cuda_runtime_api.h>
#include <lz4.h>

#include <algorithm>
#include <utility>

#include "gpu_test_support.hpp"
#include "host_codec.hpp"
#include "ozram/error.hpp"

namespace ozram::testing {
namespace {

using GpuCodec = GpuTest;

TEST_F(GpuCodec, DeviceInfoDescribesASupportedDevice) {
    const GpuDeviceInfo info = GpuDeviceInfo::query(0);
    EXPECT_FALSE(info.name.empty());
    EXPECT_TRUE(info.is_supported());
    // The rest of the device's description, for gpu-check's report.
    cudaDeviceProp properties{};
    ASSERT_EQ(cudaGetDeviceProperties(&properties, 0), cudaSuccess);
    EXPECT_EQ(info.name, properties.name);
    EXPECT_EQ(info.compute_capability, std::make_pair(properties.major, properties.minor));
    std::printf("%s: cc %d.%d, %d SMs, %zu MiB, L2 %d KiB\n", info.name.c_str(),
                info.compute_capability.first, info.compute_capability.second,
                properties.multiProcessorCount, properties.totalGlobalMem >> 20,
                properties.l2CacheSize >> 10);
    EXPECT_THROW((void)GpuDeviceInfo::query(1 << 20), Error);
}

TEST_F(GpuCodec, CorpusRoundTripsThroughLiblz4AndTheDevice) {
    const auto pages = corpus_pages(400);
    auto gpu = GpuBatchCompressor::create({});
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    EXPECT_EQ(count_wrong_pages(batch, pages), 0u);
    EXPECT_GT(batch.kernel_time_ns, 0u);
    EXPECT_GT(batch.h2d_time_ns, 0u);
    EXPECT_GT(batch.d2h_time_ns, 0u);
    EXPECT_GT(batch.total_time_ns, 0u);

    const std::vector<Page> restored = decompress_all(*gpu, batch);
    ASSERT_EQ(restored.size(), pages.size());
    for (std::size_t i = 0; i < pages.size(); ++i)
        ASSERT_EQ(0, std::memcmp(restored[i].data(), pages[i].data(), PAGE_SIZE)) << i;
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

// The kernels are deterministic: the device must produce byte for byte what
// the host emulation of the same source produces.
TEST_F(GpuCodec, DeviceOutputEqualsTheHostEmulation) {
    const auto pages = corpus_pages(300);
    auto gpu = GpuBatchCompressor::create({});
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        const auto host = compress_on_host(pages[i], DEFAULT_HUGE_THRESHOLD);
        const CompressedPage& page = batch.pages[i];
        const auto bytes = batch.bytes(page);
        if (page.encoding != host.descriptor.encoding || page.size != host.descriptor.size ||
            !std::equal(bytes.begin(), bytes.end(), host.bytes.begin(), host.bytes.end()))
            ++differing;
    }
    EXPECT_EQ(differing, 0u);
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

// The agent's path: each page's bytes straight into its own buffer, byte
// for byte what compress() puts in the payload, and decoded by liblz4.
TEST_F(GpuCodec, CompressIntoWritesEachBlockIntoItsBuffer) {
    const auto pages = corpus_pages(300);
    auto gpu = GpuBatchCompressor::create({});
    std::vector<Page> outputs(pages.size());
    std::vector<std::uint8_t*> out_ptrs;
    for (Page& output : outputs) {
        output.fill(0xa5);
        out_ptrs.push_back(output.data());
    }
    BatchResult into;
    gpu->compress_into(pointers_to(pages), out_ptrs, into);
    BatchResult reference;
    gpu->compress(pointers_to(pages), reference);
    ASSERT_EQ(into.pages.size(), pages.size());
    EXPECT_TRUE(into.payload.empty());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        const CompressedPage& page = into.pages[i];
        const CompressedPage& expected = reference.pages[i];
        const auto bytes = reference.bytes(expected);
        const std::uint8_t* out = outputs[i].data();
        const std::size_t written = page.encoding == PageEncoding::Lz4 ? page.size : 0;
        Page restored{};
        const bool ok =
            page.encoding == expected.encoding && page.size == expected.size &&
            page.fill_word == expected.fill_word &&
            std::all_of(out + written, out + PAGE_SIZE, [](std::uint8_t b) { return b == 0xa5; }) &&
            (page.encoding != PageEncoding::Lz4 ||
             (std::equal(out, out + page.size, bytes.begin(), bytes.end()) &&
              LZ4_decompress_safe(reinterpret_cast<const char*>(out),
                                  reinterpret_cast<char*>(restored.data()),
                                  static_cast<int>(page.size), PAGE_SIZE) == PAGE_SIZE &&
              restored == pages[i]));
        if (!ok)
            ++wrong;
    }
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(count_wrong_pages(reference, pages), 0u);
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuCodec, RatioIsAtLeast98PercentOfLiblz4s) {
    std::vector<Page> pages;
    for (std::uint64_t seed = 1; seed <= 200; ++seed)
        pages.push_back(text_page(seed));
    for (auto& page : real_pages(400))
        pages.push_back(page);
    auto gpu = GpuBatchCompressor::create({});
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    std::uint64_t theirs = 0;
    std::vector<char> out(LZ4_compressBound(PAGE_SIZE));
    for (const auto& page : pages) {
        std::uint64_t word;
        if (is_same_filled(page.data(), &word))
            continue;
        const int n = LZ4_compress_default(reinterpret_cast<const char*>(page.data()), out.data(),
                                           PAGE_SIZE, static_cast<int>(out.size()));
        theirs += static_cast<std::uint64_t>(n) <= DEFAULT_HUGE_THRESHOLD ? n : PAGE_SIZE;
    }
    std::uint64_t ours = 0;
    for (const CompressedPage& page : batch.pages)
        ours += page.stored_size();
    const double ours_ratio = static_cast<double>(pages.size() * PAGE_SIZE) / ours;
    const double liblz4_ratio = static_cast<double>(pages.size() * PAGE_SIZE) / theirs;
    std::printf("ratio: GPU %.4f, liblz4 %.4f (%.4fx)\n", ours_ratio, liblz4_ratio,
                ours_ratio / liblz4_ratio);
    EXPECT_GE(ours_ratio / liblz4_ratio, 0.98);
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuCodec, DecompressesLiblz4Blocks) {
    const auto pages = corpus_pages(200);
    BatchResult batch;
    batch.reset(pages.size());
    for (std::size_t i = 0; i < pages.size(); ++i) {
        CompressedPage& page = batch.pages[i];
        page.offset = static_cast<std::uint32_t>(i * PAGE_SIZE);
        const int n = LZ4_compress_default(
            reinterpret_cast<const char*>(pages[i].data()),
            reinterpret_cast<char*>(batch.payload.data() + page.offset), PAGE_SIZE, PAGE_SIZE);
        if (n > 0) {
            page.encoding = PageEncoding::Lz4;
            page.size = static_cast<std::uint32_t>(n);
        } else {
            page.encoding = PageEncoding::Raw;
            page.size = PAGE_SIZE;
            std::memcpy(batch.payload.data() + page.offset, pages[i].data(), PAGE_SIZE);
        }
    }
    auto gpu = GpuBatchCompressor::create({});
    const std::vector<Page> restored = decompress_all(*gpu, batch);
    for (std::size_t i = 0; i < pages.size(); ++i)
        ASSERT_EQ(0, std::memcmp(restored[i].data(), pages[i].data(), PAGE_SIZE)) << i;
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuCodec, ACorruptPageIsNamedAndTheCompressorKeepsWorking) {
    const auto pages = corpus_pages(50);
    auto gpu = GpuBatchCompressor::create({});
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    std::size_t victim = 0;
    while (batch.pages[victim].encoding != PageEncoding::Lz4)
        ++victim;
    batch.pages[victim].size /= 2;  // truncated block
    try {
        (void)decompress_all(*gpu, batch);
        FAIL() << "a truncated block decoded";
    } catch (const Error& error) {
        EXPECT_EQ(error.code().value(), EIO);
        EXPECT_NE(std::string(error.what()).find("page " + std::to_string(victim)),
                  std::string::npos)
            << error.what();
    }
    BatchResult again;
    gpu->compress(pointers_to(pages), again);
    EXPECT_EQ(count_wrong_pages(again, pages), 0u);
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuCodec, HugeThresholdIsObeyed) {
    const auto pages = corpus_pages(100);
    GpuBatchConfig config;
    config.huge_threshold = 1023;
    auto gpu = GpuBatchCompressor::create(config);
    BatchResult batch;
    gpu->compress(pointers_to(pages), batch);
    EXPECT_EQ(count_wrong_pages(batch, pages, 1023), 0u);
    EXPECT_EQ(gpu->fallback_batches(), 0u) << "the CPU, not the GPU, did the work";
}

TEST_F(GpuCodec, BadConfigurationsAreRejected) {
    GpuBatchConfig config;
    config.batch_size = 0;
    EXPECT_THROW((void)GpuBatchCompressor::create(config), Error);
    config = {};
    config.ring_buffer_slots = 0;
    EXPECT_THROW((void)GpuBatchCompressor::create(config), Error);
}

}  // namespace
}  // namespace ozram::testing
