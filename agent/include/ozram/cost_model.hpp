// When is a batch worth sending to the GPU?  A model of what each backend
// costs, calibrated by measurement; see Documentation/cost-model.md.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "ozram/backend.hpp"

namespace ozram {

// time(n pages) = fixed_ns + n * per_page_ns.
struct LinearCost {
    double fixed_ns = 0;
    double per_page_ns = 0;
    [[nodiscard]] double predict_ns(std::size_t pages) const {
        return fixed_ns + per_page_ns * static_cast<double>(pages);
    }
};

// The GPU's fixed per-batch cost assumed when a model's text gives the GPU's
// rates but not gpu.fixed_ns (a launch, two copies and a synchronisation:
// tens of microseconds).
inline constexpr double DEFAULT_GPU_FIXED_NS = 50'000;

// The GPU's cost has three stages that overlap when batches are pipelined:
// time(n) = fixed_ns + n * PAGE_SIZE * max(1/pcie, 1/kernel) in steady state,
// where pcie and kernel are in bytes per ns (== GB/s).
struct GpuCost {
    double fixed_ns = 0;     // launch, event and synchronisation overhead per batch
    double pcie_gbps = 0;    // pinned host-to-device copy bandwidth
    double kernel_gbps = 0;  // compression kernel throughput, input bytes
    [[nodiscard]] double predict_ns(std::size_t pages) const;
};

struct CostModel {
    LinearCost scalar;
    LinearCost cpu;
    std::optional<GpuCost> gpu;  // empty without a GPU

    [[nodiscard]] double predict_ns(Backend backend, std::size_t pages) const;
    // The fastest backend the model predicts for a batch of this size.
    [[nodiscard]] Backend select(std::size_t pages, bool has_gpu) const;
    // Smallest batch (pages) from which `faster` is predicted to beat `slower`
    // for every larger batch; nullopt if never.
    [[nodiscard]] std::optional<std::size_t> crossover(Backend slower, Backend faster) const;

    // Conservative defaults for a machine that was never calibrated.
    [[nodiscard]] static CostModel defaults();
    // Measures the CPU backends (and the GPU, if gpu_available()) on synthetic
    // pages for about `budget_ms`.
    [[nodiscard]] static CostModel calibrate(unsigned budget_ms = 200);

    // A small "key = value" text form, for the cache file and config overrides.
    [[nodiscard]] std::string serialize() const;
    [[nodiscard]] static CostModel parse(const std::string& text);  // throws Error(EINVAL)
};

// Installs the model select_backend() consults; safe while other threads
// select.  The active model starts as CostModel::defaults(); the agent
// installs its calibrated model at start-up.
void set_active_cost_model(const CostModel& model);

// Picks the backend for a batch of `batch_pages` pages with the active model.
// Never Gpu when has_gpu is false; monotone in the batch size (Scalar, then
// Cpu, then Gpu).
[[nodiscard]] Backend select_backend(std::size_t batch_pages, bool has_gpu);

}  // namespace ozram
