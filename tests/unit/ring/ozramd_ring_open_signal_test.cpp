// A signal while ozramd's open() of the ring waits.  The kernel's open of
// /dev/ozram-ring waits interruptibly (a restart after a crash, while the
// last agent's pages drain), and the agent's handlers do not restart system
// calls: the open fails with EINTR.  SIGHUP must not end the agent then,
// and SIGTERM is the ordinary stop, status 0.
//
// The wait here is a lease: the ring is a regular file laid out like the
// device, on which the test holds a read lease, so that the agent's open
// for writing waits (interruptibly) until the test gives the lease up.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "ozram_ring.h"
#include "ozramd_process.hpp"

namespace {

using namespace std::chrono_literals;
using ozram::test::agent_args;
using ozram::test::log_shows;
using ozram::test::Ozramd;
using ozram::test::Scratch;

class LeasedRingFile {
  public:
    explicit LeasedRingFile(std::uint32_t slots) {
        char pattern[] = "/tmp/ozram-leased-ring.XXXXXX";
        const int fd = ::mkstemp(pattern);
        path_ = pattern;
        ozram_ring_header header;
        ozram_ring_init_header(&header, slots, slots, 3072);
        EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(header.mapping_size)), 0);
        EXPECT_EQ(::pwrite(fd, &header, sizeof header, 0), static_cast<ssize_t>(sizeof header));
        ::close(fd);
        // The kernel tells the lease holder of a break with SIGIO, whose
        // default action would end the test.
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGIO, &ignore, &saved_sigio_);
        lease_fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        leased_ = ::fcntl(lease_fd_, F_SETLEASE, F_RDLCK) == 0;
    }
    ~LeasedRingFile() {
        ::close(lease_fd_);
        ::sigaction(SIGIO, &saved_sigio_, nullptr);
        ::unlink(path_.c_str());
    }
    LeasedRingFile(const LeasedRingFile&) = delete;
    LeasedRingFile& operator=(const LeasedRingFile&) = delete;

    [[nodiscard]] const std::string& path() const { return path_; }
    [[nodiscard]] bool leased() const { return leased_; }
    // Waits until an open for writing is held up by the lease: the kernel
    // then reports the lease as the type it is being broken to.
    [[nodiscard]] bool wait_for_an_opener(std::chrono::milliseconds limit = 20s) const {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            if (::fcntl(lease_fd_, F_GETLEASE) == F_UNLCK) {
                return true;
            }
            std::this_thread::sleep_for(5ms);
        }
        return false;
    }
    void release() const { ::fcntl(lease_fd_, F_SETLEASE, F_UNLCK); }

  private:
    std::string path_;
    int lease_fd_ = -1;
    bool leased_ = false;
    struct sigaction saved_sigio_ {};
};

std::vector<std::string> device_args(const Scratch& scratch, const std::string& device) {
    std::vector<std::string> args = agent_args(scratch, "unused");
    args.erase(args.begin(), args.begin() + 2);  // --shm NAME
    args.insert(args.begin(), {"--device", device});
    return args;
}

TEST(OzramdRingOpen, SighupWhileTheOpenWaitsKeepsTheAgentWaiting) {
    Scratch scratch;
    LeasedRingFile ring(16);
    ASSERT_TRUE(ring.leased()) << "cannot take a lease on " << ring.path();
    Ozramd agent(scratch, device_args(scratch, ring.path()));
    ASSERT_TRUE(ring.wait_for_an_opener()) << agent.log();

    agent.signal(SIGHUP);
    EXPECT_EQ(agent.wait(500ms), -1) << "SIGHUP ended the agent: " << agent.log();
    ring.release();
    EXPECT_TRUE(log_shows(agent, "attached to " + ring.path())) << agent.log();

    agent.signal(SIGTERM);
    EXPECT_EQ(agent.wait(), 0) << agent.log();
    EXPECT_EQ(agent.log().find("error:"), std::string::npos) << agent.log();
}

TEST(OzramdRingOpen, SigtermWhileTheOpenWaitsStopsTheAgentWithStatus0) {
    Scratch scratch;
    LeasedRingFile ring(16);
    ASSERT_TRUE(ring.leased()) << "cannot take a lease on " << ring.path();
    Ozramd agent(scratch, device_args(scratch, ring.path()));
    ASSERT_TRUE(ring.wait_for_an_opener()) << agent.log();

    agent.signal(SIGTERM);
    EXPECT_EQ(agent.wait(), 0) << agent.log();
    EXPECT_NE(agent.log().find("stopped by a signal before a ring was attached"), std::string::npos)
        << agent.log();
    EXPECT_EQ(agent.log().find("error:"), std::string::npos) << agent.log();
}

}  // namespace
