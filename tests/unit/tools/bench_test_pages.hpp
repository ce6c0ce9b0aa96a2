// Pages of every kind the codecs meet: text-like, incompressible, same-filled.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ozram/page.hpp"

namespace ozram::bench::testing {

// `count` pages cycling through: compressible text, random bytes, a repeated
// 64-bit word, zeros.
inline std::vector<Page> mixed_pages(std::size_t count) {
    std::vector<Page> pages(count);
    std::mt19937_64 random(42);
    for (std::size_t i = 0; i < count; ++i) {
        auto& page = pages[i];
        switch (i % 4) {
            case 0:
                for (std::size_t j = 0; j < PAGE_SIZE; ++j) {
                    page[j] = static_cast<std::uint8_t>("struct page_entry { int id; };\n"[j % 31] +
                                                        (j / 512 + i) % 3);
                }
                break;
            case 1:
                for (std::size_t j = 0; j < PAGE_SIZE; j += 8) {
                    const auto word = random();
                    std::memcpy(page.data() + j, &word, 8);
                }
                break;
            case 2: {
                const std::uint64_t word = 0x1122334455667700ULL + i;
                for (std::size_t j = 0; j < PAGE_SIZE; j += 8) {
                    std::memcpy(page.data() + j, &word, 8);
                }
                break;
            }
            default:
                page.fill(0);
                break;
        }
    }
    return pages;
}

inline std::vector<const std::uint8_t*> pointers(const std::vector<Page>& pages) {
    std::vector<const std::uint8_t*> result;
    for (const auto& page : pages) {
        result.push_back(page.data());
    }
    return result;
}

}  // namespace ozram::bench::testing
