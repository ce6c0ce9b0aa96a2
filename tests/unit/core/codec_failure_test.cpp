// A codec's library that fails is an error, not an incompressible page: a
// raw answer would store a compressible page at 4 KiB, and a recompression
// miss marks the slot incompressible for good.  libzstd allocates a
// context's workspace with the first frame, so this binary replaces malloc
// with one that can refuse large allocations, and runs apart from the others.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "cpu/page_codec.hpp"
#include "ozram/error.hpp"
#include "test_pages.hpp"

extern "C" void* __libc_malloc(std::size_t size);

namespace {
std::atomic<std::size_t> refuse_above{std::numeric_limits<std::size_t>::max()};
}  // namespace

extern "C" void* malloc(std::size_t size) {
    if (size > refuse_above.load(std::memory_order_relaxed)) {
        errno = ENOMEM;
        return nullptr;
    }
    return __libc_malloc(size);
}

namespace ozram {
namespace {

TEST(CodecFailure, ZstdOutOfMemoryIsAnErrorNotARawPage) {
    const Page page = test::text_page(7);
    Page slot{};
    PageEncoder encoder(PAGE_SIZE, 1, Algorithm::Zstd);
    refuse_above = 16 * 1024;
    try {
        (void)encoder.encode(page.data(), slot.data());
        refuse_above = std::numeric_limits<std::size_t>::max();
        FAIL() << "encoded a page without its workspace";
    } catch (const Error& error) {
        refuse_above = std::numeric_limits<std::size_t>::max();
        EXPECT_EQ(error.code().value(), ENOMEM) << error.what();
    }
    // With memory back, the same encoder compresses the page.
    const CompressedPage out = encoder.encode(page.data(), slot.data());
    EXPECT_EQ(out.encoding, PageEncoding::Compressed);
    EXPECT_LT(out.size, PAGE_SIZE);
}

}  // namespace
}  // namespace ozram
