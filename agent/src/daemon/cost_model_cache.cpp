#include "cost_model_cache.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

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
    std::string cached;
    if (!recalibrate && read_file(path, cached)) {
        try {
            const CostModel model = CostModel::parse(cached + overrides);
            log_info("cost model read from " + path);
            return model;
        } catch (const Error& error) {
            log_warning(path + " is not a valid cost model (" + error.what() + "); recalibrating");
        }
    }
    log_info("calibrating the cost model");
    const CostModel measured = CostModel::calibrate();
    const std::string text = measured.serialize();
    write_cache(path, text);
    return overrides.empty() ? measured : CostModel::parse(text + overrides);
}

}  // namespace ozram::daemon
