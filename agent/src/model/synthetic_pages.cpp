// Synthetic page generators for calibration.
#include "model/synthetic_pages.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <string_view>

namespace ozram {
namespace {

void make_text(std::mt19937_64& rng, Page& page) {
    static constexpr std::array<std::string_view, 24> WORDS{
        "the",      "page",   "kernel", "memory",  "swap",   "error",  "request", "device",
        "return",   "value",  "const",  "struct",  "buffer", "worker", "thread",  "batch",
        "compress", "offset", "length", "timeout", "config", "static", "queue",   "status"};
    std::size_t at = 0;
    std::uniform_int_distribution<std::size_t> word(0, WORDS.size() - 1);
    std::uniform_int_distribution<int> digit(0, 9);
    std::uniform_int_distribution<int> line_length(4, 12);
    while (at < PAGE_SIZE) {
        // A log-like line: a number, then a few words.
        std::array<char, 96> line{};
        std::size_t used = 0;
        for (int i = 0; i < 6; ++i) {
            line[used++] = static_cast<char>('0' + digit(rng));
        }
        const int words = line_length(rng);
        for (int i = 0; i < words && used + 10 < line.size(); ++i) {
            const std::string_view w = WORDS[word(rng)];
            line[used++] = ' ';
            std::memcpy(line.data() + used, w.data(), std::min(w.size(), line.size() - used - 1));
            used += std::min(w.size(), line.size() - used - 1);
        }
        line[used++] = '\n';
        const std::size_t n = std::min(used, PAGE_SIZE - at);
        std::memcpy(page.data() + at, line.data(), n);
        at += n;
    }
}

void make_struct(std::mt19937_64& rng, Page& page) {
    // 32-byte records: an id counting up, a heap-like pointer, a small
    // enum, a flag word and padding.
    struct Record {
        std::uint64_t id;
        std::uint64_t pointer;
        std::uint32_t kind;
        std::uint32_t flags;
        std::uint64_t padding;
    };
    static_assert(PAGE_SIZE % sizeof(Record) == 0);
    const std::uint64_t base_id = rng() & 0xffffff;
    const std::uint64_t heap = 0x5555'0000'0000ULL + ((rng() & 0xffff) << 12);
    std::uniform_int_distribution<std::uint32_t> kind(0, 7);
    std::uniform_int_distribution<std::uint64_t> stride(1, 16);
    std::uint64_t pointer = heap;
    for (std::size_t i = 0; i < PAGE_SIZE / sizeof(Record); ++i) {
        pointer += 16 * stride(rng);
        const Record record{base_id + i, pointer, kind(rng), (rng() & 1) ? 0x1u : 0x3u, 0};
        std::memcpy(page.data() + i * sizeof(Record), &record, sizeof(Record));
    }
}

void make_random(std::mt19937_64& rng, Page& page) {
    for (std::size_t i = 0; i < PAGE_SIZE; i += sizeof(std::uint64_t)) {
        const std::uint64_t word = rng();
        std::memcpy(page.data() + i, &word, sizeof(word));
    }
}

}  // namespace

void make_synthetic_page(SyntheticKind kind, std::uint64_t seed, Page& page) {
    std::mt19937_64 rng(seed);
    switch (kind) {
        case SyntheticKind::Zero:
            page.fill(0);
            return;
        case SyntheticKind::Text:
            make_text(rng, page);
            return;
        case SyntheticKind::Struct:
            make_struct(rng, page);
            return;
        case SyntheticKind::Random:
            make_random(rng, page);
            return;
    }
}

std::vector<Page> make_synthetic_pages(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> percent(0, 99);
    std::vector<Page> pages(count);
    for (Page& page : pages) {
        const int p = percent(rng);
        const SyntheticKind kind = p < 25   ? SyntheticKind::Zero
                                   : p < 60 ? SyntheticKind::Text
                                   : p < 85 ? SyntheticKind::Struct
                                            : SyntheticKind::Random;
        make_synthetic_page(kind, rng(), page);
    }
    return pages;
}

}  // namespace ozram
