#include "pagedump_options.hpp"

#include <algorithm>
#include <string>

#include "cli/arguments.hpp"
#include "cli/integer_option.hpp"

namespace ozram::pagedump {

std::string usage_text() {
    return R"(Usage: ozram-pagedump PID... -o FILE [--max-pages N] [--include-zero]

Snapshots the resident anonymous memory of running processes (their heap,
stacks and private anonymous mappings) into FILE, a plain concatenation of
4096-byte pages: the corpus ozram-bench reads.  Only pages present in RAM are
read (per /proc/PID/pagemap); swapped-out and never-touched pages are not.

  -o, --output FILE   where to write the pages: a new file, readable by its
                      owner only, put at FILE once the dump is done
  --max-pages N       stop after N pages in all
  --include-zero      also write all-zero pages (left out by default, since
                      zram stores them without compressing)
  -h, --help          show this help

Reading another process's memory needs ptrace access: root, CAP_SYS_PTRACE, or
the same user with kernel.yama.ptrace_scope=0.

Exit status: 0 success, 1 I/O error or nothing dumped, 2 usage error,
3 no such process, 4 permission denied.
)";
}

Options parse_options(const std::vector<std::string>& args) {
    Options options;
    cli::Arguments arguments(args);
    while (arguments.next()) {
        const std::string_view name = arguments.name();
        if (!arguments.is_option()) {
            // A process named twice is dumped once: its pages twice over
            // would weigh twice in every figure made from the corpus.
            const auto pid = cli::parse_integer_option<pid_t>("PID", name, 1);
            if (std::ranges::find(options.pids, pid) == options.pids.end()) {
                options.pids.push_back(pid);
            }
        } else if (name == "-h" || name == "--help") {
            arguments.flag();
            options.help = true;
        } else if (name == "-o" || name == "--output") {
            options.output = arguments.value();
        } else if (name == "--max-pages") {
            options.max_pages =
                cli::parse_integer_option(name, arguments.value(), std::uint64_t{1});
        } else if (name == "--include-zero") {
            arguments.flag();
            options.include_zero = true;
        } else {
            arguments.reject();
        }
    }
    if (options.help) {
        return options;
    }
    if (options.pids.empty()) {
        throw cli::UsageError("no PID given");
    }
    if (options.output.empty()) {
        throw cli::UsageError("no output file given (-o FILE)");
    }
    return options;
}

}  // namespace ozram::pagedump
