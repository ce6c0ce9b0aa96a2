// "ozramctl stats --watch": a compact live view for an 80-column terminal.
// Per device the compression ratio, the memory, the p99 latencies and the
// change of stored pages per backend per second, then the module's ring.
// Rates and quantiles are over the interval between two samples.
#pragma once

#include <string>
#include <vector>

#include "stat_fields.hpp"
#include "text_output.hpp"

namespace ozramctl {

// One sample: the devices shown and the module's total (which carries the
// agent and the ring).
struct WatchSample {
    std::vector<StatsRecord> devices;
    StatsRecord total;
    bool show_total = true;  // false when one device was asked for
    // The module's latency_stats parameter is off: no p99 can be shown.
    bool latency_stats_off = false;
};

// What ozramctl says where it shows no latency because the module does not
// time I/O.
inline constexpr const char* LATENCY_STATS_OFF =
    "the module parameter latency_stats is off, so nothing is timed";

// One frame.  `previous` is the sample `seconds` before (nullptr for the
// first frame, whose rates and quantiles are "-").
std::string render_watch(const WatchSample& current, const WatchSample* previous, double seconds,
                         const TextOptions& options);

// The p99 of the intervals counted between two snapshots of one histogram
// (bucket by bucket); empty when none was counted.  A histogram that went
// back (the counters were reset) counts from zero.
std::optional<double> interval_quantile_ns(const LatencyHistogram& before,
                                           const LatencyHistogram& after, double q);

}  // namespace ozramctl
