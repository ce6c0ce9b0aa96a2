#include "process_dumper.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "ozram/unique_fd.hpp"

namespace ozram::pagedump {
namespace {

constexpr std::uint64_t PAGEMAP_PRESENT = 1ULL << 63;
constexpr std::uint64_t PAGEMAP_SWAPPED = 1ULL << 62;
// Pages whose pagemap entries are read at once, and the longest run of
// present pages read from /proc/PID/mem with one pread().
constexpr std::size_t PAGEMAP_CHUNK = 512;

std::string read_command(pid_t pid) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string command;
    std::getline(comm, command);
    std::ranges::replace_if(
        command, [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, '?');
    return command;
}

[[noreturn]] void throw_for_process(pid_t pid, int errno_value, const std::string& what) {
    const auto who = "process " + std::to_string(pid);
    if (errno_value == ENOENT || errno_value == ESRCH) {
        // /proc/PID/mem says ESRCH for a process that is there but has no
        // address space: a kernel thread, or a zombie.
        if (::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0) {
            throw DumpError(DumpFailure::Other, errno_value,
                            who + " (" + read_command(pid) +
                                ") has no user memory: a kernel thread or an exited process");
        }
        throw DumpError(DumpFailure::NoSuchProcess, ESRCH, who);
    }
    if (errno_value == EACCES || errno_value == EPERM) {
        throw DumpError(DumpFailure::PermissionDenied, errno_value, who + ": " + what);
    }
    throw DumpError(DumpFailure::Other, errno_value, who + ": " + what);
}

ozram::UniqueFd open_proc_file(pid_t pid, const char* name) {
    const auto path = "/proc/" + std::to_string(pid) + "/" + name;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw_for_process(pid, errno, std::string("cannot open ") + path);
    }
    return ozram::UniqueFd(fd);
}

// The process chose its own name (prctl(PR_SET_NAME)), and it goes to a
// terminal: its control bytes are shown as '?', not sent.
// pread() until `size` bytes or end of file; -1 with errno on error.
ssize_t pread_fully(int fd, void* buffer, std::size_t size, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < size) {
        const auto n = ::pread(fd, static_cast<std::uint8_t*>(buffer) + done, size - done,
                               static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return done > 0 ? static_cast<ssize_t>(done) : -1;
        }
        if (n == 0) {
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    return static_cast<ssize_t>(done);
}

bool is_zero_page(const std::uint8_t* page) {
    static const std::uint8_t zeros[PAGE_SIZE] = {};
    return std::memcmp(page, zeros, PAGE_SIZE) == 0;
}

class RegionReader {
  public:
    RegionReader(int mem_fd, int pagemap_fd, const DumpLimits& limits, PageWriter& writer,
                 ProcessDump& dump)
        : mem_fd_(mem_fd),
          pagemap_fd_(pagemap_fd),
          limits_(limits),
          writer_(writer),
          dump_(dump),
          entries_(PAGEMAP_CHUNK),
          pages_(PAGEMAP_CHUNK * PAGE_SIZE) {}

    // Returns false once max_pages is reached.
    bool read(const Region& region) {
        for (auto addr = region.start; addr < region.end;) {
            const auto count =
                std::min<std::uint64_t>(PAGEMAP_CHUNK, (region.end - addr) / PAGE_SIZE);
            if (count == 0) {
                break;
            }
            const auto bytes = count * sizeof(std::uint64_t);
            const auto got = pread_fully(pagemap_fd_, entries_.data(), bytes,
                                         addr / PAGE_SIZE * sizeof(std::uint64_t));
            if (got != static_cast<ssize_t>(bytes)) {
                ++dump_.regions_skipped;  // unmapped meanwhile, or the process exited
                return true;
            }
            if (!read_present_runs(addr, count, region.kind)) {
                return false;
            }
            addr += count * PAGE_SIZE;
        }
        return true;
    }

  private:
    bool present(std::size_t i) const {
        return (entries_[i] & PAGEMAP_PRESENT) != 0 && (entries_[i] & PAGEMAP_SWAPPED) == 0;
    }

    bool read_present_runs(std::uint64_t addr, std::size_t count, RegionKind kind) {
        for (std::size_t i = 0; i < count;) {
            if (!present(i)) {
                ++i;
                continue;
            }
            auto run_end = i + 1;
            while (run_end < count && present(run_end)) {
                ++run_end;
            }
            if (!read_run(addr + i * PAGE_SIZE, run_end - i, kind)) {
                return false;
            }
            i = run_end;
        }
        return true;
    }

    // Reads `count` present pages from `addr`; on a failed or short read, goes
    // page by page so that one bad page does not lose its neighbours.
    bool read_run(std::uint64_t addr, std::size_t count, RegionKind kind) {
        const auto bytes = count * PAGE_SIZE;
        if (pread_fully(mem_fd_, pages_.data(), bytes, addr) == static_cast<ssize_t>(bytes)) {
            for (std::size_t i = 0; i < count; ++i) {
                if (!take(pages_.data() + i * PAGE_SIZE, kind)) {
                    return false;
                }
            }
            return true;
        }
        for (std::size_t i = 0; i < count; ++i) {
            if (pread_fully(mem_fd_, pages_.data(), PAGE_SIZE, addr + i * PAGE_SIZE) !=
                static_cast<ssize_t>(PAGE_SIZE)) {
                ++dump_.pages_skipped;
                continue;
            }
            if (!take(pages_.data(), kind)) {
                return false;
            }
        }
        return true;
    }

    bool take(const std::uint8_t* page, RegionKind kind) {
        if (!limits_.include_zero && is_zero_page(page)) {
            ++dump_.zero_pages_left_out;
            return true;
        }
        writer_.write_page(std::span<const std::uint8_t, PAGE_SIZE>(page, PAGE_SIZE));
        ++dump_.pages_by_kind[static_cast<std::size_t>(kind)];
        if (limits_.max_pages != 0 && dump_.pages_written() >= limits_.max_pages) {
            dump_.truncated = true;
            return false;
        }
        return true;
    }

    int mem_fd_;
    int pagemap_fd_;
    const DumpLimits& limits_;
    PageWriter& writer_;
    ProcessDump& dump_;
    std::vector<std::uint64_t> entries_;
    std::vector<std::uint8_t> pages_;
};

}  // namespace

std::uint64_t ProcessDump::pages_written() const {
    return std::accumulate(pages_by_kind.begin(), pages_by_kind.end(), std::uint64_t{0});
}

ProcessDump dump_process(pid_t pid, const DumpLimits& limits, PageWriter& writer) {
    if (pid <= 0) {
        throw DumpError(DumpFailure::NoSuchProcess, ESRCH, "process " + std::to_string(pid));
    }
    // /proc/PID/mem is checked against ptrace's access rules when opened.
    const auto mem = open_proc_file(pid, "mem");
    const auto pagemap = open_proc_file(pid, "pagemap");

    ProcessDump dump;
    dump.pid = pid;
    dump.command = read_command(pid);
    std::vector<Region> regions;
    try {
        regions = read_anonymous_regions(pid);
    } catch (const std::system_error& e) {
        throw_for_process(pid, e.code().value(), "cannot read its memory map");
    }
    dump.regions = regions.size();

    RegionReader reader(mem.get(), pagemap.get(), limits, writer, dump);
    for (const auto& region : regions) {
        if (!reader.read(region)) {
            break;
        }
    }
    return dump;
}

}  // namespace ozram::pagedump
