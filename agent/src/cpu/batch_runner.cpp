#include "cpu/batch_runner.hpp"

#include <string>

#include "ozram/error.hpp"
#include "ozram/sized_thread.hpp"

namespace ozram {

BatchRunner::BatchRunner(std::size_t capacity, Run run, void* owner)
    : run_(run), owner_(owner), jobs_(capacity) {}

BatchRunner::~BatchRunner() {
    if (!thread_running_)
        return;
    {
        const std::lock_guard lock(mutex_);
        stop_ = true;
    }
    work_.notify_one();
    ::pthread_join(thread_, nullptr);
}

void BatchRunner::start_thread() {
    thread_ = start_sized_thread<&BatchRunner::thread_main>(CODEC_THREAD_STACK_SIZE, this,
                                                            "the CPU backend's batch thread");
    thread_running_ = true;
}

BatchRunner::Job* BatchRunner::next_queued() {
    Job* oldest = nullptr;
    for (Job& job : jobs_) {
        if (job.state == State::Queued && (oldest == nullptr || job.ticket < oldest->ticket))
            oldest = &job;
    }
    return oldest;
}

BatchRunner::Job& BatchRunner::job_of(PageCompressor::Ticket ticket) {
    for (Job& job : jobs_) {
        if (job.state != State::Free && job.ticket == ticket)
            return job;
    }
    throw Error(EINVAL, "no batch in flight has ticket " + std::to_string(ticket));
}

void BatchRunner::thread_main() {
    std::unique_lock lock(mutex_);
    for (;;) {
        Job* job = nullptr;
        work_.wait(lock, [&] { return stop_ || (job = next_queued()) != nullptr; });
        if (job == nullptr)
            return;  // stopped with nothing queued
        job->state = State::Running;
        lock.unlock();
        std::exception_ptr error;
        try {
            run_(owner_, job->pages, job->outputs, *job->out);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        job->error = error;
        job->state = State::Done;
        done_.notify_all();
    }
}

PageCompressor::Ticket BatchRunner::submit(std::span<const std::uint8_t* const> pages,
                                           std::span<std::uint8_t* const> outputs,
                                           BatchResult& out) {
    if (!thread_running_)
        start_thread();
    PageCompressor::Ticket ticket = 0;
    {
        const std::lock_guard lock(mutex_);
        Job* free = nullptr;
        for (Job& job : jobs_) {
            if (job.state == State::Free) {
                free = &job;
                break;
            }
        }
        if (free == nullptr) {
            throw Error(EBUSY,
                        "all " + std::to_string(jobs_.size()) + " CPU batches in flight are taken");
        }
        ticket = next_ticket_++;
        *free = Job{State::Queued, ticket, pages, outputs, &out, nullptr};
    }
    work_.notify_one();
    return ticket;
}

bool BatchRunner::poll(PageCompressor::Ticket ticket) {
    const std::lock_guard lock(mutex_);
    return job_of(ticket).state == State::Done;
}

void BatchRunner::complete(PageCompressor::Ticket ticket) {
    std::unique_lock lock(mutex_);
    Job& job = job_of(ticket);
    done_.wait(lock, [&] { return job.state == State::Done; });
    const std::exception_ptr error = job.error;
    job = Job{};
    if (error)
        std::rethrow_exception(error);
}

void BatchRunner::wait_idle() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] {
        for (const Job& job : jobs_) {
            if (job.state == State::Queued || job.state == State::Running)
                return false;
        }
        return true;
    });
}

}  // namespace ozram
