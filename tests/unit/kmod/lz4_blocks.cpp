#include "lz4_blocks.hpp"

#include <lz4.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <string_view>

extern "C" {
#include "ozram_lz4_verify.h"

// The kernels' decoders this build has (tests/unit/kmod/CMakeLists.txt).
#define OZRAM_KERNEL_LZ4_DECODER(kernel, decompress_safe) \
    int decompress_safe(const char* src, char* dst, int src_size, int dst_capacity);
#include "kernel_lz4_decoders.h"
#undef OZRAM_KERNEL_LZ4_DECODER
}

namespace ozram::testing {
namespace {

// liblz4's first, then the kernels'; the last entry only ends the list, so
// that the list is never empty.
constexpr Decoder DECODERS[] = {
    {"liblz4", LZ4_decompress_safe},
#define OZRAM_KERNEL_LZ4_DECODER(kernel, decompress_safe) {kernel, decompress_safe},
#include "kernel_lz4_decoders.h"
#undef OZRAM_KERNEL_LZ4_DECODER
    {nullptr, nullptr},
};

}  // namespace

std::span<const Decoder> reference_decoders() {
    return std::span(DECODERS).first(std::size(DECODERS) - 1);
}

std::span<const Decoder> kernel_decoders() {
    return reference_decoders().subspan(1);
}

void BlockWriter::length_bytes(std::uint32_t rest) {
    while (rest >= 255) {
        bytes_.push_back(255);
        rest -= 255;
    }
    bytes_.push_back(static_cast<std::uint8_t>(rest));
}

BlockWriter& BlockWriter::sequence(std::span<const std::uint8_t> literals, std::uint32_t offset,
                                   std::uint32_t length) {
    const auto nlit = static_cast<std::uint32_t>(literals.size());
    const std::uint32_t field = length - 4;
    bytes_.push_back(static_cast<std::uint8_t>(std::min(nlit, 15u) << 4 | std::min(field, 15u)));
    if (nlit >= 15) {
        length_bytes(nlit - 15);
    }
    bytes_.insert(bytes_.end(), literals.begin(), literals.end());
    bytes_.push_back(static_cast<std::uint8_t>(offset));
    bytes_.push_back(static_cast<std::uint8_t>(offset >> 8));
    if (field >= 15) {
        length_bytes(field - 15);
    }
    return *this;
}

BlockWriter& BlockWriter::last(std::span<const std::uint8_t> literals) {
    const auto nlit = static_cast<std::uint32_t>(literals.size());
    bytes_.push_back(static_cast<std::uint8_t>(std::min(nlit, 15u) << 4));
    if (nlit >= 15) {
        length_bytes(nlit - 15);
    }
    bytes_.insert(bytes_.end(), literals.begin(), literals.end());
    return *this;
}

BlockWriter& BlockWriter::raw(std::span<const std::uint8_t> bytes) {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
    return *this;
}

Bytes decoder_decode(const Decoder& decoder, std::span<const std::uint8_t> block,
                     std::size_t size) {
    // An exact-size copy, so that a read past the block is a fault under a
    // sanitizer rather than a read of whatever follows.
    Bytes input(block.begin(), block.end());
    Bytes out(size, 0xa5);
    if (input.empty() || block.size() > INT_MAX) {
        return {};
    }
    const int n = decoder.decompress_safe(reinterpret_cast<const char*>(input.data()),
                                          reinterpret_cast<char*>(out.data()),
                                          static_cast<int>(input.size()), static_cast<int>(size));
    if (n != static_cast<int>(size)) {
        return {};
    }
    return out;
}

bool decoder_gives(const Decoder& decoder, std::span<const std::uint8_t> block,
                   std::span<const std::uint8_t> page) {
    const Bytes out = decoder_decode(decoder, block, page.size());
    return !out.empty() && std::memcmp(out.data(), page.data(), page.size()) == 0;
}

bool liblz4_gives(std::span<const std::uint8_t> block, std::span<const std::uint8_t> page) {
    return decoder_gives(DECODERS[0], block, page);
}

Bytes liblz4_decode(std::span<const std::uint8_t> block, std::size_t size) {
    return decoder_decode(DECODERS[0], block, size);
}

bool module_accepts(std::span<const std::uint8_t> block, std::span<const std::uint8_t> page) {
    // Exact-size copies for the same reason as above.
    const Bytes input(block.begin(), block.end());
    const Bytes target(page.begin(), page.end());
    return ozram_lz4_verify(input.data(), static_cast<unsigned int>(input.size()), target.data(),
                            static_cast<unsigned int>(target.size()));
}

bool has_zero_offset(std::span<const std::uint8_t> block) {
    std::size_t ip = 0;
    auto more = [&](std::size_t& length) {
        for (std::uint8_t byte = 255; byte == 255;) {
            if (ip >= block.size()) {
                return false;
            }
            byte = block[ip++];
            length += byte;
        }
        return true;
    };
    while (ip < block.size()) {
        const std::uint8_t token = block[ip++];
        std::size_t literals = token >> 4;
        if (literals == 15 && !more(literals)) {
            return false;
        }
        if (literals > block.size() - ip) {
            return false;
        }
        ip += literals;
        if (block.size() - ip < 2) {
            return false;  // the end, or a cut offset
        }
        if ((block[ip] | block[ip + 1] << 8) == 0) {
            return true;
        }
        ip += 2;
        std::size_t match = token & 15;
        if (match == 15 && !more(match)) {
            return false;
        }
    }
    return false;
}

Bytes lz4_compress(std::span<const std::uint8_t> page) {
    Bytes block(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(page.size()))));
    const int n = LZ4_compress_default(
        reinterpret_cast<const char*>(page.data()), reinterpret_cast<char*>(block.data()),
        static_cast<int>(page.size()), static_cast<int>(block.size()));
    block.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return block;
}

namespace {

void fill_text(Bytes& page, std::mt19937_64& rng) {
    static constexpr std::array<std::string_view, 16> words = {
        "the ",   "page ", "kernel ", "ring ",  "offset ",  "match ", "literal ", "of ",
        "zram\n", "slot ", "agent ",  "block ", "compare ", "a ",     "\t",       "stored "};
    for (std::size_t at = 0; at < page.size();) {
        const auto word = words[rng() % words.size()];
        for (char c : word) {
            if (at < page.size()) {
                page[at++] = static_cast<std::uint8_t>(c);
            }
        }
    }
}

void fill_records(Bytes& page, std::mt19937_64& rng) {
    // Records of 8-byte fields: heap pointers, small counters, zero padding.
    const std::size_t fields = 2 + rng() % 7;
    const std::uint64_t base = 0x00007f0000000000ull | (rng() & 0xffffff000ull);
    for (std::size_t at = 0, field = 0; at + 8 <= page.size();
         at += 8, field = (field + 1) % fields) {
        std::uint64_t value = 0;
        switch (field % 3) {
            case 0:
                value = base + (rng() % 4096) * 16;
                break;
            case 1:
                value = rng() % 100;
                break;
            default:
                break;
        }
        std::memcpy(page.data() + at, &value, sizeof(value));
    }
}

}  // namespace

Bytes make_page(PageKind kind, std::mt19937_64& rng, std::size_t size) {
    Bytes page(size, 0);
    if (size == 0) {
        return page;  // half of a page of one byte
    }
    switch (kind) {
        case PageKind::Zero:
            break;
        case PageKind::SameFilled: {
            const std::uint64_t word = rng();
            for (std::size_t i = 0; i < size; ++i) {
                page[i] = static_cast<std::uint8_t>(word >> (8 * (i % 8)));
            }
            break;
        }
        case PageKind::Text:
            fill_text(page, rng);
            break;
        case PageKind::Records:
            fill_records(page, rng);
            break;
        case PageKind::Periodic: {
            // A period of 1 to 40 bytes, every byte sometimes replaced:
            // matches of every short offset, overlapping their own output.
            const std::size_t period = 1 + rng() % 40;
            Bytes pattern(period);
            for (auto& b : pattern) {
                b = static_cast<std::uint8_t>(rng());
            }
            const unsigned noise = 16 + rng() % 512;
            for (std::size_t i = 0; i < size; ++i) {
                page[i] =
                    rng() % noise == 0 ? static_cast<std::uint8_t>(rng()) : pattern[i % period];
            }
            break;
        }
        case PageKind::Random:
            for (auto& b : page) {
                b = static_cast<std::uint8_t>(rng());
            }
            break;
        case PageKind::FewSymbols: {
            const unsigned symbols = 2 + rng() % 3;
            for (auto& b : page) {
                b = static_cast<std::uint8_t>('a' + rng() % symbols);
            }
            break;
        }
        case PageKind::Sparse:
            for (unsigned n = rng() % 24; n > 0; --n) {
                page[rng() % size] = static_cast<std::uint8_t>(rng());
            }
            break;
        case PageKind::Mixed: {
            const std::size_t half = size / 2;
            Bytes first = make_page(static_cast<PageKind>(rng() % (PAGE_KINDS - 1)), rng, half);
            Bytes second =
                make_page(static_cast<PageKind>(rng() % (PAGE_KINDS - 1)), rng, size - half);
            std::copy(first.begin(), first.end(), page.begin());
            std::copy(second.begin(), second.end(),
                      page.begin() + static_cast<std::ptrdiff_t>(half));
            break;
        }
    }
    return page;
}

}  // namespace ozram::testing
