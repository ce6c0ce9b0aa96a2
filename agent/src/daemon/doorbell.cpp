#include "doorbell.hpp"

#include <time.h>

#include <chrono>
#include <utility>

#include "ozram/sized_thread.hpp"

namespace ozram::daemon {
namespace {

// The thread's stack: it makes one ioctl and, on an error, an exception
// with a message.
constexpr std::size_t STACK_SIZE = 256 * 1024;

// The CPU time of the calling thread, system time included.
std::chrono::nanoseconds thread_cpu_time() {
    timespec now{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

}  // namespace

Doorbell::Doorbell(ring::RingTransport& transport, AgentMetrics& metrics)
    : transport_(transport), metrics_(metrics) {}

Doorbell::~Doorbell() {
    try {
        finish();
    } catch (...) {  // NOLINT(bugprone-empty-catch): nowhere left to report it
    }
}

void Doorbell::ring_here() {
    const auto before = thread_cpu_time();
    transport_.notify_completions();
    metrics_.record_doorbell_cpu(thread_cpu_time() - before);
}

void Doorbell::ring() {
    if (!running_) {
        ring_here();
        return;
    }
    rethrow_error();
    {
        const std::lock_guard lock(mutex_);
        pending_ = true;
    }
    wake_.notify_one();
}

void Doorbell::thread_main() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return pending_ || stop_; });
        if (!pending_) {
            return;  // stopped, with nothing left to ring
        }
        // Cleared before ringing: a publish from now on rings again, so no
        // completion is left unreaped.
        pending_ = false;
        lock.unlock();
        try {
            ring_here();
        } catch (...) {
            lock.lock();
            error_ = std::current_exception();
            return;
        }
        lock.lock();
    }
}

void Doorbell::rethrow_error() {
    std::exception_ptr error;
    {
        const std::lock_guard lock(mutex_);
        error = std::exchange(error_, nullptr);
    }
    if (error) {
        std::rethrow_exception(error);
    }
}

void Doorbell::set_async(bool on) {
    if (on == running_) {
        return;
    }
    if (!on) {
        finish();
        return;
    }
    stop_ = false;
    thread_ = start_sized_thread<&Doorbell::thread_main>(STACK_SIZE, this, "the doorbell thread");
    // Its name lets a benchmark find the doorbell's CPU time in /proc:
    // for the kernel, the check and store of every result.
    ::pthread_setname_np(thread_, THREAD_NAME);
    running_ = true;
}

void Doorbell::finish() {
    if (!running_) {
        return;
    }
    {
        const std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_one();
    ::pthread_join(thread_, nullptr);
    running_ = false;
    rethrow_error();
}

}  // namespace ozram::daemon
