// Shared by the GPU tests: the fixture that skips without a device, and
// checks of a compressed batch against liblz4.
#pragma once

#include <gtest/gtest.h>
#include <lz4.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "aligned_pages.hpp"
#include "cpu/same_filled.hpp"
#include "ozram/gpu.hpp"
#include "test_pages.hpp"

namespace ozram::testing {

class GpuTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!ozram::gpu_available())
            GTEST_SKIP() << "no CUDA device found: the GPU tests need one (compute capability "
                            ">= 9.0 and a working driver)";
    }
};

inline std::vector<const std::uint8_t*> pointers_to(const std::vector<Page>& pages) {
    std::vector<const std::uint8_t*> pointers;
    for (const Page& page : pages)
        pointers.push_back(page.data());
    return pointers;
}

// Restores every page of `batch` with `compressor` into fresh pages.
inline std::vector<Page> decompress_all(PageCompressor& compressor, const BatchResult& batch) {
    std::vector<Page> pages(batch.pages.size());
    std::vector<std::uint8_t*> pointers;
    for (Page& page : pages)
        pointers.push_back(page.data());
    compressor.decompress(batch, pointers);
    return pages;
}

inline std::vector<Page> corpus_pages(std::size_t real) {
    std::vector<Page> pages;
    for (auto& named : page_corpus(real))
        pages.push_back(named.bytes);
    return pages;
}

// Page i of `batch` is a correct encoding of inputs[i]: its bytes lie in the
// payload, LZ4 blocks decode with LZ4_decompress_safe to exactly the page,
// raw pages are the page, same-filled pages are the page's word.  Returns the
// failures' count.
inline std::size_t count_wrong_pages(const BatchResult& batch, const std::vector<Page>& inputs,
                                     std::size_t huge_threshold = DEFAULT_HUGE_THRESHOLD) {
    std::size_t wrong = 0;
    if (batch.pages.size() != inputs.size())
        return inputs.size();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const CompressedPage& page = batch.pages[i];
        const Page& input = inputs[i];
        Page decoded{};
        bool ok = std::uint64_t{page.offset} + page.size <= batch.payload.size();
        switch (page.encoding) {
            case PageEncoding::SameFilled: {
                std::uint64_t word = 0;
                ok = ok && page.size == 0 && is_same_filled(input.data(), &word) &&
                     word == page.fill_word;
                break;
            }
            case PageEncoding::Raw:
                ok = ok && page.size == PAGE_SIZE &&
                     std::memcmp(batch.payload.data() + page.offset, input.data(), PAGE_SIZE) == 0;
                break;
            case PageEncoding::Lz4:
                ok = ok && page.size <= huge_threshold &&
                     LZ4_decompress_safe(
                         reinterpret_cast<const char*>(batch.payload.data() + page.offset),
                         reinterpret_cast<char*>(decoded.data()), static_cast<int>(page.size),
                         static_cast<int>(PAGE_SIZE)) == static_cast<int>(PAGE_SIZE) &&
                     std::memcmp(decoded.data(), input.data(), PAGE_SIZE) == 0;
                break;
            case PageEncoding::Compressed:
                ok = false;  // the GPU produces LZ4 only
                break;
        }
        if (!ok)
            ++wrong;
    }
    return wrong;
}

}  // namespace ozram::testing
