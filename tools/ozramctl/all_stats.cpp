#include "all_stats.hpp"

#include <cerrno>

#include "ozram/error.hpp"

namespace ozramctl {

AllStats gather_all_stats(const std::vector<StatsRecord>& listed,
                          const std::function<StatsRecord(std::optional<std::uint32_t>)>& stats) {
    AllStats all;
    for (const StatsRecord& device : listed) {
        // Without its id, the request below would ask for the total.
        if (!device.dev_id) {
            throw ozram::Error(EPROTO,
                               "malformed answer from the ozram module: a device "
                               "without its number");
        }
        try {
            all.devices.push_back(stats(device.dev_id));
        } catch (const ozram::Error& error) {
            if (error.code().value() != ENODEV) {
                throw;
            }
        }
    }
    all.total = stats(std::nullopt);
    return all;
}

}  // namespace ozramctl
