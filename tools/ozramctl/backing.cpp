#include "backing.hpp"

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>
#include <vector>

#include "ozram/error.hpp"
#include "size_format.hpp"
#include "sysfs_attribute.hpp"
#include "text_output.hpp"

namespace ozramctl {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_write(const fs::path& file, std::string_view value, int error) {
    std::string message = "cannot write '" + std::string(value) + "' to " + file.string() + ": " +
                          std::strerror(error);
    if (error == EACCES || error == EPERM) {
        message += " (run as root)";
    }
    throw ozram::Error(error, message);
}

void set_attribute(const fs::path& file, std::string_view value) {
    if (const int error = write_attribute(file, value)) {
        cannot_write(file, value, error);
    }
}

BackingStat read_bd_stat_or_throw(const fs::path& dir) {
    auto stat = read_bd_stat(dir);
    if (!stat) {
        throw ozram::Error(EIO, "cannot read " + (dir / "bd_stat").string());
    }
    return *stat;
}

std::uint64_t minus(std::uint64_t after, std::uint64_t before) {
    return after > before ? after - before : 0;  // a reset in between: nothing
}

}  // namespace

BackingStat& BackingStat::operator+=(const BackingStat& other) {
    count += other.count;
    reads += other.reads;
    writes += other.writes;
    return *this;
}

std::optional<BackingStat> parse_bd_stat(std::string_view text) {
    std::istringstream in{std::string(text)};
    BackingStat stat;
    if (!(in >> stat.count >> stat.reads >> stat.writes)) {
        return std::nullopt;
    }
    return stat;
}

std::optional<BackingStat> read_bd_stat(const fs::path& dir) {
    const auto line = read_first_line(dir / "bd_stat");
    return line ? parse_bd_stat(*line) : std::nullopt;
}

bool is_writeback_type(std::string_view type) {
    return type == "idle" || type == "huge" || type == "huge_idle" || type == "incompressible";
}

std::uint64_t writeback_limit_pages(std::uint64_t bytes) {
    return bytes / WRITEBACK_UNIT;
}

WritebackResult run_writeback(const fs::path& dir, std::string_view name,
                              const WritebackRequest& request) {
    if (!fs::exists(dir)) {
        throw ozram::Error(ENODEV, "no such device: " + std::string(name));
    }
    if (!fs::exists(dir / "writeback")) {
        throw ozram::Error(EOPNOTSUPP, std::string(name) +
                                           ": no writeback (the module has no writeback "
                                           "file)");
    }
    // zram shows "none" until a backing device is set; its writeback then
    // answers ENODEV.  Said here in words, before anything is changed.
    if (!has_backing_device(dir)) {
        throw ozram::Error(ENODEV, std::string(name) +
                                       ": no backing device (write a block device to "
                                       "backing_dev before disksize)");
    }
    if (request.compressed) {
        if (!fs::exists(dir / "compressed_writeback")) {
            throw ozram::Error(EOPNOTSUPP, std::string(name) +
                                               ": no compressed_writeback (zram 6.1 writes "
                                               "each page to a block of its own)");
        }
        set_attribute(dir / "compressed_writeback", *request.compressed ? "1" : "0");
    }
    if (request.limit_bytes) {
        // zram's order: the budget, then the switch that makes it count.
        set_attribute(dir / "writeback_limit",
                      std::to_string(writeback_limit_pages(*request.limit_bytes)));
        set_attribute(dir / "writeback_limit_enable", "1");
    }
    WritebackResult result;
    result.before = read_bd_stat_or_throw(dir);
    const std::string type = request.type.value_or("idle");
    result.error = write_attribute(dir / "writeback", type);
    if (result.error == EACCES || result.error == EPERM) {
        cannot_write(dir / "writeback", type, result.error);
    }
    result.after = read_bd_stat_or_throw(dir);
    if (read_number(dir / "writeback_limit_enable").value_or(0) != 0) {
        result.limit_left = read_number(dir / "writeback_limit");
    }
    return result;
}

bool has_backing_device(const fs::path& dir) {
    const auto backing = read_first_line(dir / "backing_dev");
    return backing && !backing->empty() && *backing != "none";
}

std::vector<std::string> initialized_devices(const fs::path& block, const DeviceNaming& naming) {
    std::map<std::uint32_t, std::string> devices;  // sorted by number
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(block, ignored)) {
        const std::string name = entry.path().filename().string();
        const auto number = naming.number_of(name);
        if (number && read_number(entry.path() / "disksize").value_or(0) != 0) {
            devices.emplace(*number, name);
        }
    }
    std::vector<std::string> names;
    for (auto& [id, name] : devices) {
        names.push_back(std::move(name));
    }
    return names;
}

std::string writeback_error_message(std::string_view name, std::string_view type, int error,
                                    bool limit_used_up) {
    const std::string what = std::string(name) + ": writeback '" + std::string(type) + "'";
    switch (error) {
        case ENODEV:
            return what +
                   " refused: no backing device (write a block device to backing_dev "
                   "before disksize)";
        case EINVAL:
            return what +
                   " refused: the device is not initialized, or the module does not "
                   "know this type (incompressible needs zram 6.2's ABI)";
        case EIO:
            if (limit_used_up) {
                return what +
                       " stopped: writeback_limit is used up (raise it with --limit, "
                       "or write 0 to writeback_limit_enable)";
            }
            return what +
                   " failed: the backing device failed a write (the pages not "
                   "written back stay in memory)";
        case ENOSPC:
            return what + " stopped: the backing device is full";
        case EBUSY:
            return what +
                   " refused: the device is busy (another writeback or a "
                   "recompression is running)";
        case ENOMEM:
            return what + " failed: out of memory";
        default:
            return what + " failed: " + std::strerror(error);
    }
}

std::string writeback_summary(std::string_view name, const WritebackResult& result, bool bytes) {
    // bd_writes counts the pages written back, in 4 KiB units; bd_count the
    // blocks they take: one per page in zram, fewer where compressed pages
    // share blocks (ozram's compressed_writeback).
    const std::uint64_t pages = minus(result.after.writes, result.before.writes);
    const std::uint64_t size = pages * WRITEBACK_UNIT;
    std::string out = std::string(name) + ": " + std::to_string(pages) +
                      (pages == 1 ? " page" : " pages") + " of 4 KiB written back (" +
                      (bytes ? std::to_string(size) + " bytes" : human_size(size)) + ")\n";
    auto row = [](std::string label, const BackingStat& stat) {
        return std::vector<std::string>{std::move(label), std::to_string(stat.count),
                                        std::to_string(stat.reads), std::to_string(stat.writes)};
    };
    out += render_table({{"    bd_stat (4 KiB units):", "bd_count", "bd_reads", "bd_writes"},
                         row("    before", result.before),
                         row("    after", result.after)});
    if (result.limit_left) {
        out +=
            "    writeback_limit: " + std::to_string(*result.limit_left) + " pages of 4 KiB left\n";
    }
    return out;
}

}  // namespace ozramctl
