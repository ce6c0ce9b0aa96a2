#include "fuzz_blocks.hpp"

#include <lz4.h>

#include <algorithm>

#include "host_codec.hpp"

namespace ozram::testing {

std::vector<std::vector<std::uint8_t>> seed_blocks() {
    std::vector<std::vector<std::uint8_t>> blocks;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        for (const Page& page :
             {text_page(seed), mixed_page(seed), periodic_page(seed * 3, seed)}) {
            // Ours and liblz4's, whose parses differ.
            blocks.push_back(compress_on_host(page, PAGE_SIZE).bytes);
            std::vector<std::uint8_t> theirs(LZ4_compressBound(page.size()));
            const int n = LZ4_compress_default(
                reinterpret_cast<const char*>(page.data()), reinterpret_cast<char*>(theirs.data()),
                static_cast<int>(page.size()), static_cast<int>(theirs.size()));
            theirs.resize(n);
            blocks.push_back(theirs);
        }
    }
    return blocks;
}

bool has_zero_offset(const std::vector<std::uint8_t>& block) {
    std::size_t ip = 0;
    auto extra = [&](std::size_t& length) {
        for (std::uint8_t byte = 255; byte == 255 && ip < block.size(); length += byte)
            byte = block[ip++];
    };
    while (ip < block.size()) {
        const std::uint8_t token = block[ip++];
        std::size_t literals = token >> 4;
        if (literals == 15)
            extra(literals);
        ip += literals;
        if (ip + 2 > block.size())
            return false;
        if (block[ip] == 0 && block[ip + 1] == 0)
            return true;
        ip += 2;
        std::size_t match = token & 15;
        if (match == 15)
            extra(match);
    }
    return false;
}

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> block, std::mt19937_64& rng) {
    auto pick = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
    switch (rng() % 6) {
        case 0:  // flip a few bits
            for (int i = 0, n = 1 + pick(4); i < n; ++i)
                block[pick(block.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
            break;
        case 1:  // overwrite a byte, often a token-like or length-like value
            block[pick(block.size())] = static_cast<std::uint8_t>(
                rng() % 2 ? rng() : std::vector<int>{0, 15, 240, 255}[pick(4)]);
            break;
        case 2:  // truncate
            block.resize(pick(block.size()));
            break;
        case 3:  // append junk
            for (int i = 0, n = 1 + pick(64); i < n; ++i)
                block.push_back(static_cast<std::uint8_t>(rng()));
            break;
        case 4:  // entirely random bytes of a random length
            block.resize(1 + pick(PAGE_SIZE));
            for (auto& b : block)
                b = static_cast<std::uint8_t>(rng());
            break;
        default: {  // repeat a slice somewhere else
            const std::size_t from = pick(block.size()), to = pick(block.size());
            const std::size_t n = std::min({pick(32), block.size() - from, block.size() - to});
            std::copy_n(block.begin() + from, n, block.begin() + to);
            break;
        }
    }
    if (block.size() > PAGE_SIZE)
        block.resize(PAGE_SIZE);
    return block;
}

}  // namespace ozram::testing
