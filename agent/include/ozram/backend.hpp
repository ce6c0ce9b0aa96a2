// The backend interface: one object per way of compressing a batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "ozram/algorithm.hpp"
#include "ozram/batch_result.hpp"
#include "ozram/page.hpp"

namespace ozram {

// The ways to compress a batch.  to_string() gives the name that logs,
// statistics, options and the cost model's text use: "gpu", "cpu", "scalar".
enum class Backend : std::uint8_t {
    Gpu,     // GpuBatchCompressor
    Cpu,     // liblz4 on a thread pool over every core (vectorized same-fill scan)
    Scalar,  // liblz4 on the calling thread
};

[[nodiscard]] std::string_view to_string(Backend backend);

// The huge threshold is the largest LZ4 block kept, in bytes (1..PAGE_SIZE): a
// page whose LZ4 block is longer is stored raw, as zram stores a page that
// does not compress below zsmalloc's huge class.  It means what the ring's
// header field huge_threshold means (the kernel sets that to the huge class
// size - 1).  The default takes the huge class as 3 KiB, about what it is on
// x86-64 with 4 KiB pages.
inline constexpr std::size_t DEFAULT_HUGE_THRESHOLD = 3071;

struct CpuConfig {
    unsigned threads = 0;  // 0: every online core (Scalar ignores this: 1)
    std::size_t huge_threshold = DEFAULT_HUGE_THRESHOLD;  // largest LZ4 block kept
    int lz4_acceleration = 1;                             // liblz4's acceleration factor
    Algorithm algorithm = Algorithm::Lz4;                 // the format pages are compressed in
};

class PageCompressor {
  public:
    virtual ~PageCompressor() = default;

    [[nodiscard]] virtual Backend backend() const = 0;

    // Compresses pages[i] into out.pages[i].  out is reset and reused; the
    // pointers must each address PAGE_SIZE readable bytes.
    virtual void compress(std::span<const std::uint8_t* const> pages, BatchResult& out) = 0;

    // Compresses pages[i] as compress() does, but writes page i's bytes
    // straight into outputs[i] (PAGE_SIZE writable bytes each, overlapping no
    // page) instead of out.payload: the agent passes the ring's output slots,
    // so no copy lies between the compressor and the kernel.  out.pages[i]
    // says how page i is stored, with offset 0; out.payload is left empty.
    // An LZ4 or Compressed page's bytes are outputs[i][0, size).  A Raw
    // page's bytes are its input page and a SameFilled page has none: their
    // outputs are not written.  Throws Error(EINVAL) unless there is one
    // output per page.
    virtual void compress_into(std::span<const std::uint8_t* const> pages,
                               std::span<std::uint8_t* const> outputs, BatchResult& out) = 0;

    // Restores in.pages[i] into the PAGE_SIZE bytes at pages[i].  Throws
    // Error(EIO) naming the first page that does not decode to exactly
    // PAGE_SIZE bytes (LZ4_decompress_safe: never reads or writes out of bounds).
    virtual void decompress(const BatchResult& in, std::span<std::uint8_t* const> pages) = 0;
};

// Backend::Scalar or Backend::Cpu; Backend::Gpu is GpuBatchCompressor.
[[nodiscard]] std::unique_ptr<PageCompressor> make_cpu_compressor(Backend backend,
                                                                  const CpuConfig& config = {});

}  // namespace ozram
