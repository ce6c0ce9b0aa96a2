// ozramd --daemon started with its standard streams closed, as
// "ozramd --daemon <&- >&- 2>&-" or a careless supervisor starts it: the
// launcher still learns how the start went and exits 0 once the daemon
// serves, instead of reading end-of-file from a readiness pipe that the
// daemon's /dev/null overwrote.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ozramd_process.hpp"

namespace {

using namespace std::chrono_literals;
using ozram::test::agent_args;
using ozram::test::make_ring;
using ozram::test::Ozramd;
using ozram::test::Scratch;
using ozram::test::unique_name;

// The pid in `pidfile` once the process there has attached to `ring`, or 0.
pid_t attached_daemon(const std::string& pidfile, ozram::ring::ShmRingOwner& ring) {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
        pid_t pid = 0;
        if (std::ifstream(pidfile) >> pid && pid > 0 &&
            ring.agent_pid() == static_cast<std::uint32_t>(pid)) {
            return pid;
        }
        std::this_thread::sleep_for(10ms);
    }
    return 0;
}

TEST(OzramdDaemon, WithTheStandardStreamsClosedTheLauncherReportsSuccess) {
    Scratch scratch;
    const std::string name = unique_name("closed-streams");
    const std::string pidfile = scratch.config() + ".pid";
    auto ring = make_ring(name);
    std::vector<std::string> args = agent_args(scratch, name);
    args.insert(args.end(), {"--daemon", "--pidfile", pidfile});
    Ozramd launcher(scratch, args, [] {
        ::close(STDIN_FILENO);
        ::close(STDOUT_FILENO);
        ::close(STDERR_FILENO);
    });
    const int status = launcher.wait();
    const pid_t daemon = attached_daemon(pidfile, *ring);
    EXPECT_EQ(status, 0) << "the launcher reported a failure";
    ASSERT_NE(daemon, 0) << "no daemon attached to the ring";
    EXPECT_EQ(::kill(daemon, 0), 0) << "the daemon is not running";

    // SIGTERM ends it; it removes its pidfile on the way out.  (Its exit
    // status goes to whoever adopted it.)
    ::kill(daemon, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::ifstream(pidfile).good() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(10ms);
    }
    EXPECT_FALSE(std::ifstream(pidfile).good()) << "the daemon did not stop";
}

}  // namespace
