// A statistics record as the module would send it, with a distinct value in
// every reported field, for the output tests.
#pragma once

#include <string_view>

#include "ozram_genl.h"
#include "stat_fields.hpp"

namespace ozramctl::testing {

inline void set(StatsRecord& record, std::string_view key, std::uint64_t value) {
    record.values.at(*find_stat_field(key)) = value;
}

// A device's number (OZRAM_STAT_ATTR_*) and the ring's (OZRAM_RING_ATTR_*).
inline void set_stat(StatsRecord& record, int stat_attr, std::uint64_t value) {
    record.values.at(*find_stat_field(Source::nested_stats, stat_attr)) = value;
}
inline void set_ring(StatsRecord& record, int ring_attr, std::uint64_t value) {
    record.values.at(*find_stat_field(Source::nested_ring, ring_attr)) = value;
}

// ozram0, 64 MiB, initialized, agent attached; every other field holds its
// position in stat_fields() plus 100.
inline StatsRecord fake_device_record() {
    StatsRecord record;
    record.dev_id = 0;
    record.dev_name = "ozram0";
    const auto fields = stat_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        record.values[i] = 100 + i;
    }
    set(record, "disksize", 64ull << 20);
    set(record, "initstate", 1);
    set_stat(record, OZRAM_STAT_ATTR_ORIG_DATA, 2736128);
    set(record, "agent_state", 1);
    // Latency: bucket i of operation k holds 10 * k + i intervals.
    for (LatencyOp op : ALL_LATENCY_OPS) {
        LatencyHistogram hist;
        for (std::size_t i = 0; i < 32; ++i) {
            hist.buckets.push_back(10 * static_cast<std::size_t>(op) + i);
            hist.count += hist.buckets.back();
            hist.sum_ns += hist.buckets.back() * (std::uint64_t{3} << i);
        }
        record.latency[static_cast<std::size_t>(op)] = hist;
    }
    return record;
}

}  // namespace ozramctl::testing
