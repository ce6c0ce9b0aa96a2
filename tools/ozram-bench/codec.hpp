// Something to benchmark: a way to compress and restore pages batch by batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ozram/backend.hpp"

namespace ozram::bench {

// One pass over the corpus.
struct PassResult {
    std::uint64_t compress_ns = 0;        // sum over the batches of the compress calls
    std::uint64_t decompress_ns = 0;      // likewise for decompression
    std::uint64_t bytes_out = 0;          // stored (compressed) bytes of every page
    std::uint64_t raw_pages = 0;          // stored as they are (incompressible, "huge")
    std::uint64_t same_filled_pages = 0;  // stored as one repeated word
};

class Codec {
  public:
    virtual ~Codec() = default;

    // "cpu", "scalar", "gpu", "gpu-copy", "liblz4-1", "liblz4-N".
    [[nodiscard]] virtual const std::string& name() const = 0;
    [[nodiscard]] virtual unsigned threads() const = 0;

    // Compresses the pages `batch` at a time, restores each batch, and checks
    // every page outside the timed sections: the restored page must equal the
    // input byte for byte, and the stored form must be right by liblz4's own
    // judgement.  Sets failed[i] for every page i that is wrong.
    [[nodiscard]] virtual PassResult run_pass(std::span<const std::uint8_t* const> pages,
                                              std::size_t batch, std::vector<bool>& failed) = 0;
};

// One of the library's backends ("cpu", "scalar" or "gpu").
[[nodiscard]] std::unique_ptr<Codec> make_library_codec(std::string name,
                                                        std::unique_ptr<PageCompressor> compressor,
                                                        unsigned threads);

// The reference: liblz4 alone, LZ4_compress_default and LZ4_decompress_safe on
// every page, fanned out over `threads` std::threads per batch; no same-fill
// detection and no raw storage of incompressible pages.  Named "liblz4-T".
[[nodiscard]] std::unique_ptr<Codec> make_liblz4_codec(unsigned threads);

}  // namespace ozram::bench
