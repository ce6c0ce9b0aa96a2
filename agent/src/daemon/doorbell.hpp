// The producer's doorbell: RingTransport::notify_completions(), rung after
// completions are published, on the caller's thread or from a thread of its
// own, with the CPU time it takes counted in the agent's metrics.
#pragma once

#include <pthread.h>

#include <condition_variable>
#include <exception>
#include <mutex>

#include "agent_metrics.hpp"
#include "ring_transport.hpp"

namespace ozram::daemon {

class Doorbell {
  public:
    Doorbell(ring::RingTransport& transport, AgentMetrics& metrics);
    ~Doorbell();
    Doorbell(const Doorbell&) = delete;
    Doorbell& operator=(const Doorbell&) = delete;

    // From a thread of its own, the producer checks and stores one batch's
    // results (for the kernel: decodes each with its algorithm's safe
    // decoder, inside the ioctl) while the caller goes on with the next.
    // The transport's notify_completions() must then be safe to call from
    // another thread than the caller's.  Off by default.
    void set_async(bool on);
    // Rings for what is published: now, or by the thread.  An error the
    // thread met is thrown here.
    void ring();
    // Rings once more for what is published, and ends the thread; an error
    // it met is thrown here.  Call before the transport detaches.
    void finish();

  private:
    void thread_main();
    void rethrow_error();
    // Rings now, on the calling thread, and counts its CPU time.
    void ring_here();

    ring::RingTransport& transport_;
    AgentMetrics& metrics_;
    // A pthread for its small stack: ozramd locks its memory, every page of
    // a thread's stack included.  `pending` says a publish has not been rung
    // since; the thread rings with the lock dropped.
    pthread_t thread_{};
    bool running_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool pending_ = false;
    bool stop_ = false;
    std::exception_ptr error_;
};

}  // namespace ozram::daemon
