#include "watch_view.hpp"

#include <cmath>
#include <cstdio>

#include "ozram_genl.h"
#include "size_format.hpp"

namespace ozramctl {
namespace {

constexpr const char* NONE = "-";

// The record of the same device (or the total) in the previous sample.
const StatsRecord* matching(const WatchSample* previous, const StatsRecord& record, bool total) {
    if (previous == nullptr) {
        return nullptr;
    }
    if (total) {
        return &previous->total;
    }
    for (const StatsRecord& candidate : previous->devices) {
        if (candidate.dev_name == record.dev_name) {
            return &candidate;
        }
    }
    return nullptr;
}

std::string size_of(const StatsRecord& record, int stat_attr, const TextOptions& options) {
    const auto value = record.stat(stat_attr);
    if (!value) {
        return "n/a";
    }
    return options.bytes ? std::to_string(*value) : human_size(*value);
}

std::string ratio_of(const StatsRecord& record) {
    const auto data = record.stat(OZRAM_STAT_ATTR_ORIG_DATA);
    const auto compressed = record.stat(OZRAM_STAT_ATTR_COMPR_DATA);
    if (!data || !compressed || *compressed == 0) {
        return NONE;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", static_cast<double>(*data) / *compressed);
    return text;
}

std::string p99_of(const StatsRecord& record, const StatsRecord* before, LatencyOp op) {
    const auto index = static_cast<std::size_t>(op);
    if (before == nullptr || !record.latency[index] || !before->latency[index]) {
        return NONE;
    }
    const auto ns = interval_quantile_ns(*before->latency[index], *record.latency[index], 0.99);
    return ns ? human_duration(*ns) : NONE;
}

// The change per second of a value, @index of stat_fields(); signed for a
// gauge (stored pages go down when pages are freed), plain for a counter.
std::string rate_of(const StatsRecord& record, const StatsRecord* before,
                    std::optional<std::size_t> index, double seconds, bool gauge) {
    if (before == nullptr || seconds <= 0) {
        return NONE;
    }
    const auto now = index ? record.values[*index] : std::nullopt;
    const auto then = index ? before->values[*index] : std::nullopt;
    if (!now || !then) {
        return "n/a";
    }
    if (!gauge && *now < *then) {
        return NONE;  // reset in between
    }
    const double rate = (static_cast<double>(*now) - static_cast<double>(*then)) / seconds;
    char text[32];
    std::snprintf(text, sizeof text, gauge ? "%+.0f" : "%.0f", rate);
    return std::string(text) == "-0" ? "+0" : text;
}

}  // namespace

std::optional<double> interval_quantile_ns(const LatencyHistogram& before,
                                           const LatencyHistogram& after, double q) {
    LatencyHistogram interval;
    const bool reset = after.count < before.count || after.buckets.size() != before.buckets.size();
    for (std::size_t i = 0; i < after.buckets.size(); ++i) {
        const std::uint64_t then = reset ? 0 : before.buckets[i];
        const std::uint64_t n = after.buckets[i] >= then ? after.buckets[i] - then : 0;
        interval.buckets.push_back(n);
        interval.count += n;
    }
    return interval.quantile_ns(q);
}

std::string render_watch(const WatchSample& current, const WatchSample* previous, double seconds,
                         const TextOptions& options) {
    char interval[64];
    std::snprintf(interval, sizeof interval, "%.1f s", seconds);
    std::string out = std::string("ozram: rates and p99 over the last ") +
                      (previous ? interval : "interval: from the next sample on") + '\n';

    std::vector<const StatsRecord*> rows;
    for (const StatsRecord& device : current.devices) {
        rows.push_back(&device);
    }
    if (current.show_total) {
        rows.push_back(&current.total);
    }
    auto name_of = [&](const StatsRecord* record) {
        return record == &current.total ? std::string("total") : record->dev_name;
    };
    auto before_of = [&](const StatsRecord* record) {
        return matching(previous, *record, record == &current.total);
    };

    std::vector<std::vector<std::string>> memory = {
        {"DEVICE", "RATIO", "DATA", "COMPR", "MEM USED", "P99 WRITE", "P99 READ", "P99 RING"}};
    std::vector<std::vector<std::string>> pages = {
        {"STORED PAGES/S", "KERNEL", "AGENT_CPU", "AGENT_GPU", "HUGE", "SAME"}};
    for (const StatsRecord* record : rows) {
        const StatsRecord* before = before_of(record);
        memory.push_back({name_of(record), ratio_of(*record),
                          size_of(*record, OZRAM_STAT_ATTR_ORIG_DATA, options),
                          size_of(*record, OZRAM_STAT_ATTR_COMPR_DATA, options),
                          size_of(*record, OZRAM_STAT_ATTR_MEM_USED, options),
                          p99_of(*record, before, LatencyOp::write),
                          p99_of(*record, before, LatencyOp::read),
                          p99_of(*record, before, LatencyOp::ring)});
        auto stored = [&](int stat_attr) {
            return rate_of(*record, before, find_stat_field(Source::nested_stats, stat_attr),
                           seconds, true);
        };
        pages.push_back({name_of(record), stored(OZRAM_STAT_ATTR_KERNEL_PAGES),
                         stored(OZRAM_STAT_ATTR_AGENT_CPU_PAGES),
                         stored(OZRAM_STAT_ATTR_AGENT_GPU_PAGES),
                         stored(OZRAM_STAT_ATTR_HUGE_PAGES), stored(OZRAM_STAT_ATTR_SAME_PAGES)});
    }
    out += render_table(memory);
    if (current.latency_stats_off) {
        out += std::string("P99: ") + LATENCY_STATS_OFF + '\n';
    }
    out += render_table(pages);

    // The ring is the module's: from the total.
    const StatsRecord& total = current.total;
    const StatsRecord* before = previous ? &previous->total : nullptr;
    const auto state = total.value("agent_state");
    const auto occupancy = total.ring_stat(OZRAM_RING_ATTR_OCCUPANCY);
    auto per_second = [&](int ring_attr) {
        return rate_of(total, before, find_stat_field(Source::nested_ring, ring_attr), seconds,
                       false);
    };
    out += render_table(
        {{"AGENT", "RING SLOTS USED", "STAGED/S", "COMPLETED/S", "INLINE/S"},
         {state ? (*state == OZRAM_AGENT_ATTACHED ? "attached" : "detached") : "n/a",
          occupancy ? std::to_string(*occupancy) : "n/a", per_second(OZRAM_RING_ATTR_SUBMITTED),
          per_second(OZRAM_RING_ATTR_COMPLETED), per_second(OZRAM_RING_ATTR_INLINE_FALLBACKS)}});
    return out;
}

}  // namespace ozramctl
