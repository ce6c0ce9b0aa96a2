// Something to benchmark: a way to compress and restore pages batch by batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ozram/algorithm.hpp"
#include "ozram/backend.hpp"

namespace ozram {
class GpuBatchCompressor;
}

namespace ozram::bench {

// One pass over the corpus.
struct PassResult {
    std::uint64_t compress_ns = 0;        // sum over the batches of the compress calls
    std::uint64_t decompress_ns = 0;      // likewise for decompression
    std::uint64_t kernel_ns = 0;          // GPU only: device time of the compression kernel
    std::uint64_t bytes_out = 0;          // stored (compressed) bytes of every page
    std::uint64_t raw_pages = 0;          // stored as they are (incompressible, "huge")
    std::uint64_t same_filled_pages = 0;  // stored as one repeated word
};

class Codec {
  public:
    virtual ~Codec() = default;

    // "cpu", "scalar", "gpu", "gpu-copy", "liblz4-1", "liblz4-N", "libzstd-N"...
    [[nodiscard]] virtual const std::string& name() const = 0;
    [[nodiscard]] virtual unsigned threads() const = 0;

    // Compresses the pages `batch` at a time, restores each batch, and checks
    // every page outside the timed sections: the restored page must equal the
    // input byte for byte, and the stored form must be right by the judgement
    // of its format's own library (liblz4, liblzo2 or libzstd).  Sets
    // failed[i] for every page i that is wrong.
    [[nodiscard]] virtual PassResult run_pass(std::span<const std::uint8_t* const> pages,
                                              std::size_t batch, std::vector<bool>& failed) = 0;
};

// One of the library's backends ("cpu", "scalar" or "gpu"), compressing in
// `algorithm` (the format its stored pages are checked in).
[[nodiscard]] std::unique_ptr<Codec> make_library_codec(std::string name,
                                                        std::unique_ptr<PageCompressor> compressor,
                                                        unsigned threads,
                                                        Algorithm algorithm = Algorithm::Lz4);

// The GPU backend as the agent uses it ("gpu"): pages read in place from
// registered memory, compressed bytes written by the device straight into
// registered 4 KiB output buffers, several batches in flight (gpu_codec.cpp).
// The caller has registered the corpus with `gpu`, which rows may share.
// With a `timeline` path, each pass writes its timeline there (timeline.hpp)
// and summarizes it on stderr; the last pass's file stays.  With `rounds`,
// a pass is the corpus that many times over in one stream of batches, and
// its figures are per corpus ("gpu-stream": the pipeline's fill and drain
// spread over GPU_STREAM_ROUNDS corpora).
[[nodiscard]] std::unique_ptr<Codec> make_gpu_codec(std::string name,
                                                    std::shared_ptr<GpuBatchCompressor> gpu,
                                                    std::string timeline = {}, unsigned rounds = 1);
inline constexpr unsigned GPU_STREAM_ROUNDS = 8;

// The reference for a format: its own library alone on every page, fanned
// out over `threads` std::threads per batch (threads started per batch, one
// library state per thread made once); no same-fill detection and no raw
// storage of incompressible pages.  Every block is decoded back with the
// library's safe decoder and compared with the page.  Named
// "<library>-T", the library being reference_library(algorithm):
//   lz4      liblz4:   LZ4_compress_default, LZ4_decompress_safe
//   lz4hc    liblz4hc: LZ4_compress_HC_extStateHC at LZ4HC_CLEVEL_DEFAULT,
//                      LZ4_decompress_safe
//   lzo, lzo-rle
//            liblzo2:  lzo1x_1_compress, lzo1x_decompress_safe
//   zstd     libzstd:  ZSTD_compress2 with the kernel's parameters (level 3's
//                      for an unknown size) set once per context,
//                      ZSTD_decompressDCtx
[[nodiscard]] std::unique_ptr<Codec> make_reference_codec(Algorithm algorithm, unsigned threads);
[[nodiscard]] std::string reference_library(Algorithm algorithm);

// make_reference_codec(Algorithm::Lz4, threads): "liblz4-T".
[[nodiscard]] std::unique_ptr<Codec> make_liblz4_codec(unsigned threads);

}  // namespace ozram::bench
