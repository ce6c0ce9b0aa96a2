// Every device's numbers and the module's total, as the commands that
// show all devices gather them: the list of devices, then one request per
// device, then the total.  The module's lock is not held between the
// requests, so a device may go in between (hot_remove): it is left out,
// as if the list had been taken a moment later.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "stat_fields.hpp"

namespace ozramctl {

struct AllStats {
    std::vector<StatsRecord> devices;
    StatsRecord total;
};

// `listed`: the devices that GET_DEVICES returned; `stats`: GET_STATS of
// one device (throwing ozram::Error ENODEV when there is none such) or,
// given nothing, the total.  Throws ozram::Error EPROTO for a listed
// device without its id, and whatever `stats` throws but ENODEV.
[[nodiscard]] AllStats gather_all_stats(
    const std::vector<StatsRecord>& listed,
    const std::function<StatsRecord(std::optional<std::uint32_t>)>& stats);

}  // namespace ozramctl
