// What makes ozramd a well-behaved daemon: detaching, its pidfile, signals,
// and staying out of the reclaim it exists to relieve.
#pragma once

#include <atomic>
#include <string>

namespace ozram::daemon {

// Opens /dev/null on whichever of descriptors 0, 1 and 2 is closed, so that
// no descriptor the agent opens later (daemonize()'s readiness pipe, a
// socket, the ring) takes a standard stream's number, to be overwritten or
// written to as a stream.  Called first thing in main(); false when
// /dev/null cannot be opened.
[[nodiscard]] bool open_standard_streams();

// Detaches from the terminal: fork, setsid, fork, chdir("/"), stdio on
// /dev/null, other descriptors closed.  The original process waits until the
// daemon calls report_ready() (or exits) and exits with that status, so a
// start-up failure still reaches the shell.  Throws Error(errno).
void daemonize();
// Tells the waiting parent of daemonize() how start-up went; no-op otherwise.
void report_ready(int exit_status);

// Writes the pid to `path`, locked (flock) while the process runs; removed
// again by remove_pidfile().  Throws Error, EEXIST when another ozramd holds
// the file: that one is left as it is, and remove_pidfile() leaves it too.
void write_pidfile(const std::string& path);
void remove_pidfile(const std::string& path);

// Set from signal handlers, polled by the main loop.
struct SignalFlags {
    std::atomic<bool> stop{false};    // SIGTERM, SIGINT
    std::atomic<bool> reload{false};  // SIGHUP
};
[[nodiscard]] SignalFlags& signal_flags();
void install_signal_handlers();

// mlockall(MCL_CURRENT | MCL_FUTURE) and PR_SET_IO_FLUSHER, so that the agent
// never waits on the reclaim it serves.  Returns false (after logging) when
// memory could not be locked; a missing PR_SET_IO_FLUSHER is only logged.
[[nodiscard]] bool pin_memory();

// Gives every thread of the process nice value `nice`: those that exist, and
// through the calling thread those it starts later.  A value the process
// may not take (below its current one without CAP_SYS_NICE) is logged, and
// the agent runs on at the nice value it has.
void set_nice(int nice);

}  // namespace ozram::daemon
