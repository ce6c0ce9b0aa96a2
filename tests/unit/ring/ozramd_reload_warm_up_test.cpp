// SIGHUP rebuilds the compressors while the agent is attached, and their
// warm-up batch holds up the drain loop meanwhile: it takes no more pages
// than a batch can hold (the ring's slots), whatever --batch-size asks.
// Measured by the agent's peak memory during the reload: a warm-up of
// 16384 pages needs 64 MiB of them alone, one of the ring's 64 slots
// 256 KiB.  The compressors built before the agent attached, for 16384
// pages, are built again for 64 once the ring's size is known.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ozramd_process.hpp"

namespace {

using namespace std::chrono_literals;
using ozram::test::agent_args;
using ozram::test::log_shows;
using ozram::test::make_ring;
using ozram::test::Ozramd;
using ozram::test::Scratch;
using ozram::test::unique_name;

// A field of /proc/PID/status in KiB ("VmRSS", "VmHWM").
std::optional<long> status_kib(pid_t pid, const std::string& field) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.starts_with(field + ":")) {
            std::istringstream value(line.substr(field.size() + 1));
            long kib = 0;
            if (value >> kib) {
                return kib;
            }
        }
    }
    return std::nullopt;
}

// Starts the peak resident size (VmHWM) again from the present one.
bool reset_peak(pid_t pid) {
    std::ofstream clear_refs("/proc/" + std::to_string(pid) + "/clear_refs");
    return static_cast<bool>(clear_refs << "5" << std::flush);
}

TEST(OzramdReload, WarmsUpNoMorePagesThanTheRingHasSlots) {
    Scratch scratch;
    const std::string name = unique_name("reload-warm-up");
    auto ring = make_ring(name);  // 64 slots
    std::vector<std::string> args = agent_args(scratch, name);
    args.back() = "16384";  // --batch-size
    args.insert(args.end(), {"--backend", "cpu"});
    Ozramd agent(scratch, args);
    ASSERT_TRUE(log_shows(agent, "batches of up to 64 pages", 60s)) << agent.log();
    EXPECT_NE(agent.log().find("compressors built again for batches of 64 pages"),
              std::string::npos)
        << agent.log();

    const auto before = status_kib(agent.pid(), "VmRSS");
    ASSERT_TRUE(before);
    ASSERT_TRUE(reset_peak(agent.pid()));
    agent.signal(SIGHUP);
    ASSERT_TRUE(log_shows(agent, "configuration reloaded", 60s)) << agent.log();
    const auto peak = status_kib(agent.pid(), "VmHWM");
    ASSERT_TRUE(peak);
    EXPECT_LT(*peak - *before, 16 * 1024) << "KiB more at the reload's peak";

    agent.signal(SIGTERM);
    EXPECT_EQ(agent.wait(), 0) << agent.log();
}

}  // namespace
