// ozram-pagedump: writes the resident anonymous pages of running processes to
// a corpus file for ozram-bench.  See Documentation/tools.md.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/usage.hpp"
#include "cli/usage_error.hpp"
#include "page_writer.hpp"
#include "pagedump_options.hpp"
#include "process_dumper.hpp"

namespace {

using namespace ozram::pagedump;

constexpr int EXIT_IO_ERROR = 1;
constexpr int EXIT_NO_SUCH_PROCESS = 3;
constexpr int EXIT_PERMISSION = 4;

void print_error(const std::system_error& e) {
    const int code = e.code().value();
    const char* name = strerrorname_np(code);
    std::cerr << "ozram-pagedump: " << e.what() << " (" << (name ? name : "error") << ")\n";
}

int exit_code_for(DumpFailure failure) {
    switch (failure) {
        case DumpFailure::NoSuchProcess:
            return EXIT_NO_SUCH_PROCESS;
        case DumpFailure::PermissionDenied:
            return EXIT_PERMISSION;
        case DumpFailure::Other:
            break;
    }
    return EXIT_IO_ERROR;
}

void print_summary(const std::vector<ProcessDump>& dumps, const std::string& output) {
    std::uint64_t total = 0;
    std::printf("%8s  %-16s %9s %9s %9s %9s %13s %15s\n", "pid", "command", "pages", "heap",
                "stack", "anon", "zero-omitted", "skipped pg/rg");
    for (const auto& d : dumps) {
        const auto kind = [&](RegionKind k) {
            return static_cast<unsigned long long>(d.pages_by_kind[static_cast<std::size_t>(k)]);
        };
        std::printf("%8d  %-16s %9llu %9llu %9llu %9llu %13llu %9llu/%llu%s\n",
                    static_cast<int>(d.pid), d.command.c_str(),
                    static_cast<unsigned long long>(d.pages_written()), kind(RegionKind::Heap),
                    kind(RegionKind::Stack), kind(RegionKind::Anonymous),
                    static_cast<unsigned long long>(d.zero_pages_left_out),
                    static_cast<unsigned long long>(d.pages_skipped),
                    static_cast<unsigned long long>(d.regions_skipped),
                    d.truncated ? "  (stopped at --max-pages)" : "");
        total += d.pages_written();
    }
    std::printf("wrote %llu pages (%.1f MiB) to %s\n", static_cast<unsigned long long>(total),
                static_cast<double>(total * ozram::PAGE_SIZE) / (1024.0 * 1024.0), output.c_str());
}

int dump_all(const Options& options, PageWriter& writer) {
    std::vector<ProcessDump> dumps;
    for (const auto pid : options.pids) {
        DumpLimits limits{.include_zero = options.include_zero};
        if (options.max_pages != 0) {
            if (writer.pages_written() >= options.max_pages) {
                break;
            }
            limits.max_pages = options.max_pages - writer.pages_written();
        }
        dumps.push_back(dump_process(pid, limits, writer));
    }
    if (writer.pages_written() == 0) {
        std::cerr << "ozram-pagedump: no pages dumped: the processes have no resident "
                     "anonymous memory"
                  << (options.include_zero ? "" : " other than zero pages") << "\n";
        return EXIT_IO_ERROR;
    }
    writer.close();
    print_summary(dumps, options.output);
    return 0;
}

int run(const Options& options) {
    // /proc/PID/pagemap has an entry per page of the kernel's size; a
    // corpus is of ozram's 4 KiB pages, and the two are read as one.
    const long kernel_page = ::sysconf(_SC_PAGESIZE);
    if (kernel_page != static_cast<long>(ozram::PAGE_SIZE)) {
        std::cerr << "ozram-pagedump: this kernel's pages are " << kernel_page
                  << " bytes; the tool reads pages of " << ozram::PAGE_SIZE << "\n";
        return EXIT_IO_ERROR;
    }
    // A writer that is not closed leaves nothing behind: an incomplete
    // corpus must not be used.
    PageWriter writer(options.output);
    return dump_all(options, writer);
}

int run(int argc, char** argv) {
    Options options;
    try {
        options = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const ozram::cli::UsageError& e) {
        return ozram::cli::usage_error("ozram-pagedump", e.what());
    }
    if (options.help) {
        return ozram::cli::print_usage(usage_text());
    }
    try {
        return run(options);
    } catch (const DumpError& e) {
        print_error(e);
        if (e.failure() == DumpFailure::PermissionDenied) {
            std::cerr << "ozram-pagedump: reading another process's memory needs ptrace access: "
                         "run as root (or with CAP_SYS_PTRACE), or as the same user with "
                         "kernel.yama.ptrace_scope=0\n";
        }
        return exit_code_for(e.failure());
    } catch (const std::system_error& e) {
        print_error(e);
        return EXIT_IO_ERROR;
    }
}

}  // namespace

int main(int argc, char** argv) {
    return ozram::cli::finish_stdout("ozram-pagedump", run(argc, argv));
}
