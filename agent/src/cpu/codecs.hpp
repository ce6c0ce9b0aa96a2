// The codec of each format (block_codec.cpp chooses among them).
#pragma once

#include "cpu/block_codec.hpp"

namespace ozram::codecs {

[[nodiscard]] std::unique_ptr<BlockCodec> make_lz4(int acceleration);
// At `level`; 0: LZ4HC_CLEVEL_DEFAULT, the kernel's lz4hc's.
[[nodiscard]] std::unique_ptr<BlockCodec> make_lz4hc(int level = 0);
[[nodiscard]] bool decompress_lz4(const std::uint8_t* src, std::size_t len, std::uint8_t* page);

[[nodiscard]] std::unique_ptr<BlockCodec> make_lzo();
[[nodiscard]] bool decompress_lzo(const std::uint8_t* src, std::size_t len, std::uint8_t* page);

// At `level` with that level's parameters for a page, as ozram.ko and zram
// 6.12 compress at a chosen level; 0: the kernel's zstd algorithm's frame.
[[nodiscard]] std::unique_ptr<BlockCodec> make_zstd(int level = 0);
[[nodiscard]] bool decompress_zstd(const std::uint8_t* src, std::size_t len, std::uint8_t* page);

}  // namespace ozram::codecs
