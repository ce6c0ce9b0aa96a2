#include "test_pages.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace ozram::testing {
namespace {

// std::mt19937_64's output is fixed by the standard; distributions are not,
// so values are derived from the raw output.
std::uint64_t below(std::mt19937_64& rng, std::uint64_t n) {
    return rng() % n;
}

constexpr const char* WORDS[] = {
    "the",    "page",   "memory", "kernel", "of",      "and",     "swap",    "compressed",
    "a",      "to",     "block",  "device", "is",      "in",      "that",    "for",
    "with",   "data",   "bytes",  "write",  "read",    "when",    "process", "file",
    "system", "buffer", "as",     "it",     "not",     "on",      "each",    "which",
    "time",   "queue",  "thread", "cache",  "address", "request", "error",   "value"};

void write_text(std::uint8_t* out, std::size_t n, std::mt19937_64& rng) {
    std::size_t at = 0;
    while (at < n) {
        std::string word = WORDS[below(rng, std::size(WORDS))];
        const auto roll = below(rng, 20);
        if (roll == 0)
            word[0] = static_cast<char>(std::toupper(word[0]));
        if (roll == 1)
            word += ",";
        if (roll == 2)
            word += ".\n";
        if (roll == 3)
            word = std::to_string(below(rng, 100000));
        word += ' ';
        for (char c : word) {
            if (at == n)
                break;
            out[at++] = static_cast<std::uint8_t>(c);
        }
    }
}

}  // namespace

Page zero_page() {
    return Page{};
}

Page same_filled_page(std::uint64_t word) {
    Page page;
    for (std::size_t i = 0; i < page.size(); i += 8)
        std::memcpy(&page[i], &word, 8);
    return page;
}

Page random_page(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Page page;
    for (auto& b : page)
        b = static_cast<std::uint8_t>(rng());
    return page;
}

Page text_page(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Page page;
    write_text(page.data(), page.size(), rng);
    return page;
}

Page mixed_page(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Page page{};
    switch (seed % 3) {
        case 0: {  // text with a random hole
            write_text(page.data(), page.size(), rng);
            const auto start = below(rng, 3000);
            for (auto i = start; i < start + 1 + below(rng, 1000); ++i)
                page[i] = static_cast<std::uint8_t>(rng());
            break;
        }
        case 1:  // a table of small integers
            for (std::size_t i = 0; i < page.size(); i += 4) {
                const std::uint32_t v = static_cast<std::uint32_t>(below(rng, 300));
                std::memcpy(&page[i], &v, 4);
            }
            break;
        default:  // sparse structs: pointers, flags and zero padding
            for (std::size_t i = 0; i + 64 <= page.size(); i += 64) {
                const std::uint64_t pointer = 0x00007f0000000000ull + below(rng, 1u << 24) * 64;
                std::memcpy(&page[i], &pointer, 8);
                page[i + 8] = static_cast<std::uint8_t>(below(rng, 4));
                if (below(rng, 4) == 0)
                    write_text(&page[i + 16], 24, rng);
            }
            break;
    }
    return page;
}

Page periodic_page(unsigned period, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> pattern(period);
    for (auto& b : pattern)
        b = static_cast<std::uint8_t>(rng());
    Page page;
    for (std::size_t i = 0; i < page.size(); ++i)
        page[i] = pattern[i % period];
    return page;
}

Page patchwork_page(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Page page{};
    std::size_t at = 0;
    while (at < page.size()) {
        const std::size_t n = std::min<std::size_t>(page.size() - at, 1 + below(rng, 300));
        switch (below(rng, 5)) {
            case 0:  // zeros (already there)
                break;
            case 1:
                for (std::size_t i = 0; i < n; ++i)
                    page[at + i] = static_cast<std::uint8_t>(rng());
                break;
            case 2:
                write_text(&page[at], n, rng);
                break;
            case 3: {
                const std::size_t period = 1 + below(rng, 8);
                for (std::size_t i = 0; i < n; ++i)
                    page[at + i] =
                        i < period ? static_cast<std::uint8_t>(rng()) : page[at + i - period];
                break;
            }
            default:  // a copy of an earlier part, possibly overlapping
                if (at > 0) {
                    const std::size_t from = below(rng, at);
                    for (std::size_t i = 0; i < n; ++i)
                        page[at + i] = page[from + i];
                }
                break;
        }
        at += n;
    }
    return page;
}

std::vector<Page> real_pages(std::size_t max_pages) {
    std::vector<Page> pages;

    // The first half: the test binary itself (code, tables, strings).
    if (std::ifstream exe("/proc/self/exe", std::ios::binary); exe) {
        Page page;
        while (pages.size() < max_pages / 2 &&
               exe.read(reinterpret_cast<char*>(page.data()), page.size()))
            pages.push_back(page);
    }

    // The rest: this process's readable mappings, a few pages from each.
    const int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (mem >= 0 && pages.size() < max_pages && std::getline(maps, line)) {
        std::istringstream fields(line);
        std::string range, perms;
        fields >> range >> perms;
        if (perms.empty() || perms[0] != 'r' || line.find("[v") != std::string::npos)
            continue;
        const auto dash = range.find('-');
        const std::uint64_t begin = std::stoull(range.substr(0, dash), nullptr, 16);
        const std::uint64_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
        const std::uint64_t count = (end - begin) / PAGE_SIZE;
        const std::uint64_t step = std::max<std::uint64_t>(1, count / 16);
        for (std::uint64_t i = 0; i < count && pages.size() < max_pages; i += step) {
            Page page;
            if (pread(mem, page.data(), page.size(), static_cast<off_t>(begin + i * PAGE_SIZE)) ==
                static_cast<ssize_t>(page.size()))
                pages.push_back(page);
        }
    }
    if (mem >= 0)
        close(mem);
    return pages;
}

std::vector<NamedPage> page_corpus(std::size_t real) {
    std::vector<NamedPage> corpus;
    corpus.push_back({"zero", zero_page()});
    for (std::uint64_t word : {0x1ull, 0xffffffffffffffffull, 0x0123456789abcdefull,
                               0xdeadbeefdeadbeefull, 0x8000000000000000ull})
        corpus.push_back({"same-filled", same_filled_page(word)});
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        corpus.push_back({"random", random_page(seed)});
        corpus.push_back({"text", text_page(seed)});
        corpus.push_back({"mixed", mixed_page(seed)});
    }
    for (unsigned period : {1u, 2u, 3u, 5u, 7u, 12u, 16u, 31u, 33u, 64u, 100u, 255u, 1000u, 3000u})
        corpus.push_back({"periodic", periodic_page(period, period)});
    // Same-filled except one byte, at the start, the middle and the very end.
    for (std::size_t at : {0u, 2048u, 4095u}) {
        Page page = same_filled_page(0x0101010101010101ull);
        page[at] ^= 0xff;
        corpus.push_back({"almost-same", page});
    }
    for (auto& page : real_pages(real))
        corpus.push_back({"real", page});
    return corpus;
}

}  // namespace ozram::testing
