// The calibrated cost model, measured once per machine and cached in a file.
#pragma once

#include <string>

#include "ozram/cost_model.hpp"

namespace ozram::daemon {

// Reads the model cached at `path`, or calibrates and caches it when the file
// is missing, unreadable or `recalibrate` is set (a cache that cannot be
// written is only logged).  `overrides` ("key = value" lines) are applied
// last.  Throws Error(EINVAL) when the overrides are invalid.
[[nodiscard]] CostModel load_cost_model(const std::string& path, bool recalibrate,
                                        const std::string& overrides);

}  // namespace ozram::daemon
