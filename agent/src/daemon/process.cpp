#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "cli/integer_option.hpp"
#include "log.hpp"
#include "ozram/error.hpp"

#ifndef PR_SET_IO_FLUSHER
#define PR_SET_IO_FLUSHER 57  // Linux 5.6; older libc headers lack it
#endif

namespace ozram::daemon {
namespace {

int ready_pipe = -1;  // write end, held by the daemon until report_ready()
int pidfile_fd = -1;  // the pidfile this process wrote, locked while it runs

[[noreturn]] void fail(const std::string& what) {
    const int code = errno;
    throw Error(code, what);
}

void on_stop(int) {
    signal_flags().stop = true;
}
void on_reload(int) {
    signal_flags().reload = true;
}

// The first parent: wait for the daemon's verdict and exit with it.
[[noreturn]] void wait_for_daemon(int read_end) {
    unsigned char status = EXIT_FAILURE;
    const ssize_t got = ::read(read_end, &status, 1);
    std::_Exit(got == 1 ? status : EXIT_FAILURE);
}

}  // namespace

bool open_standard_streams() {
    // open() takes the lowest free descriptor: while that is a standard
    // stream's, the stream was closed and is /dev/null from now on.
    for (;;) {
        const int fd = ::open("/dev/null", O_RDWR);  // inherited, as streams are
        if (fd < 0) {
            return false;
        }
        if (fd > STDERR_FILENO) {
            ::close(fd);
            return true;
        }
    }
}

void daemonize() {
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) < 0) {
        fail("pipe");
    }
    const pid_t first = ::fork();
    if (first < 0) {
        fail("fork");
    }
    if (first > 0) {
        ::close(ends[1]);
        wait_for_daemon(ends[0]);
    }
    ::close(ends[0]);
    if (::setsid() < 0) {
        fail("setsid");
    }
    const pid_t second = ::fork();
    if (second < 0) {
        fail("fork");
    }
    if (second > 0) {
        std::_Exit(EXIT_SUCCESS);  // the session leader goes; no terminal can come back
    }
    if (::chdir("/") < 0) {
        fail("chdir /");
    }
    ::umask(022);
    const int null = ::open("/dev/null", O_RDWR);
    if (null < 0) {
        fail("open /dev/null");
    }
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    // Keep only the readiness pipe, moved next to the standard streams.
    ready_pipe = STDERR_FILENO + 1;
    if (ends[1] != ready_pipe) {
        ::dup2(ends[1], ready_pipe);
    }
    ::close_range(ready_pipe + 1, ~0U, 0);
}

void report_ready(int exit_status) {
    if (ready_pipe < 0) {
        return;
    }
    const auto status = static_cast<unsigned char>(exit_status);
    (void)!::write(ready_pipe, &status, 1);
    ::close(ready_pipe);
    ready_pipe = -1;
}

void write_pidfile(const std::string& path) {
    // Not truncated before it is locked: another ozramd's, still running,
    // is left as it is.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fail("cannot write " + path);
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) < 0) {
        const int code = errno;
        char owner[32] = {};
        const ssize_t n = ::pread(fd, owner, sizeof(owner) - 1, 0);
        ::close(fd);
        if (code != EWOULDBLOCK) {
            throw Error(code, "cannot lock " + path);
        }
        std::string pid(owner, n > 0 ? static_cast<std::size_t>(n) : 0);
        pid.erase(pid.find_last_not_of(" \n") + 1);
        throw Error(EEXIST,
                    path + ": another ozramd runs" + (pid.empty() ? "" : " (pid " + pid + ")"));
    }
    const std::string text = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) < 0 ||
        ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
        const int code = errno;
        ::close(fd);
        throw Error(code, "cannot write " + path);
    }
    pidfile_fd = fd;
}

void remove_pidfile(const std::string& path) {
    if (pidfile_fd < 0) {
        return;  // another ozramd's, or none
    }
    ::unlink(path.c_str());
    ::close(pidfile_fd);
    pidfile_fd = -1;
}

SignalFlags& signal_flags() {
    static SignalFlags flags;
    return flags;
}

void install_signal_handlers() {
    struct sigaction action {};
    sigemptyset(&action.sa_mask);
    action.sa_handler = on_stop;
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);
    action.sa_handler = on_reload;
    ::sigaction(SIGHUP, &action, nullptr);
    action.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &action, nullptr);
}

bool pin_memory() {
    bool locked = true;
    if (::mlockall(MCL_CURRENT | MCL_FUTURE) < 0) {
        log_warning(std::string("cannot lock memory (mlockall: ") + std::strerror(errno) +
                    "); under memory pressure the agent may itself be swapped out");
        locked = false;
    }
    if (::prctl(PR_SET_IO_FLUSHER, 1, 0, 0, 0) < 0) {
        log_warning(std::string("cannot mark the agent as an I/O flusher (PR_SET_IO_FLUSHER: ") +
                    std::strerror(errno) + "); its allocations may enter reclaim");
    }
    return locked;
}

void set_nice(int nice) {
    // On Linux the nice value is per thread, and PRIO_PROCESS with a thread
    // id sets that thread's.  The calling thread goes first: what it starts
    // afterwards inherits the value.
    std::vector<pid_t> threads{::gettid()};
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", error)) {
        const auto tid = cli::parse_integer<pid_t>(task.path().filename().string());
        if (tid && *tid != threads.front()) {
            threads.push_back(*tid);
        }
    }
    for (const pid_t tid : threads) {
        if (::setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice) < 0 && errno != ESRCH) {
            const int failure = errno;
            errno = 0;
            const int current = ::getpriority(PRIO_PROCESS, 0);
            log_warning("cannot set nice " + std::to_string(nice) +
                        " (setpriority: " + std::strerror(failure) + "); running at nice " +
                        (errno == 0 ? std::to_string(current) : std::string("unknown")));
            return;
        }
    }
}

}  // namespace ozram::daemon
