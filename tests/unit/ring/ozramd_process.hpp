// Helpers of the tests that run the real ozramd binary against a
// shared-memory ring: a scratch directory, the process, the ring.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ozram/cost_model.hpp"
#include "shm_ring.hpp"

namespace ozram::test {

using namespace std::chrono_literals;
using ring::ShmRingOwner;

// A scratch directory with a cached cost model (no calibration in tests) and
// an empty configuration file (the machine's own does not apply).
class Scratch {
  public:
    Scratch() {
        char pattern[] = "/tmp/ozram-ring-test.XXXXXX";
        dir_ = ::mkdtemp(pattern);
        std::ofstream(cost_model()) << ozram::CostModel::defaults().serialize();
        std::ofstream(config()) << "# empty\n";
    }
    ~Scratch() {
        std::remove(cost_model().c_str());
        std::remove(config().c_str());
        std::remove(log().c_str());
        ::rmdir(dir_.c_str());
    }
    [[nodiscard]] std::string cost_model() const { return dir_ + "/cost-model"; }
    [[nodiscard]] std::string config() const { return dir_ + "/ozramd.conf"; }
    [[nodiscard]] std::string log() const { return dir_ + "/stderr"; }

  private:
    std::string dir_;
};

class Ozramd {
  public:
    // `in_child` runs in the child just before the exec: it may set up
    // what the agent inherits (descriptors, environment, a sandbox), and
    // exit with status 126 when it cannot.
    Ozramd(const Scratch& scratch, std::vector<std::string> arguments,
           const std::function<void()>& in_child = {})
        : log_(scratch.log()) {
        arguments.insert(arguments.begin(), OZRAMD_PATH);
        pid_ = ::fork();
        if (pid_ == 0) {
            std::freopen(log_.c_str(), "w", stderr);
            std::freopen("/dev/null", "w", stdout);
            if (in_child) {
                in_child();
            }
            std::vector<char*> argv;
            for (std::string& word : arguments) {
                argv.push_back(word.data());
            }
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            std::_Exit(127);
        }
    }
    ~Ozramd() {
        if (pid_ > 0 && !status_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    void signal(int number) const { ::kill(pid_, number); }
    [[nodiscard]] pid_t pid() const { return pid_; }
    // Waits until the process is stopped (after SIGSTOP): state 'T'.
    [[nodiscard]] bool wait_stopped() const {
        for (int i = 0; i < 1000; ++i) {
            std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
            std::string pid, name, state;
            if (stat >> pid >> name >> state && state == "T") {
                return true;
            }
            std::this_thread::sleep_for(1ms);
        }
        return false;
    }
    // The exit status, or -1 when it did not exit in time (it runs on; the
    // destructor kills it).
    int wait(std::chrono::milliseconds limit = 20s) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            int raw = 0;
            if (::waitpid(pid_, &raw, WNOHANG) == pid_) {
                status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
                return *status_;
            }
            std::this_thread::sleep_for(10ms);
        }
        return -1;
    }
    [[nodiscard]] std::string log() const {
        std::ifstream file(log_);
        std::ostringstream text;
        text << file.rdbuf();
        return text.str();
    }

  private:
    std::string log_;
    pid_t pid_ = -1;
    std::optional<int> status_;
};

// Waits until the agent's log holds `text`.
inline bool log_shows(const Ozramd& agent, const std::string& text,
                      std::chrono::milliseconds limit = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (agent.log().find(text) != std::string::npos) {
            return true;
        }
        std::this_thread::sleep_for(10ms);
    }
    return false;
}

inline std::string unique_name(const char* what) {
    return std::string("ozram-test-") + what + "-" + std::to_string(::getpid());
}

// A shared-memory ring of 64 slots, the size most of these tests need.
inline std::unique_ptr<ShmRingOwner> make_ring(const std::string& name) {
    ShmRingOwner::Geometry geometry;
    geometry.slots = 64;
    return ShmRingOwner::create(name, geometry);
}

inline std::vector<std::string> agent_args(const Scratch& scratch, const std::string& shm) {
    return {"--shm",        shm,
            "--config",     scratch.config(),
            "--cost-model", scratch.cost_model(),
            "--threads",    "2",
            "--batch-size", "32"};
}

}  // namespace ozram::test
