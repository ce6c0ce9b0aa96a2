// ozramctl's JSON output: one compact object per command, keys in snake_case
// as the netlink attributes are named.  The layout is documented in
// ozramctl(8) and stays stable; absent counters are null.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stat_fields.hpp"

namespace ozramctl {

// A JSON string literal, quoted and escaped.
std::string json_string(std::string_view text);

// {"dev_id":0,"dev_name":"ozram0","disksize":...,...,"ring":{...}} for a
// device, {"num_devices":N,...} for the total.
std::string json_stats(const StatsRecord& record);

// {"devices":[...],"total":{...}}: ozramctl stats without a device.
std::string json_stats_all(const std::vector<StatsRecord>& devices, const StatsRecord& total);

// {"devices":[{"dev_id":0,"dev_name":"ozram0","disksize":0,"initstate":0}]}
std::string json_devices(const std::vector<StatsRecord>& devices);

// The agent view: agent, backend_stat and ring fields of the total.
std::string json_agent(const StatsRecord& total);

}  // namespace ozramctl
