#include "cost_model_cache.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config.hpp"
#include "log.hpp"
#include "ozram/error.hpp"

namespace ozram::daemon {
namespace {

bool read_file(const std::string& path, std::string& text) {
    std::ifstream file(path);
    if (!file) {
        return false;
    }
    std::ostringstream content;
    content << file.rdbuf();
    text = content.str();
    return true;
}

// Writes next to the cache and renames, so a reader never sees half a file.
void write_cache(const std::string& path, const std::string& text) {
    std::error_code error;
    const std::filesystem::path target(path);
    if (target.has_parent_path()) {
        std::filesystem::create_directories(target.parent_path(), error);
    }
    const std::string temporary = path + ".tmp";
    {
        std::ofstream file(temporary, std::ios::trunc);
        file << text;
        if (!file.flush()) {
            log_warning("cannot cache the cost model in " + path + ": write failed");
            std::filesystem::remove(temporary, error);
            return;
        }
    }
    std::filesystem::rename(temporary, path, error);
    if (error) {
        log_warning("cannot cache the cost model in " + path + ": " + error.message());
        std::filesystem::remove(temporary, error);
    }
}

}  // namespace

CostModel load_cost_model(const std::string& path, bool recalibrate, const std::string& overrides) {
    // The cache is judged alone: overrides that make no model are the
    // configuration's fault, and a recalibration would not mend them.
    std::string base;
    if (!recalibrate && read_file(path, base)) {
        try {
            (void)CostModel::parse(base);
            log_info("cost model read from " + path);
        } catch (const Error& error) {
            log_warning(path + " is not a valid cost model (" + error.what() + "); recalibrating");
            base.clear();
        }
    }
    if (base.empty()) {
        log_info("calibrating the cost model");
        base = CostModel::calibrate().serialize();
        write_cache(path, base);
    }
    try {
        return CostModel::parse(base + overrides);
    } catch (const Error& error) {
        throw ConfigError(std::string("the cost.* settings do not make a cost model with ") + path +
                          "'s: " + error.what());
    }
}

}  // namespace ozram::daemon
