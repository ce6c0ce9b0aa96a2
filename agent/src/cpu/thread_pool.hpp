// A persistent pool of worker threads for data-parallel loops over a batch.
#pragma once

#include <pthread.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ozram {

// Threads are created once and sleep between batches.  parallel_for() wakes
// only as many of them as the loop has chunks for, and the calling thread
// takes chunks too, so a batch never waits for a thread that has not woken
// yet: whoever is awake takes the next chunk.
class ThreadPool {
  public:
    // `participants` threads work on each loop, the caller included; 1 means
    // no worker threads at all.
    explicit ThreadPool(unsigned participants);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    [[nodiscard]] unsigned participants() const { return participants_; }

    // The body of a loop: handles items [begin, end) as participant `slot`
    // (0 is the caller; a slot is used by one thread at a time, so per-slot
    // scratch needs no lock).
    //
    // Held by reference, not in a std::function: a std::function of a
    // lambda with more than two captures allocates, and this runs once per
    // batch on the agent's hot path, which must not allocate.
    class Body {
      public:
        template <class F>
        explicit Body(F& callable)
            : callable_(static_cast<const void*>(std::addressof(callable))),
              call_([](const void* f, std::size_t begin, std::size_t end, unsigned slot) {
                  (*static_cast<F*>(const_cast<void*>(f)))(begin, end, slot);
              }) {}
        void operator()(std::size_t begin, std::size_t end, unsigned slot) const {
            call_(callable_, begin, end, slot);
        }

      private:
        const void* callable_;
        void (*call_)(const void*, std::size_t, std::size_t, unsigned);
    };

    // Runs body over [0, items) in contiguous chunks of at most `grain` items
    // and returns when every chunk is done.  If bodies throw, the exception of
    // the lowest-numbered chunk that threw is rethrown here (the others are
    // dropped), so an error names the first bad item.
    template <class F>
    void parallel_for(std::size_t items, std::size_t grain, F&& body) {
        run(items, grain, Body(body));
    }

  private:
    struct Loop;

    void run(std::size_t items, std::size_t grain, const Body& body);

    void worker_main();
    static void run_chunks(Loop& loop, unsigned slot);
    // Stops and joins the workers.
    void stop_workers() noexcept;

    unsigned participants_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    // Guarded by mutex_:
    std::uint64_t generation_ = 0;  // bumped per loop; workers wait for a change
    Loop* loop_ = nullptr;          // the open loop; null once the caller closed it
    unsigned joined_ = 0;           // workers that took a slot in the current loop
    unsigned finished_ = 0;         // of those, how many are done
    bool stop_ = false;             // the workers are to return
    // Threads of a small stack (ozram/sized_thread.hpp); last member:
    // started after the rest exist.
    std::vector<pthread_t> workers_;
};

}  // namespace ozram
