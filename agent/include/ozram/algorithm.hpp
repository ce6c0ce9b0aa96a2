// The compression formats of the kernel's zram algorithms that the library
// produces, each as the kernel's own decompressor reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ozram {

// Only LZ4 runs on the GPU; every format runs on the CPU backends.
enum class Algorithm : std::uint8_t {
    Lz4,     // "lz4": an LZ4 block (liblz4)
    Lz4hc,   // "lz4hc": an LZ4 block, searched harder (liblz4's HC mode)
    Lzo,     // "lzo": LZO1X (liblzo2)
    LzoRle,  // "lzo-rle": LZO1X, which the kernel's lzo-rle decoder also reads
    Zstd,    // "zstd": a zstd frame (libzstd), with the kernel's parameters
};

inline constexpr std::size_t ALGORITHM_COUNT = 5;

// The kernel's name of the algorithm, as comp_algorithm lists it.
[[nodiscard]] std::string_view to_string(Algorithm algorithm);
// The algorithm of a kernel name, if the library produces it.
[[nodiscard]] std::optional<Algorithm> parse_algorithm(std::string_view name);

}  // namespace ozram
