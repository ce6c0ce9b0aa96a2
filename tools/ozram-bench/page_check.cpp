#include "page_check.hpp"

#include <lz4.h>

#include <array>
#include <cstring>

namespace ozram::bench {
namespace {

bool same_filled_with(const std::uint8_t* original, std::uint64_t word) {
    for (std::size_t offset = 0; offset < PAGE_SIZE; offset += sizeof(word)) {
        if (std::memcmp(original + offset, &word, sizeof(word)) != 0) {
            return false;
        }
    }
    return true;
}

bool lz4_block_decodes_to(std::span<const std::uint8_t> block, const std::uint8_t* original) {
    alignas(64) std::array<std::uint8_t, PAGE_SIZE> decoded;
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()),
                                      reinterpret_cast<char*>(decoded.data()),
                                      static_cast<int>(block.size()), PAGE_SIZE);
    return n == static_cast<int>(PAGE_SIZE) &&
           std::memcmp(decoded.data(), original, PAGE_SIZE) == 0;
}

}  // namespace

bool stored_page_matches(const BatchResult& result, std::size_t i, const std::uint8_t* original) {
    if (i >= result.pages.size()) {
        return false;
    }
    const auto& page = result.pages[i];
    if (static_cast<std::size_t>(page.offset) + page.size > result.payload.size()) {
        return false;
    }
    const auto bytes =
        std::span<const std::uint8_t>(result.payload).subspan(page.offset, page.size);
    switch (page.encoding) {
        case PageEncoding::Lz4:
            return !bytes.empty() && lz4_block_decodes_to(bytes, original);
        case PageEncoding::Raw:
            return bytes.size() == PAGE_SIZE && std::memcmp(bytes.data(), original, PAGE_SIZE) == 0;
        case PageEncoding::SameFilled:
            return bytes.empty() && same_filled_with(original, page.fill_word);
        case PageEncoding::Compressed:
            return false;  // the benchmark's compressors produce LZ4
    }
    return false;  // an encoding this tool does not know
}

}  // namespace ozram::bench
