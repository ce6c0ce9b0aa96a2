// The commands that act on every device of a kind when none is named
// (recompress, writeback) list the devices first and then act on each in
// turn.  Nothing holds the module between the two, so a device may be
// hot-removed in between: it is skipped, as if the list had been taken a
// moment later, just as gather_all_stats() leaves it out.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ozramctl {

// Runs `act` on each of `names` in order.  When `act` throws and `exists`
// then says that the device is gone, the device is skipped and the next
// one follows; any other failure ends the loop with what `act` threw.
void for_each_listed_device(const std::vector<std::string>& names,
                            const std::function<bool(const std::string&)>& exists,
                            const std::function<void(const std::string&)>& act);

}  // namespace ozramctl
