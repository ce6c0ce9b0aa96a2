// Batches in flight on the CPU: a thread of its own runs them one after the
// other, in the order they came, so that submit() returns at once and the
// caller (the agent's drain loop) goes on taking work and posting results.
// The compression itself fans out over the pool as for a synchronous call.
#pragma once

#include <pthread.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <vector>

#include "ozram/backend.hpp"

namespace ozram {

class BatchRunner {
  public:
    // Runs one batch: what compress_into() does.
    using Run = void (*)(void* owner, std::span<const std::uint8_t* const> pages,
                         std::span<std::uint8_t* const> outputs, BatchResult& out);

    // Up to `capacity` batches in flight; `run(owner, ...)` does each.
    BatchRunner(std::size_t capacity, Run run, void* owner);
    ~BatchRunner();
    BatchRunner(const BatchRunner&) = delete;
    BatchRunner& operator=(const BatchRunner&) = delete;

    [[nodiscard]] std::size_t capacity() const { return jobs_.size(); }
    // The PageCompressor calls of the same names.
    PageCompressor::Ticket submit(std::span<const std::uint8_t* const> pages,
                                  std::span<std::uint8_t* const> outputs, BatchResult& out);
    [[nodiscard]] bool poll(PageCompressor::Ticket ticket);
    void complete(PageCompressor::Ticket ticket);
    // Waits until no batch is queued or running (finished ones keep their
    // results for complete()).
    void wait_idle();

  private:
    enum class State { Free, Queued, Running, Done };
    struct Job {
        State state = State::Free;
        PageCompressor::Ticket ticket = 0;
        std::span<const std::uint8_t* const> pages;
        std::span<std::uint8_t* const> outputs;
        BatchResult* out = nullptr;
        std::exception_ptr error;
    };

    void start_thread();
    void thread_main();
    Job& job_of(PageCompressor::Ticket ticket);  // with mutex_ held
    Job* next_queued();                          // likewise

    Run run_;
    void* owner_;
    std::mutex mutex_;
    std::condition_variable work_;  // a batch was queued, or stop
    std::condition_variable done_;  // a batch finished
    std::vector<Job> jobs_;
    PageCompressor::Ticket next_ticket_ = 1;
    bool stop_ = false;
    // A pthread for its stack size: ozramd locks its memory, every page of a
    // thread's stack included.  Started by the first submit().
    pthread_t thread_{};
    bool thread_running_ = false;
};

}  // namespace ozram
