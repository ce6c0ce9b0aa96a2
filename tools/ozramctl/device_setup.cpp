#include "device_setup.hpp"

#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <string_view>

#include "ozram/error.hpp"
#include "sysfs_attribute.hpp"

namespace ozramctl {
namespace {

namespace fs = std::filesystem;

void set_disksize(const SysfsRoot& root, std::uint32_t id, std::uint64_t size) {
    const std::string device_name = root.naming.name(id);
    const fs::path file = root.block / device_name / "disksize";
    if (!fs::exists(file)) {
        throw ozram::Error(ENODEV, "no such device: " + device_name);
    }
    switch (int error = write_attribute(file, std::to_string(size))) {
        case 0:
            return;
        case EBUSY:
            throw ozram::Error(EBUSY, device_name + " is already initialized (reset it first)");
        case EACCES:
        case EPERM:
            throw ozram::Error(error, "cannot write " + file.string() + ": " +
                                          std::strerror(error) + " (run as root)");
        default:
            throw ozram::Error(
                error, "cannot set the disk size of " + device_name + ": " + std::strerror(error));
    }
}

// Runs mkswap, from PATH, with its output on our stderr.
void run_mkswap(const std::string& path) {
    pid_t child = ::fork();
    if (child < 0) {
        throw ozram::Error(errno, std::string("cannot fork: ") + std::strerror(errno));
    }
    if (child == 0) {
        ::dup2(STDERR_FILENO, STDOUT_FILENO);  // stdout carries only the device path
        ::execlp("mkswap", "mkswap", path.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            throw ozram::Error(errno, std::string("waitpid: ") + std::strerror(errno));
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        throw ozram::Error(EIO, WIFEXITED(status) && WEXITSTATUS(status) == 127
                                    ? "cannot run mkswap (not in PATH)"
                                    : "mkswap " + path + " failed");
    }
}

void enable_swap(const std::string& path, std::optional<int> priority) {
    int flags = 0;
    if (priority && *priority >= 0) {
        flags = SWAP_FLAG_PREFER | ((*priority << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
    }
    if (::swapon(path.c_str(), flags) != 0) {
        const int error = errno;
        throw ozram::Error(error, "swapon " + path + ": " + std::strerror(error));
    }
}

}  // namespace

std::uint32_t find_free_device(const SysfsRoot& root) {
    if (!fs::exists(root.control())) {
        throw ozram::Error(ENOENT,
                           "ozram module not loaded (" + root.control().string() + " not found)");
    }
    std::map<std::uint32_t, fs::path> devices;  // sorted by number
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(root.block, ignored)) {
        if (auto id = root.naming.number_of(entry.path().filename().string())) {
            devices.emplace(*id, entry.path());
        }
    }
    for (const auto& [id, dir] : devices) {
        if (read_number(dir / "disksize") == 0u) {
            return id;
        }
    }
    // Every device is in use: ask the module for one more.
    auto added = read_number(root.control() / "hot_add");
    if (!added) {
        throw ozram::Error(ENOSPC, "no free ozram device, and " +
                                       (root.control() / "hot_add").string() + " cannot add one");
    }
    return static_cast<std::uint32_t>(*added);
}

std::string setup_device(const SetupRequest& request, const SysfsRoot& root) {
    if (!fs::exists(root.control())) {
        throw ozram::Error(ENOENT,
                           "ozram module not loaded (" + root.control().string() + " not found)");
    }
    const std::uint32_t id = request.device ? *request.device : find_free_device(root);
    set_disksize(root, id, request.size);
    const std::string path = (root.dev / root.naming.name(id)).string();
    if (request.swap) {
        run_mkswap(path);
        enable_swap(path, request.priority);
    }
    return path;
}

}  // namespace ozramctl
