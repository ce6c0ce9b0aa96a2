// Page-aligned heap memory for a number of pages, as the ring's staging and
// output areas are laid out: for the tests that register memory with the
// GPU backend (on a device, or on the emulated one).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "ozram/page.hpp"

namespace ozram::testing {

struct AlignedPages {
    // `count` pages of 0xa5.
    explicit AlignedPages(std::size_t count)
        : count(count),
          bytes(static_cast<std::uint8_t*>(std::aligned_alloc(PAGE_SIZE, count * PAGE_SIZE))) {
        std::memset(bytes.get(), 0xa5, count * PAGE_SIZE);
    }
    // Copies of `pages`.
    explicit AlignedPages(const std::vector<Page>& pages) : AlignedPages(pages.size()) {
        for (std::size_t i = 0; i < count; ++i)
            std::memcpy(page(i), pages[i].data(), PAGE_SIZE);
    }
    [[nodiscard]] std::uint8_t* page(std::size_t i) const { return bytes.get() + i * PAGE_SIZE; }
    [[nodiscard]] std::span<std::uint8_t> span() const { return {bytes.get(), count * PAGE_SIZE}; }
    // The pages as a batch's input, and as its outputs.
    [[nodiscard]] std::vector<const std::uint8_t*> pointers() const {
        std::vector<const std::uint8_t*> all;
        for (std::size_t i = 0; i < count; ++i)
            all.push_back(page(i));
        return all;
    }
    [[nodiscard]] std::vector<std::uint8_t*> outputs() const {
        std::vector<std::uint8_t*> all;
        for (std::size_t i = 0; i < count; ++i)
            all.push_back(page(i));
        return all;
    }

    struct Free {
        void operator()(std::uint8_t* p) const { std::free(p); }
    };
    std::size_t count;
    std::unique_ptr<std::uint8_t, Free> bytes;
};

}  // namespace ozram::testing
