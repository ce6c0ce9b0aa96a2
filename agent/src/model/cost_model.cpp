// The cost model: predictions, the backend choice and the offload rule.
// Every backend's time is linear in the batch size (the GPU's too, once its
// stages overlap), so the choice between two backends is one crossover point
// and the choice among three is two; see Documentation/cost-model.md.
#include "ozram/cost_model.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <forward_list>
#include <limits>
#include <mutex>
#include <thread>

namespace ozram {
namespace {

constexpr double INFINITE_NS = std::numeric_limits<double>::infinity();

// The GPU's per-page time: the slower of the bus and the kernel bounds a
// pipelined stream of batches.  Rates are bytes per ns (GB/s).
double gpu_per_page_ns(double pcie_gbps, double kernel_gbps) {
    const double rate = std::min(pcie_gbps, kernel_gbps);
    if (!(rate > 0)) {  // also catches NaN
        return INFINITE_NS;
    }
    return static_cast<double>(PAGE_SIZE) / rate;
}

// Every backend as fixed + n * per_page; nullopt for a GPU the model lacks.
std::optional<LinearCost> linear_cost(const CostModel& model, Backend backend) {
    switch (backend) {
        case Backend::Scalar:
            return model.scalar;
        case Backend::Cpu:
            return model.cpu;
        case Backend::Gpu:
            if (!model.gpu) {
                return std::nullopt;
            }
            return LinearCost{model.gpu->fixed_ns,
                              gpu_per_page_ns(model.gpu->pcie_gbps, model.gpu->kernel_gbps)};
    }
    return std::nullopt;
}

}  // namespace

double GpuCost::predict_ns(std::size_t pages) const {
    const double per_page = gpu_per_page_ns(pcie_gbps, kernel_gbps);
    if (pages == 0) {
        return fixed_ns;
    }
    return fixed_ns + per_page * static_cast<double>(pages);
}

double CostModel::predict_ns(Backend backend, std::size_t pages) const {
    if (backend == Backend::Gpu) {
        return gpu ? gpu->predict_ns(pages) : INFINITE_NS;
    }
    return linear_cost(*this, backend)->predict_ns(pages);
}

std::optional<std::size_t> CostModel::crossover(Backend slower, Backend faster) const {
    const std::optional<LinearCost> s = linear_cost(*this, slower);
    const std::optional<LinearCost> f = linear_cost(*this, faster);
    if (!s || !f || !std::isfinite(f->per_page_ns) || !std::isfinite(f->fixed_ns)) {
        return std::nullopt;
    }
    // faster(n) < slower(n)  <=>  (s.per_page - f.per_page) * n > f.fixed - s.fixed.
    const double slope_gain = s->per_page_ns - f->per_page_ns;
    const double fixed_loss = f->fixed_ns - s->fixed_ns;
    if (slope_gain <= 0) {
        // The gap never widens in faster's favour: it wins everywhere (from
        // one page on) only if it is ahead at the start and keeps pace.
        return (slope_gain == 0 && fixed_loss < 0) ? std::optional<std::size_t>{1} : std::nullopt;
    }
    // n* = (F_faster - F_slower) / (c_slower - c_faster); the first whole
    // batch strictly beyond it.
    const double break_even = fixed_loss / slope_gain;
    if (break_even < 1) {
        return 1;
    }
    // Beyond any real batch, or NaN from a model with NaN in it: never.
    if (!(break_even < static_cast<double>(std::numeric_limits<std::size_t>::max() / 2))) {
        return std::nullopt;
    }
    return static_cast<std::size_t>(std::floor(break_even)) + 1;
}

Backend CostModel::select(std::size_t pages, bool has_gpu) const {
    // Thresholds rather than a plain argmin keep the choice monotone in the
    // batch size even for odd models (Scalar, then Cpu, then Gpu, each from
    // the point where it wins for every larger batch).
    if (has_gpu && gpu) {
        const std::optional<std::size_t> over_scalar = crossover(Backend::Scalar, Backend::Gpu);
        const std::optional<std::size_t> over_cpu = crossover(Backend::Cpu, Backend::Gpu);
        if (over_scalar && over_cpu && pages >= std::max(*over_scalar, *over_cpu)) {
            return Backend::Gpu;
        }
    }
    const std::optional<std::size_t> cpu_from = crossover(Backend::Scalar, Backend::Cpu);
    if (cpu_from && pages >= *cpu_from) {
        return Backend::Cpu;
    }
    return Backend::Scalar;
}

CostModel CostModel::defaults() {
    // Deliberately pessimistic about parallelism and the GPU: an
    // uncalibrated agent should not offload.  LZ4 on one core takes a few
    // microseconds per 4 KiB page of mixed content; waking the pool costs
    // tens of microseconds; the pool scales at 3/4 of linear.
    constexpr double SCALAR_PER_PAGE_NS = 4000;
    const double cores = std::max(1u, std::thread::hardware_concurrency());
    CostModel model;
    model.scalar = LinearCost{.fixed_ns = 200, .per_page_ns = SCALAR_PER_PAGE_NS};
    model.cpu = LinearCost{.fixed_ns = 30'000,
                           .per_page_ns = SCALAR_PER_PAGE_NS / std::max(1.0, 0.75 * cores)};
    model.gpu = std::nullopt;
    return model;
}

namespace {

// Installed models are kept for the life of the process so that a model a
// concurrent select_backend() is reading never goes away; a process installs
// one a handful of times (start-up, configuration reload).
struct ActiveModel {
    std::mutex mutex;
    std::forward_list<CostModel> installed;
    std::atomic<const CostModel*> current;

    ActiveModel() {
        installed.push_front(CostModel::defaults());
        current.store(&installed.front());
    }
};

ActiveModel& active() {
    static ActiveModel instance;
    return instance;
}

const CostModel& active_cost_model() {
    return *active().current.load(std::memory_order_acquire);
}

}  // namespace

void set_active_cost_model(const CostModel& model) {
    ActiveModel& state = active();
    std::lock_guard lock(state.mutex);
    state.installed.push_front(model);
    state.current.store(&state.installed.front(), std::memory_order_release);
}

Backend select_backend(std::size_t batch_pages, bool has_gpu) {
    return active_cost_model().select(batch_pages, has_gpu);
}

}  // namespace ozram
