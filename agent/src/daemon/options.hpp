// ozramd's command line.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"
#include "metrics_listen.hpp"

namespace ozram::daemon {

struct Options {
    std::string config_path = DEFAULT_CONFIG_PATH;
    bool config_given = false;  // --config: the file must exist
    std::string shm_name;       // --shm: the userspace ring; empty: the device
    std::string device_path;    // --device (default OZRAM_RING_DEV_PATH)
    bool daemonize = false;
    std::string pidfile = "/run/ozramd.pid";
    bool syslog = false;
    std::string cost_model_path = "/var/cache/ozram/cost-model";
    bool recalibrate = false;
    bool require_mlock = false;
    bool wait_for_ring = false;
    // --metrics-listen: serve the agent's metrics there; empty: no endpoint.
    std::optional<ListenAddress> metrics_listen;
    // Settings given as flags, applied over the file at start-up and reload.
    std::vector<std::pair<std::string, std::string>> settings;
    bool help = false;
    bool version = false;
};

// Throws cli::UsageError on a usage error.
[[nodiscard]] Options parse_options(int argc, char** argv);
[[nodiscard]] const char* usage_text();

// The file (if any) with the flags applied over it.  Throws ConfigError.
[[nodiscard]] Config effective_config(const Options& options);

}  // namespace ozram::daemon
