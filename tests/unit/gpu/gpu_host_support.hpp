// What the host-half tests share: a compressor over an emulated device, page
// sets, aligned areas, and the check of a stored page against liblz4.
#pragma once

#include <gtest/gtest.h>
#include <lz4.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "aligned_pages.hpp"
#include "emulated_device.hpp"
#include "gpu/gpu_compressor_factory.hpp"
#include "ozram/error.hpp"
#include "ozram/gpu.hpp"
#include "test_pages.hpp"

namespace ozram::gpu::test {

using ozram::testing::NamedPage;
using ozram::testing::page_corpus;

// The compressor and the device it runs on (owned by the compressor).
struct EmulatedGpu {
    EmulatedDevice* device = nullptr;
    std::unique_ptr<GpuBatchCompressor> gpu;
};

inline EmulatedGpu emulated_gpu(const GpuBatchConfig& config = {}) {
    auto device = std::make_shared<EmulatedDevice>();
    EmulatedDevice* raw = device.get();
    return {raw, make_gpu_compressor(config, std::move(device), {"emulated", {9, 0}})};
}

// Pages of every kind, repeated with small differences up to `count`.
inline std::vector<Page> mixed_pages(std::size_t count) {
    static const std::vector<NamedPage> corpus = page_corpus(60);
    std::vector<Page> pages;
    for (std::size_t i = 0; i < count; ++i) {
        pages.push_back(corpus[i % corpus.size()].bytes);
        if (i >= corpus.size())
            pages.back()[(i * 7) % PAGE_SIZE] ^= static_cast<std::uint8_t>(i);
    }
    return pages;
}

using Area = ozram::testing::AlignedPages;

inline std::vector<const std::uint8_t*> pointers_to(const std::vector<Page>& pages) {
    std::vector<const std::uint8_t*> all;
    for (const Page& page : pages)
        all.push_back(page.data());
    return all;
}

// Submits the pages `batch` at a time, batch b into results[b] and its own
// outputs, all in flight at once; returns their tickets.
inline std::vector<PageCompressor::Ticket> submit_in_batches(
    GpuBatchCompressor& gpu, std::span<const std::uint8_t* const> inputs,
    std::span<std::uint8_t* const> outputs, std::vector<BatchResult>& results, std::size_t batch) {
    std::vector<PageCompressor::Ticket> tickets;
    for (std::size_t b = 0; b < results.size(); ++b) {
        tickets.push_back(gpu.submit(inputs.subspan(b * batch, batch),
                                     outputs.subspan(b * batch, batch), results[b]));
    }
    return tickets;
}

// 96 pages in three batches of 32, each batch with its own outputs in one
// area: what the tests of batches in flight submit.
struct ThreeBatches {
    static constexpr std::size_t BATCHES = 3;
    static constexpr std::size_t PAGES = 32;  // a batch

    std::vector<Page> pages = mixed_pages(BATCHES * PAGES);
    Area output{BATCHES * PAGES};
    std::vector<std::uint8_t*> outputs = output.outputs();
    std::vector<const std::uint8_t*> inputs = pointers_to(pages);
    std::vector<BatchResult> results = std::vector<BatchResult>(BATCHES);

    std::vector<PageCompressor::Ticket> submit(GpuBatchCompressor& gpu) {
        return submit_in_batches(gpu, inputs, outputs, results, PAGES);
    }
    [[nodiscard]] std::span<std::uint8_t* const> outputs_of(std::size_t batch) const {
        return std::span(outputs).subspan(batch * PAGES, PAGES);
    }
};

// Whether `stored`, with its bytes at `bytes`, stores `original`.
inline bool stores(const CompressedPage& stored, const std::uint8_t* bytes, const Page& original) {
    switch (stored.encoding) {
        case PageEncoding::SameFilled: {
            for (std::size_t i = 0; i < PAGE_SIZE; i += 8) {
                if (std::memcmp(original.data() + i, &stored.fill_word, 8) != 0)
                    return false;
            }
            return stored.size == 0;
        }
        case PageEncoding::Raw:
            return stored.size == PAGE_SIZE &&
                   (bytes == nullptr || std::memcmp(bytes, original.data(), PAGE_SIZE) == 0);
        case PageEncoding::Lz4: {
            Page decoded{};
            return LZ4_decompress_safe(
                       reinterpret_cast<const char*>(bytes),
                       reinterpret_cast<char*>(decoded.data()), static_cast<int>(stored.size),
                       static_cast<int>(PAGE_SIZE)) == static_cast<int>(PAGE_SIZE) &&
                   decoded == original;
        }
        default:
            return false;
    }
}

// Pages of `restored` (a decompression's outputs) that differ from `pages`.
inline std::size_t wrong_restored(const Area& restored, const std::vector<Page>& pages) {
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < pages.size(); ++i)
        wrong += std::memcmp(restored.page(i), pages[i].data(), PAGE_SIZE) == 0 ? 0 : 1;
    return wrong;
}

// Pages of a payload batch that do not store their original.
inline std::size_t wrong_in_payload(const BatchResult& batch, const std::vector<Page>& pages) {
    if (batch.pages.size() != pages.size())
        return pages.size();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        const CompressedPage& page = batch.pages[i];
        const bool inside = std::uint64_t{page.offset} + page.size <= batch.payload.size();
        wrong += inside && stores(page, batch.payload.data() + page.offset, pages[i]) ? 0 : 1;
    }
    return wrong;
}

// Pages of a compress_into() batch that do not store their original.
inline std::size_t wrong_in_outputs(const BatchResult& batch,
                                    std::span<std::uint8_t* const> outputs,
                                    const std::vector<Page>& pages, std::size_t first = 0) {
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < batch.pages.size(); ++i) {
        const CompressedPage& page = batch.pages[i];
        wrong += stores(page, page.encoding == PageEncoding::Raw ? nullptr : outputs[i],
                        pages[first + i])
                     ? 0
                     : 1;
    }
    return wrong + (batch.pages.size() == outputs.size() ? 0 : 1);
}

}  // namespace ozram::gpu::test
