// ozramd run as ozramd.service runs it, as far as its network goes: in a
// network namespace of its own, where socket() of any family but AF_UNIX
// fails (service_sandbox.hpp).  With the socket that ozramd-metrics.socket
// would pass (LISTEN_FDS, bound in the test's own namespace) it answers
// scrapes, with or without --metrics-listen naming that socket's address;
// asked to open a network socket itself, it says why it cannot in one line
// and exits with status 2, which the unit does not restart.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "loopback_http.hpp"
#include "ozramd_process.hpp"
#include "service_sandbox.hpp"

namespace {

using namespace std::chrono_literals;
using ozram::test::agent_args;
using ozram::test::make_ring;
using ozram::test::Ozramd;
using ozram::test::Scratch;
using ozram::test::unique_name;

// In the child: the socket at descriptor 3 with LISTEN_FDS and LISTEN_PID
// as systemd sets them (sd_listen_fds(3)), then the sandbox.
std::function<void()> as_the_unit_runs_it(int passed) {
    return [passed] {
        if (passed >= 0) {
            // dup2() of a descriptor onto itself keeps its close-on-exec.
            if (passed == 3 ? fcntl(3, F_SETFD, 0) != 0 : dup2(passed, 3) != 3) {
                std::_Exit(126);
            }
            setenv("LISTEN_FDS", "1", 1);
            setenv("LISTEN_PID", std::to_string(getpid()).c_str(), 1);
        }
        const std::string failed = ozram::test::enter_service_sandbox();
        if (!failed.empty()) {
            std::fprintf(stderr, "sandbox: %s\n", failed.c_str());
            std::_Exit(126);
        }
    };
}

// "GET /metrics" on 127.0.0.1:port, retried for 15 s while the agent
// starts (the socket listens before: a connection waits in its queue): the
// answer's body, or what went wrong.
std::string scrape(std::uint16_t port) {
    std::string answer;
    const auto give_up = std::chrono::steady_clock::now() + 15s;
    while (answer.empty() && std::chrono::steady_clock::now() < give_up) {
        const ozram::test::LoopbackClient client(port);
        if (client.connected() && client.send_text(ozram::test::SCRAPE_REQUEST)) {
            answer = client.receive_all(5s);
        }
        if (answer.empty()) {
            std::this_thread::sleep_for(100ms);
        }
    }
    return ozram::test::scrape_body(answer);
}

void expect_it_serves(const std::vector<std::string>& extra) {
    Scratch scratch;
    const std::string name = unique_name("unit");
    auto ring = make_ring(name);
    std::uint16_t port = 0;
    const int passed = ozram::test::loopback_listener(port);
    ASSERT_GE(passed, 0);
    auto args = agent_args(scratch, name);
    args.insert(args.end(), extra.begin(), extra.end());
    for (std::string& word : args) {
        if (word == "PORT") {
            word = "127.0.0.1:" + std::to_string(port);
        }
    }
    Ozramd agent(scratch, args, as_the_unit_runs_it(passed));
    close(passed);
    const std::string body = scrape(port);
    EXPECT_NE(body.find("# TYPE ozram_agent_batches_total counter\n"), std::string::npos)
        << body << "\n"
        << agent.log();
    agent.signal(SIGTERM);
    EXPECT_EQ(agent.wait(), 0) << agent.log();
    EXPECT_NE(agent.log().find("metrics at http://127.0.0.1:" + std::to_string(port) + "/metrics"),
              std::string::npos)
        << agent.log();
}

TEST(OzramdUnderTheUnitsSandbox, ServesTheSocketTheSocketUnitPasses) {
    expect_it_serves({});
}

TEST(OzramdUnderTheUnitsSandbox, MetricsListenServesThePassedSocketForItsAddress) {
    expect_it_serves({"--metrics-listen", "PORT"});
}

TEST(OzramdUnderTheUnitsSandbox, MetricsListenOfItsOwnIsOneLineAndStatus2) {
    Scratch scratch;
    const std::string name = unique_name("forbidden");
    auto ring = make_ring(name);
    auto args = agent_args(scratch, name);
    args.insert(args.end(), {"--metrics-listen", "127.0.0.1:9101"});
    Ozramd agent(scratch, args, as_the_unit_runs_it(-1));
    EXPECT_EQ(agent.wait(), 2) << agent.log();
    const std::string log = agent.log();
    std::size_t lines = 0;
    std::string line;
    std::istringstream text(log);
    while (std::getline(text, line)) {
        if (line.find("--metrics-listen") != std::string::npos) {
            ++lines;
            EXPECT_NE(line.find("may not open network sockets"), std::string::npos) << line;
            EXPECT_NE(line.find("enable ozramd-metrics.socket"), std::string::npos) << line;
        }
    }
    EXPECT_EQ(lines, 1u) << log;
    // It said so before it attached: nothing else happened.
    EXPECT_EQ(log.find("attached to"), std::string::npos) << log;
}

}  // namespace
