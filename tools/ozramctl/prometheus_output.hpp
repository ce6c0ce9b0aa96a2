// ozramctl's Prometheus output: the statistics in the text exposition
// format 0.0.4, for a scrape or node_exporter's textfile collector.  Metric
// names are "ozram_" + the row's export name of stat_fields(), with a
// "device" label on what belongs to a device; the agent and the ring serve
// every device and are exported once, without it.
#pragma once

#include <string>
#include <vector>

#include "stat_fields.hpp"

namespace ozramctl {

// The full metric name of a field: "ozram_mem_used_bytes",
// "ozram_failed_reads_total"; empty for a field that is not exported.
std::string prometheus_name(const StatField& field);

// `devices` give the per-device metrics, `module_record` (the total, or the
// one device asked for) the agent's and the ring's.
std::string prometheus_stats(const std::vector<StatsRecord>& devices,
                             const StatsRecord& module_record);

}  // namespace ozramctl
