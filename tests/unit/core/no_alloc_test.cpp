// The agent's hot path must not allocate (it runs under memory pressure, and
// an allocation can wait on reclaim).  This binary replaces the global
// operator new with a counting one, so it runs apart from the other tests.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "ozram/backend.hpp"
#include "ozram/batch_result.hpp"

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) {
        return p;
    }
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}

namespace ozram {
namespace {

// Text-like pages with some zero and same-filled ones, so every encoding runs.
std::vector<Page> mixed_pages(std::size_t n) {
    std::vector<Page> pages(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t b = 0; b < PAGE_SIZE; ++b) {
            pages[i][b] = static_cast<std::uint8_t>(i % 5 == 0 ? 0 : "ozram pages "[(b + i) % 12]);
        }
    }
    return pages;
}

class NoAllocation : public ::testing::TestWithParam<Backend> {};

TEST_P(NoAllocation, SteadyStateCompressAndDecompress) {
    auto pages = mixed_pages(512);
    std::vector<const std::uint8_t*> in;
    std::vector<std::uint8_t*> out_ptrs;
    std::vector<Page> restored(pages.size());
    for (std::size_t i = 0; i < pages.size(); ++i) {
        in.push_back(pages[i].data());
        out_ptrs.push_back(restored[i].data());
    }
    auto compressor = make_cpu_compressor(GetParam(), CpuConfig{.threads = 4});
    BatchResult result;
    compressor->compress(in, result);  // warm-up: sizes the result once
    compressor->decompress(result, out_ptrs);

    const long before = allocations.load();
    for (int round = 0; round < 20; ++round) {
        compressor->compress(in, result);
        compressor->decompress(result, out_ptrs);
    }
    EXPECT_EQ(allocations.load() - before, 0) << "allocations in 20 steady-state batches";
    EXPECT_EQ(restored, pages);
}

// The agent's path: bytes straight into the caller's buffers.
TEST_P(NoAllocation, SteadyStateCompressInto) {
    auto pages = mixed_pages(512);
    std::vector<const std::uint8_t*> in;
    std::vector<Page> outputs(pages.size());
    std::vector<std::uint8_t*> out_ptrs;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        in.push_back(pages[i].data());
        out_ptrs.push_back(outputs[i].data());
    }
    auto compressor = make_cpu_compressor(GetParam(), CpuConfig{.threads = 4});
    BatchResult result;
    compressor->compress_into(in, out_ptrs, result);  // warm-up: sizes the result once

    const long before = allocations.load();
    for (int round = 0; round < 20; ++round) {
        compressor->compress_into(in, out_ptrs, result);
    }
    EXPECT_EQ(allocations.load() - before, 0) << "allocations in 20 steady-state batches";
    ASSERT_EQ(result.pages.size(), pages.size());
}

INSTANTIATE_TEST_SUITE_P(CpuBackends, NoAllocation,
                         ::testing::Values(Backend::Scalar, Backend::Cpu),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace ozram
