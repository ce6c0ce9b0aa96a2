// The backend interface: one object per way of compressing a batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string_view>

#include "ozram/algorithm.hpp"
#include "ozram/backend_kind.hpp"
#include "ozram/batch_result.hpp"
#include "ozram/page.hpp"

namespace ozram {

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
    // The format's level, as the ring's submissions carry it (LZ4's
    // acceleration, LZ4HC's and zstd's level; ignored by LZO); 0: the level
    // of the kernel's algorithm by default, and lz4_acceleration for LZ4.
    int level = 0;
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

    // Batches in flight.  submit() starts what compress_into() does and
    // returns at once; complete() waits for it and then `out` holds what
    // compress_into() would have left there (or it throws what that would
    // have thrown).  pages, outputs and out stay the caller's to keep valid
    // and untouched until complete() returns.  At most max_in_flight()
    // batches are in flight, each of at most max_batch_pages() pages; beyond
    // either submit() throws Error(EBUSY) or Error(EINVAL).  Batches may
    // finish in any order; poll() says whether complete() would not wait.
    // The synchronous calls above wait for the batches in flight first.
    //
    // This default runs the batch inside submit(): one in flight.  The CPU
    // pool and the GPU backend run several at once.
    using Ticket = std::uint64_t;
    virtual Ticket submit(std::span<const std::uint8_t* const> pages,
                          std::span<std::uint8_t* const> outputs, BatchResult& out);
    [[nodiscard]] virtual bool poll(Ticket ticket);
    virtual void complete(Ticket ticket);
    [[nodiscard]] virtual std::size_t max_in_flight() const { return 1; }
    [[nodiscard]] virtual std::size_t max_batch_pages() const;

  private:
    // The default's one batch: its ticket, and what compress_into() threw.
    Ticket last_ticket_ = 0;
    bool last_pending_ = false;
    std::exception_ptr last_error_;
};

// Backend::Scalar or Backend::Cpu; Backend::Gpu is GpuBatchCompressor.
[[nodiscard]] std::unique_ptr<PageCompressor> make_cpu_compressor(Backend backend,
                                                                  const CpuConfig& config = {});

}  // namespace ozram
