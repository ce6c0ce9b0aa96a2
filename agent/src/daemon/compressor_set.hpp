// The compressors the agent can use, built once, and the choice per batch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <utility>

#include "agent_metrics.hpp"
#include "config.hpp"
#include "ozram/backend.hpp"
#include "ozram/gpu.hpp"

namespace ozram::daemon {

// Where the drain loop gets the compressor for each batch.
class CompressorPicker {
  public:
    virtual ~CompressorPicker() = default;
    // The compressor for a batch of `pages` LZ4 pages.
    [[nodiscard]] virtual PageCompressor& pick(std::size_t pages) = 0;
    // The compressor for a batch of `pages` pages in `algorithm`; throws
    // Error(EOPNOTSUPP) for a format this picker has no compressor for.
    [[nodiscard]] virtual PageCompressor& pick_for(Algorithm algorithm, std::size_t pages);
    // The compressor that redoes a batch whose own compressor failed: the
    // CPU.  This default makes one liblz4 (or other format's) compressor on
    // the calling thread per format, on first use.
    [[nodiscard]] virtual PageCompressor& fallback_for(Algorithm algorithm);

    // The same for pages at `level` (the ring's, set by the device's
    // algorithm_params): pick_for() and fallback_for() at level 0; at any
    // other a CPU compressor of the format at that level, made on first use
    // and kept (the GPU's LZ4 has no levels).  Throws Error(EOPNOTSUPP)
    // beyond MAX_LEVELS formats at a level: the producer compresses those.
    [[nodiscard]] PageCompressor& pick_at(Algorithm algorithm, int level, std::size_t pages);
    [[nodiscard]] PageCompressor& fallback_at(Algorithm algorithm, int level);
    static constexpr std::size_t MAX_LEVELS = 32;

  protected:
    // A compressor of `config`'s format at its level, for pick_at() and
    // fallback_at(): the scalar one by default.
    [[nodiscard]] virtual std::unique_ptr<PageCompressor> make_at_level(const CpuConfig& config);

  private:
    using Key = std::pair<Algorithm, int>;
    static PageCompressor& at_level(std::map<Key, std::unique_ptr<PageCompressor>>& kept, Key key,
                                    const std::function<std::unique_ptr<PageCompressor>()>& make);

    std::array<std::unique_ptr<PageCompressor>, ALGORITHM_COUNT> fallbacks_;
    std::map<Key, std::unique_ptr<PageCompressor>> leveled_;
    std::map<Key, std::unique_ptr<PageCompressor>> leveled_fallbacks_;
};

class CompressorSet final : public CompressorPicker {
  public:
    // Builds the CPU compressors and, for backend auto or gpu, the GPU one if
    // a device is usable (otherwise logs once and stays on the CPU).  Each is
    // run once on `max_batch` pages so that lazy set-up happens now, not on
    // the first batch of a system under memory pressure.  `max_batch` is
    // the most pages a batch will have (largest_batch.hpp): the warm-up and
    // the GPU's buffers take that many, and the warm-up holds up whoever
    // waits for the set.
    CompressorSet(BackendChoice choice, const CpuConfig& cpu, std::size_t max_batch);

    // The `max_batch` the set was built for.
    [[nodiscard]] std::size_t max_batch() const { return max_batch_; }

    // The compressor for a batch of `pages` pages: the configured backend, or
    // select_backend() over the active cost model for backend auto.
    [[nodiscard]] PageCompressor& pick(std::size_t pages) override;
    // LZ4 as pick(); every other format on the CPU pool (the scalar backend
    // when that is the configured one), built on its first batch: only LZ4
    // runs on the GPU.
    [[nodiscard]] PageCompressor& pick_for(Algorithm algorithm, std::size_t pages) override;
    // The CPU pool (for LZ4), or the format's own CPU compressor.
    [[nodiscard]] PageCompressor& fallback_for(Algorithm algorithm) override;

    [[nodiscard]] bool has_gpu() const { return gpu_ != nullptr; }

    // Where the cost model's choices are counted; null for nowhere.
    void set_metrics(AgentMetrics* metrics) { metrics_ = metrics; }

    // Lets the GPU read pages in `staging` (the ring's staging area) where
    // they are, without the copy into pinned buffers, and write compressed
    // bytes straight into `output` (the ring's output area), if the CUDA
    // driver can register that memory; logs which way the pages go.
    // Nothing without a GPU.  Undone by release_ring(), which must come
    // before the ring is unmapped.
    void share_ring(std::span<const std::uint8_t> staging, std::span<std::uint8_t> output);
    void release_ring();
    // Pages the GPU read in place, and pages it had copied first.
    [[nodiscard]] std::uint64_t gpu_pages_in_place() const;
    [[nodiscard]] std::uint64_t gpu_pages_copied() const;

  protected:
    // The CPU pool at the level (the scalar backend when that is the
    // configured one), with the configured threads and huge threshold.
    [[nodiscard]] std::unique_ptr<PageCompressor> make_at_level(const CpuConfig& config) override;

  private:
    BackendChoice choice_;
    std::size_t max_batch_;
    std::unique_ptr<PageCompressor> scalar_;
    std::unique_ptr<PageCompressor> cpu_;
    std::unique_ptr<GpuBatchCompressor> gpu_;
    CpuConfig cpu_config_;
    // The CPU compressor of each format other than LZ4, once it had a batch.
    std::array<std::unique_ptr<PageCompressor>, ALGORITHM_COUNT> others_;
    // Registered with the GPU's driver.
    const std::uint8_t* staging_ = nullptr;
    const std::uint8_t* output_ = nullptr;
    AgentMetrics* metrics_ = nullptr;
};

}  // namespace ozram::daemon
