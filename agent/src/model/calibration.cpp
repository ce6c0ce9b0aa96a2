// CostModel::calibrate(): times each backend on synthetic pages at several
// batch sizes and fits time = fixed + n * per_page by weighted least squares.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <vector>

#include "model/linear_fit.hpp"
#include "model/synthetic_pages.hpp"
#include "ozram/cost_model.hpp"
#include "ozram/error.hpp"
#include "ozram/gpu.hpp"

namespace ozram {
namespace {

using Clock = std::chrono::steady_clock;

// Batch sizes: small ones pin down the fixed cost, large ones the slope.
constexpr std::array<std::size_t, 9> CPU_BATCH_SIZES{1, 2, 4, 8, 16, 64, 256, 512, 1024};
constexpr std::array<std::size_t, 5> GPU_BATCH_SIZES{64, 256, 1024, 4096, 8192};
constexpr std::size_t MIN_REPEATS = 3;
constexpr std::size_t MAX_REPEATS = 200;
constexpr std::uint64_t CORPUS_SEED = 0x6f7a72616d;  // "ozram"

// Sliding windows over one corpus, so that repeats see different pages.
class Corpus {
  public:
    explicit Corpus(std::size_t largest_batch)
        : pages_(make_synthetic_pages(2 * largest_batch, CORPUS_SEED)) {
        pointers_.reserve(pages_.size());
        for (const Page& page : pages_) {
            pointers_.push_back(page.data());
        }
    }
    [[nodiscard]] std::span<const std::uint8_t* const> batch(std::size_t size,
                                                             std::size_t repeat) const {
        const std::size_t start = (repeat * 97) % (pointers_.size() - size + 1);
        return std::span<const std::uint8_t* const>(pointers_).subspan(start, size);
    }

  private:
    std::vector<Page> pages_;
    std::vector<const std::uint8_t*> pointers_;
};

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// The median time of compress() at each size, within `budget` overall.
// `last` receives the result of the last (largest) batch, for its stage times.
template <std::size_t N>
std::vector<TimingSample> measure(PageCompressor& compressor, const Corpus& corpus,
                                  const std::array<std::size_t, N>& sizes, Clock::duration budget,
                                  BatchResult& last) {
    std::vector<TimingSample> samples;
    const Clock::duration per_size = budget / static_cast<long>(sizes.size());
    BatchResult result;
    // Warm-up: caches, page faults of the result, the pool's first wake-up.
    compressor.compress(corpus.batch(std::min<std::size_t>(64, sizes.back()), 0), result);
    for (const std::size_t size : sizes) {
        std::vector<double> times;
        const Clock::time_point size_start = Clock::now();
        while (times.size() < MIN_REPEATS ||
               (times.size() < MAX_REPEATS && Clock::now() - size_start < per_size)) {
            const auto batch = corpus.batch(size, times.size());
            const Clock::time_point start = Clock::now();
            compressor.compress(batch, result);
            times.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
        }
        samples.push_back({static_cast<double>(size), median(times)});
    }
    last = std::move(result);
    return samples;
}

LinearCost calibrate_cpu(Backend backend, const Corpus& corpus, Clock::duration budget) {
    const auto compressor = make_cpu_compressor(backend);
    BatchResult last;
    return fit_linear_cost(measure(*compressor, corpus, CPU_BATCH_SIZES, budget, last));
}

// The GPU's line, with the slope split into its bus and kernel rates by the
// stage times the backend reports (scaled so that the slower one matches the
// measured end-to-end slope); both rates equal the slope without stage times.
std::optional<GpuCost> calibrate_gpu(Clock::duration budget) {
    try {
        const auto gpu = GpuBatchCompressor::create(GpuBatchConfig{});
        const Corpus corpus(GPU_BATCH_SIZES.back());
        BatchResult last;
        const LinearCost line =
            fit_linear_cost(measure(*gpu, corpus, GPU_BATCH_SIZES, budget, last));
        const double end_to_end_gbps = static_cast<double>(PAGE_SIZE) / line.per_page_ns;
        GpuCost cost{.fixed_ns = line.fixed_ns,
                     .pcie_gbps = end_to_end_gbps,
                     .kernel_gbps = end_to_end_gbps};
        if (last.h2d_time_ns > 0 && last.kernel_time_ns > 0) {
            const double bytes = static_cast<double>(last.input_bytes());
            const double pcie = bytes / static_cast<double>(last.h2d_time_ns);
            const double kernel = bytes / static_cast<double>(last.kernel_time_ns);
            const double scale = end_to_end_gbps / std::min(pcie, kernel);
            cost.pcie_gbps = pcie * scale;
            cost.kernel_gbps = kernel * scale;
        }
        return cost;
    } catch (const Error&) {
        return std::nullopt;  // no usable device after all: a CPU-only model
    }
}

}  // namespace

CostModel CostModel::calibrate(unsigned budget_ms) {
    const bool with_gpu = gpu_available();
    const Clock::duration share =
        std::chrono::milliseconds(std::max(budget_ms, 1u)) / (with_gpu ? 3 : 2);
    CostModel model = defaults();
    const Corpus corpus(CPU_BATCH_SIZES.back());
    model.scalar = calibrate_cpu(Backend::Scalar, corpus, share);
    model.cpu = calibrate_cpu(Backend::Cpu, corpus, share);
    model.gpu = with_gpu ? calibrate_gpu(share) : std::nullopt;
    return model;
}

}  // namespace ozram
