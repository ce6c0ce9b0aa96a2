// ozramd's settings: defaults, the "key = value" configuration file, and the
// command-line flags that override both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli/usage_error.hpp"
#include "log.hpp"
#include "ozram/page.hpp"

namespace ozram::daemon {

enum class BackendChoice { Auto, Cpu, Scalar, Gpu };

[[nodiscard]] std::string_view to_string(BackendChoice choice);

// How the GPU gets the ring's staged pages: read in place from the staging
// area registered with the CUDA driver (falling back to copies where the
// driver refuses), or always copied into pinned buffers first.
enum class GpuStaging { InPlace, Copy };

[[nodiscard]] std::string_view to_string(GpuStaging staging);

// A bad setting: the message names the key (or the flag), the value and,
// from a file, the line.  A usage error: ozramd exits with EXIT_USAGE.
class ConfigError : public cli::UsageError {
  public:
    using cli::UsageError::UsageError;
};

inline constexpr const char* DEFAULT_CONFIG_PATH = "/etc/ozram/ozramd.conf";

struct Config {
    std::uint32_t batch_size = 256;  // pages per batch at most
    std::uint32_t flush_us = 200;    // how long a partial batch waits to fill
    unsigned threads = 0;            // CPU backend threads, 0: every core
    BackendChoice backend = BackendChoice::Auto;
    GpuStaging gpu_staging = GpuStaging::InPlace;
    // The largest LZ4 page kept, capped by the ring's: by default the ring decides.
    std::size_t huge_threshold = PAGE_SIZE;
    LogLevel log_level = LogLevel::Info;
    // The nice value of every thread; unset is "auto": 19 when the agent
    // compresses on the CPU only, 0 when it has a GPU (see ozramd.md).
    std::optional<int> nice;
    // "key = value" lines for CostModel::parse(), from the cost.* keys.
    std::string cost_overrides;
};

// Parses a configuration text over `base`.  Throws ConfigError naming
// `source` and the line on an unknown key or a bad value.
[[nodiscard]] Config parse_config(std::string_view text, const std::string& source,
                                  Config base = {});

// Reads and parses a file.  A missing file is an error only if `must_exist`
// (the default path may be absent: then the defaults apply).  Throws
// ConfigError.
[[nodiscard]] Config load_config_file(const std::string& path, bool must_exist);

// Applies one setting, as a file line or a command-line flag would.  Throws
// ConfigError naming the setting as `name` (the flag, say; by default the
// key) but not the file.
void apply_setting(Config& config, std::string_view key, std::string_view value,
                   std::string_view name = {});

}  // namespace ozram::daemon
