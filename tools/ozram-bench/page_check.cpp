#include "page_check.hpp"

#include <lz4.h>
#include <lzo/lzo1x.h>
#include <zstd.h>

#include <array>
#include <climits>
#include <cstring>
#include <memory>

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

// The decoded length, or -1 when the library refuses the block.
long lz4_decode(std::span<const std::uint8_t> block, std::uint8_t* page) {
    if (block.size() > INT_MAX) {
        return -1;
    }
    return LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()),
                               reinterpret_cast<char*>(page), static_cast<int>(block.size()),
                               PAGE_SIZE);
}

long lzo_decode(std::span<const std::uint8_t> block, std::uint8_t* page) {
    static const bool ready = lzo_init() == LZO_E_OK;
    lzo_uint n = PAGE_SIZE;
    if (!ready ||
        lzo1x_decompress_safe(block.data(), block.size(), page, &n, nullptr) != LZO_E_OK) {
        return -1;
    }
    return static_cast<long>(n);
}

long zstd_decode(std::span<const std::uint8_t> block, std::uint8_t* page) {
    // One decoding context per checking thread, kept.
    struct FreeDCtx {
        void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
    };
    thread_local const std::unique_ptr<ZSTD_DCtx, FreeDCtx> context{ZSTD_createDCtx()};
    if (context == nullptr) {
        return -1;
    }
    const std::size_t n =
        ZSTD_decompressDCtx(context.get(), page, PAGE_SIZE, block.data(), block.size());
    return ZSTD_isError(n) ? -1 : static_cast<long>(n);
}

bool block_decodes_to(Algorithm format, std::span<const std::uint8_t> block,
                      const std::uint8_t* original) {
    alignas(64) std::array<std::uint8_t, PAGE_SIZE> decoded;
    long n = -1;
    switch (format) {
        case Algorithm::Lz4:
        case Algorithm::Lz4hc:
            n = lz4_decode(block, decoded.data());
            break;
        case Algorithm::Lzo:
        case Algorithm::LzoRle:
            n = lzo_decode(block, decoded.data());
            break;
        case Algorithm::Zstd:
            n = zstd_decode(block, decoded.data());
            break;
    }
    return n == static_cast<long>(PAGE_SIZE) &&
           std::memcmp(decoded.data(), original, PAGE_SIZE) == 0;
}

}  // namespace

bool stored_page_matches(const BatchResult& result, std::size_t i, const std::uint8_t* original,
                         Algorithm algorithm) {
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
            return !bytes.empty() && block_decodes_to(Algorithm::Lz4, bytes, original);
        case PageEncoding::Raw:
            return bytes.size() == PAGE_SIZE && std::memcmp(bytes.data(), original, PAGE_SIZE) == 0;
        case PageEncoding::SameFilled:
            return bytes.empty() && same_filled_with(original, page.fill_word);
        case PageEncoding::Compressed:
            // LZ4 pages are PageEncoding::Lz4: a Compressed one in an lz4
            // batch is wrong.
            return algorithm != Algorithm::Lz4 && !bytes.empty() &&
                   block_decodes_to(algorithm, bytes, original);
    }
    return false;  // an encoding this tool does not know
}

}  // namespace ozram::bench
