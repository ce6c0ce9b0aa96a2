#include "agent_metrics.hpp"

#include <bit>
#include <vector>

#include "metrics/exposition.hpp"

namespace ozram::daemon {
namespace {

using metrics::Exposition;
using metrics::Type;

constexpr double NS_PER_SECOND = 1e9;

constexpr std::array<Backend, AgentMetrics::BACKENDS> ALL_BACKENDS = {Backend::Gpu, Backend::Cpu,
                                                                      Backend::Scalar};

std::size_t index_of(Backend backend) {
    return static_cast<std::size_t>(backend);
}

std::uint64_t load(const std::atomic<std::uint64_t>& counter) {
    return counter.load(std::memory_order_relaxed);
}

metrics::Labels backend_label(Backend backend) {
    return {{"backend", std::string(to_string(backend))}};
}

}  // namespace

void AgentMetrics::record_batch(Backend backend, std::size_t pages, const BatchResult& result,
                                bool ok, bool gpu_fell_back) {
    const std::size_t b = index_of(backend);
    add(batches_[b], 1);
    if (!ok) {
        add(failed_batches_[b], 1);
    }
    // bit_width(pages - 1) is the smallest i with pages <= 2^i.
    const std::size_t bucket =
        pages == 0 ? 0 : std::min<std::size_t>(std::bit_width(pages - 1), BATCH_BUCKETS);
    add(batch_sizes_[bucket], 1);
    add(batch_pages_sum_, pages);
    if (!ok) {
        return;
    }
    add(compress_ns_[b], result.total_time_ns);
    if (backend == Backend::Gpu) {
        add(gpu_h2d_ns_, result.h2d_time_ns);
        add(gpu_kernel_ns_, result.kernel_time_ns);
        add(gpu_d2h_ns_, result.d2h_time_ns);
        if (gpu_fell_back) {
            add(gpu_fallback_batches_, 1);
        }
    }
}

void AgentMetrics::record_completed(Backend backend, std::uint64_t pages, std::uint64_t bytes) {
    add(pages_[index_of(backend)], pages);
    add(bytes_out_[index_of(backend)], bytes);
}

void AgentMetrics::record_failed_pages(std::uint64_t count) {
    add(failed_pages_, count);
}

void AgentMetrics::record_doorbell_cpu(std::chrono::nanoseconds cpu) {
    add(doorbell_cpu_ns_, static_cast<std::uint64_t>(cpu.count()));
}

std::uint64_t AgentMetrics::batches(Backend backend) const {
    return load(batches_[index_of(backend)]);
}

std::uint64_t AgentMetrics::batches() const {
    std::uint64_t sum = 0;
    for (Backend backend : ALL_BACKENDS) {
        sum += batches(backend);
    }
    return sum;
}

std::uint64_t AgentMetrics::pages(Backend backend) const {
    return load(pages_[index_of(backend)]);
}

std::uint64_t AgentMetrics::pages() const {
    std::uint64_t sum = 0;
    for (Backend backend : ALL_BACKENDS) {
        sum += pages(backend);
    }
    return sum;
}

std::uint64_t AgentMetrics::output_bytes() const {
    std::uint64_t sum = 0;
    for (Backend backend : ALL_BACKENDS) {
        sum += load(bytes_out_[index_of(backend)]);
    }
    return sum;
}

std::uint64_t AgentMetrics::failed_pages() const {
    return load(failed_pages_);
}

std::uint64_t AgentMetrics::rejected_submissions() const {
    return load(rejected_submissions_);
}

std::uint64_t AgentMetrics::dropped_completions() const {
    return load(dropped_completions_);
}

std::chrono::nanoseconds AgentMetrics::doorbell_cpu() const {
    return std::chrono::nanoseconds(load(doorbell_cpu_ns_));
}

void AgentMetrics::record_rejected_submissions(std::uint64_t count) {
    add(rejected_submissions_, count);
}

void AgentMetrics::record_dropped_completions(std::uint64_t count) {
    add(dropped_completions_, count);
}

void AgentMetrics::record_cost_model_choice(Backend backend) {
    add(cost_model_choices_[index_of(backend)], 1);
}

std::string AgentMetrics::render() const {
    Exposition out;
    auto per_backend = [&](std::string_view name, std::string_view help, const PerBackend& values,
                           double scale = 1) {
        out.family(name, Type::counter, help);
        for (Backend backend : ALL_BACKENDS) {
            const std::uint64_t value = load(values[index_of(backend)]);
            if (scale == 1) {
                out.count(backend_label(backend), value);
            } else {
                out.value(backend_label(backend), static_cast<double>(value) / scale);
            }
        }
    };
    auto single = [&](std::string_view name, std::string_view help, const Counter& value) {
        out.family(name, Type::counter, help);
        out.count({}, load(value));
    };
    per_backend("ozram_agent_batches_total", "Batches compressed, by backend.", batches_);
    per_backend("ozram_agent_failed_batches_total",
                "Batches whose compression failed (the kernel compressed their pages).",
                failed_batches_);
    per_backend("ozram_agent_pages_total", "Pages completed with a result, by backend.", pages_);
    per_backend("ozram_agent_output_bytes_total",
                "Bytes of the results written to the ring, by backend.", bytes_out_);
    per_backend("ozram_agent_cost_model_choices_total",
                "Backends the cost model chose for a batch (backend auto).", cost_model_choices_);
    per_backend("ozram_agent_compress_seconds_total", "Time spent compressing batches, by backend.",
                compress_ns_, NS_PER_SECOND);

    out.family("ozram_agent_gpu_stage_seconds_total", Type::counter,
               "Time the GPU backend spent in each stage of its batches.");
    const std::array<std::pair<std::string_view, const Counter*>, 3> stages = {
        std::pair{"h2d", &gpu_h2d_ns_}, {"kernel", &gpu_kernel_ns_}, {"d2h", &gpu_d2h_ns_}};
    for (const auto& [stage, counter] : stages) {
        out.value({{"stage", std::string(stage)}},
                  static_cast<double>(load(*counter)) / NS_PER_SECOND);
    }
    single("ozram_agent_gpu_fallback_batches_total",
           "GPU batches of which a part was compressed on the CPU after a GPU failure.",
           gpu_fallback_batches_);
    single("ozram_agent_failed_pages_total",
           "Pages given back to the producer with an error status (it compressed them).",
           failed_pages_);
    out.family("ozram_agent_doorbell_cpu_seconds_total", Type::counter,
               "CPU time spent in the producer's doorbell (for the kernel: checking and "
               "storing results).");
    out.value({}, static_cast<double>(load(doorbell_cpu_ns_)) / NS_PER_SECOND);
    single("ozram_agent_rejected_submissions_total",
           "Ring submissions the agent could not use: those that named no valid slot "
           "(skipped) and those it does not understand (given back with EINVAL).",
           rejected_submissions_);
    single("ozram_agent_dropped_completions_total",
           "Completions dropped because the kernel made no room for them.", dropped_completions_);

    out.family("ozram_agent_batch_pages", Type::histogram, "Pages per batch.");
    std::vector<metrics::Bucket> buckets;
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < BATCH_BUCKETS; ++i) {
        cumulative += load(batch_sizes_[i]);
        buckets.push_back({static_cast<double>(std::uint64_t{1} << i), cumulative});
    }
    cumulative += load(batch_sizes_[BATCH_BUCKETS]);
    out.histogram({}, buckets, static_cast<double>(load(batch_pages_sum_)), cumulative);
    return out.text();
}

}  // namespace ozram::daemon
