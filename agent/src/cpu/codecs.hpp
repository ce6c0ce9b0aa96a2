// The codec of each format (block_codec.cpp chooses among them).
#pragma once

#include "cpu/block_codec.hpp"

namespace ozram::codecs {

[[nodiscard]] std::unique_ptr<BlockCodec> make_lz4(int acceleration);
[[nodiscard]] std::unique_ptr<BlockCodec> make_lz4hc();
[[nodiscard]] bool decompress_lz4(const std::uint8_t* src, std::size_t len, std::uint8_t* page);

[[nodiscard]] std::unique_ptr<BlockCodec> make_lzo();
[[nodiscard]] bool decompress_lzo(const std::uint8_t* src, std::size_t len, std::uint8_t* page);

[[nodiscard]] std::unique_ptr<BlockCodec> make_zstd();
[[nodiscard]] bool decompress_zstd(const std::uint8_t* src, std::size_t len, std::uint8_t* page);

}  // namespace ozram::codecs
