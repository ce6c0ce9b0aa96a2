// The calibrated cost model, measured once per machine and cached in a file.
#pragma once

#include <string>

#include "ozram/cost_model.hpp"

namespace ozram::daemon {

// Reads the model cached at `path`, or calibrates and caches it when the file
// is missing, unreadable, not a model, or `recalibrate` is set (a cache that
// cannot be written is only logged).  `overrides` ("key = value" lines) are
// applied last.  Throws ConfigError when the model with them is invalid
// (a GPU's rates on a host whose model has no GPU, but not all of them);
// the cache is left as it is.
[[nodiscard]] CostModel load_cost_model(const std::string& path, bool recalibrate,
                                        const std::string& overrides);

}  // namespace ozram::daemon
