// Checks a compressed page without trusting the code that produced it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ozram/algorithm.hpp"
#include "ozram/batch_result.hpp"

namespace ozram::bench {

// Whether page i of `result`, compressed in `algorithm`, stores exactly
// `original`, judged only by the format's own library and the encoding rules:
// an Lz4 page must decode with liblz4's own LZ4_decompress_safe to exactly
// PAGE_SIZE bytes equal to the original; a Compressed page (the formats other
// than lz4) likewise with its library's safe decoder (LZ4_decompress_safe for
// lz4hc, lzo1x_decompress_safe for lzo and lzo-rle, ZSTD_decompressDCtx for
// zstd); a Raw page must hold the original bytes, a SameFilled page's word
// repeated must be the original.  A page whose bytes lie outside the payload
// fails; nothing is read out of bounds.
[[nodiscard]] bool stored_page_matches(const BatchResult& result, std::size_t i,
                                       const std::uint8_t* original,
                                       Algorithm algorithm = Algorithm::Lz4);

}  // namespace ozram::bench
