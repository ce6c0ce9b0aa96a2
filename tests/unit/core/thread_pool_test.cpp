// The pool under the Cpu backend: coverage, slots, errors, wake-ups.
#include "cpu/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ozram {
namespace {

TEST(ThreadPool, EveryItemExactlyOnce) {
    for (const unsigned participants : {1u, 2u, 3u, 8u}) {
        ThreadPool pool(participants);
        EXPECT_EQ(pool.participants(), participants);
        for (const std::size_t items : {1u, 2u, 15u, 16u, 17u, 1000u}) {
            for (const std::size_t grain : {1u, 7u, 16u, 5000u}) {
                std::vector<std::atomic<int>> seen(items);
                pool.parallel_for(items, grain, [&](std::size_t begin, std::size_t end, unsigned) {
                    ASSERT_LE(end - begin, grain);
                    for (std::size_t i = begin; i < end; ++i) {
                        ++seen[i];
                    }
                });
                for (std::size_t i = 0; i < items; ++i) {
                    ASSERT_EQ(seen[i].load(), 1) << participants << " participants, " << items
                                                 << " items, grain " << grain << ", item " << i;
                }
            }
        }
    }
}

TEST(ThreadPool, ZeroParticipantsMeansTheCallerAlone) {
    ThreadPool pool(0);
    EXPECT_EQ(pool.participants(), 1u);
    const auto caller = std::this_thread::get_id();
    pool.parallel_for(100, 1, [&](std::size_t, std::size_t, unsigned slot) {
        EXPECT_EQ(slot, 0u);
        EXPECT_EQ(std::this_thread::get_id(), caller);
    });
}

TEST(ThreadPool, ASlotIsNeverUsedByTwoThreadsAtOnce) {
    ThreadPool pool(4);
    std::vector<std::atomic<int>> busy(4);
    std::atomic<int> overlaps{0};
    for (int round = 0; round < 200; ++round) {
        pool.parallel_for(64, 1, [&](std::size_t, std::size_t, unsigned slot) {
            ASSERT_LT(slot, 4u);
            if (busy[slot].fetch_add(1) != 0) {
                ++overlaps;
            }
            std::this_thread::yield();
            --busy[slot];
        });
    }
    EXPECT_EQ(overlaps.load(), 0);
}

TEST(ThreadPool, WorkersAreWokenForLargeLoops) {
    // The first chunk waits until some other slot has started one: only a
    // woken worker can release it.  Bounded, so a broken pool fails instead
    // of hanging.
    ThreadPool pool(3);
    std::atomic<bool> helper_ran{false};
    pool.parallel_for(4, 1, [&](std::size_t begin, std::size_t, unsigned slot) {
        if (slot != 0) {
            helper_ran = true;
        }
        if (begin == 0) {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (!helper_ran && std::chrono::steady_clock::now() < deadline) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
    });
    EXPECT_TRUE(helper_ran.load());
}

TEST(ThreadPool, RethrowsTheLowestFailingChunk) {
    ThreadPool pool(4);
    for (int round = 0; round < 50; ++round) {
        try {
            pool.parallel_for(100, 1, [&](std::size_t begin, std::size_t, unsigned) {
                if (begin == 80 || begin == 30 || begin == 55) {
                    throw std::runtime_error(std::to_string(begin));
                }
            });
            FAIL() << "no exception";
        } catch (const std::runtime_error& error) {
            EXPECT_EQ(std::string(error.what()), "30");
        }
    }
    // Still usable afterwards.
    std::atomic<std::size_t> total{0};
    pool.parallel_for(100, 3,
                      [&](std::size_t begin, std::size_t end, unsigned) { total += end - begin; });
    EXPECT_EQ(total.load(), 100u);
}

TEST(ThreadPool, ManySmallLoopsInARowDoNotLoseWakeUps) {
    ThreadPool pool(4);
    std::atomic<std::size_t> total{0};
    for (int round = 0; round < 20000; ++round) {
        pool.parallel_for(2 + round % 7, 1, [&](std::size_t begin, std::size_t end, unsigned) {
            total += end - begin;
        });
    }
    std::size_t expected = 0;
    for (int round = 0; round < 20000; ++round) {
        expected += 2 + round % 7;
    }
    EXPECT_EQ(total.load(), expected);
}

}  // namespace
}  // namespace ozram
