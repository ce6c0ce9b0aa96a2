// The CPU backends: liblz4 on the calling thread (Scalar) or on a persistent
// thread pool over every core (Cpu).
#pragma once

#include <vector>

#include "cpu/batch_runner.hpp"
#include "cpu/page_codec.hpp"
#include "cpu/thread_pool.hpp"
#include "ozram/backend.hpp"
#include "page_sink.hpp"

namespace ozram {

// Both backends are this class: Scalar is a pool of one participant (the
// caller, no threads), Cpu a pool of CpuConfig::threads.  One object runs one
// batch at a time (its encoders are per object): callers on several threads
// use one compressor each.  Batches submitted in flight run one after the
// other on the runner's thread, each over the pool.
class CpuCompressor final : public PageCompressor {
  public:
    // Validated config (see make_cpu_compressor()).
    CpuCompressor(Backend backend, const CpuConfig& config);

    [[nodiscard]] Backend backend() const override { return backend_; }
    void compress(std::span<const std::uint8_t* const> pages, BatchResult& out) override;
    void compress_into(std::span<const std::uint8_t* const> pages,
                       std::span<std::uint8_t* const> outputs, BatchResult& out) override;
    void decompress(const BatchResult& in, std::span<std::uint8_t* const> pages) override;
    Ticket submit(std::span<const std::uint8_t* const> pages,
                  std::span<std::uint8_t* const> outputs, BatchResult& out) override;
    [[nodiscard]] bool poll(Ticket ticket) override;
    void complete(Ticket ticket) override;
    [[nodiscard]] std::size_t max_in_flight() const override { return runner_.capacity(); }

  private:
    void compress_into_now(std::span<const std::uint8_t* const> pages,
                           std::span<std::uint8_t* const> outputs, BatchResult& out);
    // Pages per chunk handed to a participant.
    [[nodiscard]] std::size_t grain(std::size_t pages) const;
    // Encodes the batch over the pool into `sink`; `out` is already reset.
    void encode_batch(std::span<const std::uint8_t* const> pages, const PageSink& sink,
                      BatchResult& out);

    Backend backend_;
    Algorithm algorithm_;
    ThreadPool pool_;
    std::vector<PageEncoder> encoders_;  // one per pool slot
    BatchRunner runner_;                 // last: its thread uses the members above
};

}  // namespace ozram
