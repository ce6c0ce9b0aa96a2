// ThreadPool: generation-counted wake-ups, chunk claiming by atomic counter.
#include "cpu/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

#include "ozram/sized_thread.hpp"

namespace ozram {

struct ThreadPool::Loop {
    const Body* body;
    std::size_t items;
    std::size_t grain;
    std::size_t chunks;
    unsigned helpers_wanted;  // workers that may join besides the caller
    std::atomic<std::size_t> next_chunk{0};

    std::mutex error_mutex;
    std::exception_ptr error;  // from the lowest chunk that threw
    std::size_t error_chunk = 0;
};

ThreadPool::ThreadPool(unsigned participants) : participants_(std::max(participants, 1u)) {
    workers_.reserve(participants_ - 1);
    try {
        for (unsigned i = 1; i < participants_; ++i) {
            workers_.push_back(start_sized_thread<&ThreadPool::worker_main>(
                CODEC_THREAD_STACK_SIZE, this, "a CPU pool thread"));
        }
    } catch (...) {
        stop_workers();
        throw;
    }
}

ThreadPool::~ThreadPool() {
    stop_workers();
}

void ThreadPool::stop_workers() noexcept {
    {
        const std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (const pthread_t worker : workers_) {
        ::pthread_join(worker, nullptr);
    }
    workers_.clear();
}

void ThreadPool::run_chunks(Loop& loop, unsigned slot) {
    for (;;) {
        const std::size_t chunk = loop.next_chunk.fetch_add(1, std::memory_order_relaxed);
        if (chunk >= loop.chunks) {
            return;
        }
        const std::size_t begin = chunk * loop.grain;
        const std::size_t end = std::min(begin + loop.grain, loop.items);
        try {
            (*loop.body)(begin, end, slot);
        } catch (...) {
            std::lock_guard lock(loop.error_mutex);
            if (!loop.error || chunk < loop.error_chunk) {
                loop.error = std::current_exception();
                loop.error_chunk = chunk;
            }
        }
    }
}

void ThreadPool::worker_main() {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) {
            return;
        }
        seen = generation_;
        if (loop_ == nullptr || joined_ >= loop_->helpers_wanted) {
            continue;  // woke too late or not needed: the loop is covered
        }
        Loop& loop = *loop_;
        const unsigned slot = ++joined_;
        lock.unlock();
        run_chunks(loop, slot);
        lock.lock();
        if (++finished_ == joined_) {
            done_.notify_one();
        }
    }
}

void ThreadPool::run(std::size_t items, std::size_t grain, const Body& body) {
    if (items == 0) {
        return;
    }
    grain = std::max<std::size_t>(grain, 1);
    Loop loop;
    loop.body = &body;
    loop.items = items;
    loop.grain = grain;
    loop.chunks = (items + grain - 1) / grain;
    loop.helpers_wanted =
        static_cast<unsigned>(std::min<std::size_t>(workers_.size(), loop.chunks - 1));

    if (loop.helpers_wanted > 0) {
        {
            std::lock_guard lock(mutex_);
            loop_ = &loop;
            joined_ = 0;
            finished_ = 0;
            ++generation_;
        }
        if (loop.helpers_wanted == workers_.size()) {
            wake_.notify_all();
        } else {
            for (unsigned i = 0; i < loop.helpers_wanted; ++i) {
                wake_.notify_one();
            }
        }
    }
    run_chunks(loop, 0);
    if (loop.helpers_wanted > 0) {
        std::unique_lock lock(mutex_);
        // Close the loop: a worker that wakes from now on leaves it alone, so
        // only the ones that joined are waited for.
        loop_ = nullptr;
        done_.wait(lock, [&] { return finished_ == joined_; });
    }
    if (loop.error) {
        std::rethrow_exception(loop.error);
    }
}

}  // namespace ozram
