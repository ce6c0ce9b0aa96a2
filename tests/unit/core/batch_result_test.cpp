// BatchResult's bookkeeping, what the CPU backends store, and backend names.
#include "ozram/batch_result.hpp"

#include <gtest/gtest.h>

#include "ozram/backend.hpp"
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

TEST(BatchResult, InputBytesAreWholePages) {
    EXPECT_EQ(three_page_result().input_bytes(), 3 * PAGE_SIZE);
    BatchResult empty;
    empty.reset(0);
    EXPECT_EQ(empty.input_bytes(), 0u);
}

TEST(BatchResult, BytesAreThePagesRangeOfThePayload) {
    BatchResult result = three_page_result();
    result.payload[4096] = 0x5a;
    const auto bytes = result.bytes(result.pages[1]);
    EXPECT_EQ(bytes.data(), result.payload.data() + 4096);
    EXPECT_EQ(bytes.size(), 1000u);
    EXPECT_EQ(bytes[0], 0x5a);
    EXPECT_EQ(result.pages[0].stored_size(), 0u);
    EXPECT_EQ(result.pages[2].stored_size(), PAGE_SIZE);
}

TEST(BatchResult, ResetClearsEverythingAndKeepsCapacity) {
    BatchResult result = three_page_result();
    result.h2d_time_ns = result.kernel_time_ns = result.d2h_time_ns = 5;
    result.total_time_ns = 9;
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
    EXPECT_EQ(result.total_time_ns, 0u);
}

// What the CPU backends store: nothing for a same-filled page, the whole page
// for an incompressible one; their whole time counts as kernel time.
TEST(BatchResult, CpuBackendsStoreNothingForZerosAndWholePagesForNoise) {
    for (const Backend backend : {Backend::Scalar, Backend::Cpu}) {
        SCOPED_TRACE(to_string(backend));
        const auto compressor = make_cpu_compressor(backend);
        const std::vector<Page> zeros(3, test::filled_page(0));
        const std::vector<Page> noise{test::random_page(1), test::random_page(2)};
        BatchResult first;
        BatchResult second;
        compressor->compress(test::pointers(zeros), first);
        compressor->compress(test::pointers(noise), second);
        ASSERT_EQ(first.pages.size(), 3u);
        ASSERT_EQ(second.pages.size(), 2u);
        for (const CompressedPage& page : first.pages) {
            EXPECT_EQ(page.encoding, PageEncoding::SameFilled);
            EXPECT_EQ(page.stored_size(), 0u) << "zeros store nothing";
        }
        for (const CompressedPage& page : second.pages) {
            EXPECT_EQ(page.encoding, PageEncoding::Raw);
            EXPECT_EQ(page.stored_size(), PAGE_SIZE) << "noise is stored whole";
        }
        for (const BatchResult* result : {&first, &second}) {
            EXPECT_EQ(result->kernel_time_ns, result->total_time_ns);
            EXPECT_EQ(result->h2d_time_ns + result->d2h_time_ns, 0u);
        }
    }
}

TEST(Backend, Names) {
    EXPECT_EQ(to_string(Backend::Gpu), "gpu");
    EXPECT_EQ(to_string(Backend::Cpu), "cpu");
    EXPECT_EQ(to_string(Backend::Scalar), "scalar");
}

}  // namespace
}  // namespace ozram
