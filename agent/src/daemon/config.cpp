#include "config.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "cli/integer_option.hpp"
#include "ozram/cost_model.hpp"
#include "ozram/error.hpp"
#include "ozram/page.hpp"

namespace ozram::daemon {
namespace {

std::string_view trim(std::string_view text) {
    constexpr std::string_view BLANKS = " \t\r";
    const std::size_t first = text.find_first_not_of(BLANKS);
    if (first == std::string_view::npos) {
        return {};
    }
    return text.substr(first, text.find_last_not_of(BLANKS) - first + 1);
}

std::uint64_t parse_unsigned(std::string_view name, std::string_view value, std::uint64_t low,
                             std::uint64_t high) {
    try {
        return cli::parse_integer_option(name, value, low, high);
    } catch (const cli::UsageError& error) {
        throw ConfigError(error.what());
    }
}

[[noreturn]] void reject(std::string_view name, std::string_view expected, std::string_view value) {
    throw ConfigError(cli::bad_value(name, expected, value).what());
}

BackendChoice parse_backend(std::string_view name, std::string_view value) {
    if (value == "auto") {
        return BackendChoice::Auto;
    }
    if (value == "cpu") {
        return BackendChoice::Cpu;
    }
    if (value == "scalar") {
        return BackendChoice::Scalar;
    }
    if (value == "gpu") {
        return BackendChoice::Gpu;
    }
    reject(name, "auto, cpu, scalar or gpu", value);
}

GpuStaging parse_gpu_staging(std::string_view name, std::string_view value) {
    if (value == "in-place") {
        return GpuStaging::InPlace;
    }
    if (value == "copy") {
        return GpuStaging::Copy;
    }
    reject(name, "in-place or copy", value);
}

}  // namespace

std::string_view to_string(GpuStaging staging) {
    return staging == GpuStaging::InPlace ? "in-place" : "copy";
}

std::string_view to_string(BackendChoice choice) {
    switch (choice) {
        case BackendChoice::Auto:
            return "auto";
        case BackendChoice::Cpu:
            return "cpu";
        case BackendChoice::Scalar:
            return "scalar";
        case BackendChoice::Gpu:
            return "gpu";
    }
    return "unknown";
}

void apply_setting(Config& config, std::string_view key, std::string_view value,
                   std::string_view name) {
    if (name.empty()) {
        name = key;
    }
    if (key == "batch_size") {
        config.batch_size = static_cast<std::uint32_t>(parse_unsigned(name, value, 1, 65536));
    } else if (key == "flush_us") {
        config.flush_us = static_cast<std::uint32_t>(parse_unsigned(name, value, 0, 1'000'000));
    } else if (key == "threads") {
        config.threads = static_cast<unsigned>(parse_unsigned(name, value, 0, 1024));
    } else if (key == "backend") {
        config.backend = parse_backend(name, value);
    } else if (key == "gpu_staging") {
        config.gpu_staging = parse_gpu_staging(name, value);
    } else if (key == "huge_threshold") {
        config.huge_threshold = parse_unsigned(name, value, 1, PAGE_SIZE);
    } else if (key == "nice") {
        const auto nice = cli::parse_integer<int>(value);
        if (value == "auto") {
            config.nice.reset();
        } else if (nice && *nice >= -20 && *nice <= 19) {
            config.nice = *nice;
        } else {
            reject(name, "an integer in -20..19 or auto", value);
        }
    } else if (key == "log_level") {
        const auto level = parse_log_level(value);
        if (!level) {
            reject(name, "error, warning, info or debug", value);
        }
        config.log_level = *level;
    } else if (key.starts_with("cost.")) {
        const std::string line = std::string(key.substr(5)) + " = " + std::string(value) + "\n";
        // Checked now, so that a typo fails at load time: the key and its
        // value, each line alone.  The defaults have no GPU, whose rates a
        // line of its own cannot all give, so they are given one here; the
        // model the overrides apply to is the calibrated one, with its GPU.
        try {
            (void)CostModel::parse(CostModel::defaults().serialize() +
                                   "gpu.pcie_gbps = 1\ngpu.kernel_gbps = 1\n" + line);
        } catch (const Error& error) {
            throw ConfigError(std::string(key) + ": " + error.what());
        }
        config.cost_overrides += line;
    } else {
        throw ConfigError("unknown key '" + std::string(key) + "'");
    }
}

Config parse_config(std::string_view text, const std::string& source, Config base) {
    std::size_t line_number = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        ++line_number;
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) {
            line = line.substr(0, hash);
        }
        line = trim(line);
        if (line.empty()) {
            continue;
        }
        const std::string where = source + ":" + std::to_string(line_number) + ": ";
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos) {
            throw ConfigError(where + "expected 'key = value'");
        }
        try {
            apply_setting(base, trim(line.substr(0, equals)), trim(line.substr(equals + 1)));
        } catch (const ConfigError& error) {
            throw ConfigError(where + error.what());
        }
    }
    return base;
}

Config load_config_file(const std::string& path, bool must_exist) {
    // A directory opens, and reads as nothing: an empty configuration.
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
        throw ConfigError("cannot read " + path + ": " + std::strerror(EISDIR));
    }
    std::ifstream file(path);
    if (!file) {
        if (!must_exist && errno == ENOENT) {
            return {};
        }
        throw ConfigError("cannot read " + path + ": " + std::strerror(errno != 0 ? errno : EIO));
    }
    std::ostringstream text;
    text << file.rdbuf();
    return parse_config(text.str(), path);
}

}  // namespace ozram::daemon
