// BatchResult and CompressorStats arithmetic, and backend names.
#include "ozram/batch_result.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ozram/backend.hpp"
#include "ozram/stats.hpp"
#include "test_pages.hpp"

namespace ozram {
namespace {

BatchResult three_page_result() {
    BatchResult result;
    result.reset(3);
    result.pages[0] = {PageEncoding::SameFilled, 7, 0, 0};
    result.pages[1] = {PageEncoding::Lz4, 0, 4096, 1000};
    result.pages[2] = {PageEncoding::Raw, 0, 8192, 4096};
    return result;
}

TEST(BatchResult, StoredBytesSumsPageSizes) {
    EXPECT_EQ(three_page_result().stored_bytes(), 5096u);
    EXPECT_EQ(three_page_result().input_bytes(), 3 * PAGE_SIZE);
}

TEST(BatchResult, CompressionRatioIsInputOverStored) {
    EXPECT_DOUBLE_EQ(three_page_result().compression_ratio(), 12288.0 / 5096.0);
}

TEST(BatchResult, AllSameFilledRatioIsInfinite) {
    BatchResult result;
    result.reset(2);
    result.pages[0] = {PageEncoding::SameFilled, 0, 0, 0};
    result.pages[1] = {PageEncoding::SameFilled, 1, 4096, 0};
    EXPECT_TRUE(std::isinf(result.compression_ratio()));
}

TEST(BatchResult, EmptyBatchRatioIsZero) {
    BatchResult result;
    result.reset(0);
    EXPECT_EQ(result.compression_ratio(), 0.0);
    EXPECT_EQ(result.stored_bytes(), 0u);
}

TEST(BatchResult, ThroughputIsBytesPerSecond) {
    BatchResult result = three_page_result();
    result.total_time_ns = 2'000'000;  // 2 ms
    EXPECT_DOUBLE_EQ(result.throughput_bytes_per_sec(12288), 12288.0 / 0.002);
    result.total_time_ns = 0;
    EXPECT_EQ(result.throughput_bytes_per_sec(12288), 0.0);
}

TEST(BatchResult, PcieRuleComparesMeasuredTimeWithCpuEstimate) {
    BatchResult result = three_page_result();
    result.total_time_ns = 1000;
    result.cpu_estimate_ns = 0;
    EXPECT_FALSE(result.pcie_rule_satisfied()) << "no estimate: no claim";
    result.cpu_estimate_ns = 1001;
    EXPECT_TRUE(result.pcie_rule_satisfied());
    result.cpu_estimate_ns = 1000;
    EXPECT_FALSE(result.pcie_rule_satisfied());
    result.cpu_estimate_ns = 999;
    EXPECT_FALSE(result.pcie_rule_satisfied());
}

TEST(BatchResult, ResetClearsEverythingAndKeepsCapacity) {
    BatchResult result = three_page_result();
    result.h2d_time_ns = result.kernel_time_ns = result.d2h_time_ns = 5;
    result.total_time_ns = result.cpu_estimate_ns = 9;
    const std::uint8_t* payload = result.payload.data();
    result.reset(2);
    EXPECT_EQ(result.pages.size(), 2u);
    EXPECT_EQ(result.payload.size(), 2 * PAGE_SIZE);
    EXPECT_EQ(result.payload.data(), payload);
    for (const CompressedPage& page : result.pages) {
        EXPECT_EQ(page.encoding, PageEncoding::Raw);
        EXPECT_EQ(page.size, 0u);
        EXPECT_EQ(page.offset, 0u);
    }
    EXPECT_EQ(result.h2d_time_ns + result.kernel_time_ns + result.d2h_time_ns, 0u);
    EXPECT_EQ(result.total_time_ns + result.cpu_estimate_ns, 0u);
}

TEST(CompressorStats, AddAccumulates) {
    CompressorStats stats;
    stats.add(3, 12288, 4000, 1000);
    stats.add(1, 4096, 96, 3000);
    EXPECT_EQ(stats.pages_compressed, 4u);
    EXPECT_EQ(stats.total_bytes_in, 16384u);
    EXPECT_EQ(stats.total_bytes_out, 4096u);
    EXPECT_EQ(stats.total_time_ns, 4000u);
    EXPECT_DOUBLE_EQ(stats.compression_ratio(), 4.0);
    EXPECT_DOUBLE_EQ(stats.throughput_gbps(), 16384.0 / 4000.0);
}

TEST(CompressorStats, EdgeValues) {
    CompressorStats stats;
    EXPECT_EQ(stats.compression_ratio(), 0.0);
    EXPECT_EQ(stats.throughput_gbps(), 0.0);
    stats.add(1, 4096, 0, 0);
    EXPECT_TRUE(std::isinf(stats.compression_ratio()));
    EXPECT_EQ(stats.throughput_gbps(), 0.0);
}

TEST(CompressorStats, BackendAccumulatesEveryCompressCall) {
    for (const Backend backend : {Backend::Scalar, Backend::Cpu}) {
        const auto compressor = make_cpu_compressor(backend);
        const std::vector<Page> zeros(3, test::filled_page(0));
        const std::vector<Page> noise{test::random_page(1), test::random_page(2)};
        BatchResult first;
        BatchResult second;
        compressor->compress(test::pointers(zeros), first);
        compressor->compress(test::pointers(noise), second);
        const CompressorStats& stats = compressor->stats();
        EXPECT_EQ(stats.pages_compressed, 5u);
        EXPECT_EQ(stats.total_bytes_in, 5 * PAGE_SIZE);
        EXPECT_EQ(stats.total_bytes_out, 2 * PAGE_SIZE) << "zeros store nothing, noise is raw";
        EXPECT_EQ(stats.total_time_ns, first.total_time_ns + second.total_time_ns);
        EXPECT_DOUBLE_EQ(stats.compression_ratio(), 2.5);
    }
}

TEST(Backend, Names) {
    EXPECT_EQ(to_string(Backend::Gpu), "gpu");
    EXPECT_EQ(to_string(Backend::Cpu), "cpu");
    EXPECT_EQ(to_string(Backend::Scalar), "scalar");
}

}  // namespace
}  // namespace ozram
