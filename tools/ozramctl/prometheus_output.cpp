#include "prometheus_output.hpp"

#include <algorithm>

#include "metrics/exposition.hpp"

namespace ozramctl {
namespace {

using ozram::metrics::Exposition;
using ozram::metrics::Labels;

// The agent and the ring are one for the whole module.
bool per_device(Section section) {
    return section != Section::agent && section != Section::ring;
}

ozram::metrics::Type metric_type(Kind kind) {
    return kind == Kind::counter ? ozram::metrics::Type::counter : ozram::metrics::Type::gauge;
}

Labels labels_of(const StatsRecord* device) {
    if (device == nullptr) {
        return {};
    }
    return {{"device", device->dev_name}};
}

// The module's log2 histograms of ns as Prometheus histograms of seconds.
// Bucket i counts the whole ns in [2^i, 2^(i+1)), and a Prometheus bucket
// counts the observations at most its "le": so its "le" is its largest
// value, 2^(i+1) - 1 ns, and an interval of exactly 2^(i+1) ns is counted
// in the next one, as the module counts it.  The open last bucket is "+Inf".
void add_histogram(Exposition& out, const Labels& labels, const LatencyHistogram& hist) {
    std::vector<ozram::metrics::Bucket> buckets;
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i + 1 < hist.buckets.size(); ++i) {
        cumulative += hist.buckets[i];
        buckets.push_back({(LatencyHistogram::upper_ns(i) - 1) / 1e9, cumulative});
    }
    cumulative += hist.buckets.empty() ? 0 : hist.buckets.back();
    out.histogram(labels, buckets, static_cast<double>(hist.sum_ns) / 1e9, cumulative);
}

void add_latency(Exposition& out, const std::vector<StatsRecord>& devices) {
    auto any = [&](LatencyOp op) {
        return std::ranges::any_of(devices, [op](const StatsRecord& device) {
            return device.latency[static_cast<std::size_t>(op)].has_value();
        });
    };
    if (any(LatencyOp::write) || any(LatencyOp::read)) {
        out.family("ozram_io_latency_seconds", ozram::metrics::Type::histogram,
                   "Time to write or read one page, by operation.");
        for (LatencyOp op : {LatencyOp::write, LatencyOp::read}) {
            for (const StatsRecord& device : devices) {
                if (const auto& hist = device.latency[static_cast<std::size_t>(op)]) {
                    add_histogram(
                        out,
                        {{"device", device.dev_name}, {"op", std::string(latency_op_name(op))}},
                        *hist);
                }
            }
        }
    }
    if (any(LatencyOp::ring)) {
        out.family("ozram_ring_round_trip_seconds", ozram::metrics::Type::histogram,
                   "Time from a page staged for the agent to its result stored.");
        for (const StatsRecord& device : devices) {
            if (const auto& hist = device.latency[static_cast<std::size_t>(LatencyOp::ring)]) {
                add_histogram(out, {{"device", device.dev_name}}, *hist);
            }
        }
    }
}

}  // namespace

std::string prometheus_name(const StatField& field) {
    if (field.metric.name.empty()) {
        return {};
    }
    return "ozram_" + std::string(field.metric.name);
}

std::string prometheus_stats(const std::vector<StatsRecord>& devices,
                             const StatsRecord& module_record) {
    Exposition out;
    const auto fields = stat_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const StatField& field = fields[i];
        const std::string name = prometheus_name(field);
        if (name.empty()) {
            continue;
        }
        std::vector<const StatsRecord*> sources;
        if (per_device(field.section)) {
            for (const StatsRecord& device : devices) {
                sources.push_back(&device);
            }
        } else {
            sources.push_back(&module_record);
        }
        const bool any = std::ranges::any_of(
            sources, [i](const StatsRecord* record) { return record->values[i].has_value(); });
        if (!any) {
            continue;
        }
        out.family(name, metric_type(field.metric.kind), field.metric.help);
        for (const StatsRecord* record : sources) {
            if (record->values[i]) {
                out.count(labels_of(per_device(field.section) ? record : nullptr),
                          *record->values[i]);
            }
        }
    }
    add_latency(out, devices);
    return out.text();
}

}  // namespace ozramctl
