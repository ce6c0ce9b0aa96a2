// The real ozramd binary against a shared-memory ring driven by this test:
// every page verified, SIGTERM detaches cleanly, a wrong ABI version and
// usage errors give the documented exit statuses.
#include "ozramd_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "completion_check.hpp"
#include "heap_ring.hpp"
#include "load_driver.hpp"
#include "ozram/cost_model.hpp"
#include "ring_producer.hpp"
#include "shm_ring.hpp"

namespace {

using namespace std::chrono_literals;
using ozram::ring::ShmRingOwner;
using ozram::test::agent_args;
using ozram::test::log_shows;
using ozram::test::make_ring;
using ozram::test::Ozramd;
using ozram::test::Scratch;
using ozram::test::unique_name;

TEST(Ozramd, ServesAShmRingAndEveryPageVerifies) {
    Scratch scratch;
    const std::string name = unique_name("serve");
    ShmRingOwner::Geometry geometry;
    geometry.slots = 128;
    geometry.first_index = 0xffffff00u;  // the real daemon crosses the index wrap too
    auto ring = ShmRingOwner::create(name, geometry);
    Ozramd agent(scratch, agent_args(scratch, name));
    const auto pages = ozram::ring::test::mixed_pages(100);
    ozram::ringload::LoadPlan plan;
    plan.pages = 3000;
    const auto report =
        ozram::ringload::run_load(*ring, ozram::ring::test::page_pointers(pages), plan);
    EXPECT_EQ(report.pages, 3000u);
    EXPECT_EQ(report.mismatches, 0u);
    EXPECT_EQ(report.rejected, 0u);
    EXPECT_EQ(report.fallback, 0u);
    EXPECT_FALSE(report.timed_out);
    EXPECT_TRUE(report.clean());
    // One page in four is noise, stored raw: a whole page each.
    EXPECT_GT(report.bytes_out, 750 * ozram::PAGE_SIZE);
    EXPECT_LT(report.bytes_out, report.bytes_in / 2);
    // run_load() set STOPPING: the agent detaches and exits 0.
    EXPECT_EQ(agent.wait(), 0) << agent.log();
    EXPECT_EQ(ring->agent_pid(), 0u);
    EXPECT_NE(agent.log().find("the producer is stopping"), std::string::npos) << agent.log();
}

// Several producer threads, each staging and checking on its own under the
// ring's lock, as the kernel's writers do: every page once, each verified.
TEST(Ozramd, SeveralProducerThreadsFeedTheRingAndEveryPageVerifies) {
    Scratch scratch;
    const std::string name = unique_name("threads");
    ShmRingOwner::Geometry geometry;
    geometry.slots = 256;
    auto ring = ShmRingOwner::create(name, geometry);
    Ozramd agent(scratch, agent_args(scratch, name));
    const auto pages = ozram::ring::test::mixed_pages(100);
    ozram::ringload::LoadPlan plan;
    plan.pages = 20000;
    plan.threads = 4;
    const auto started = std::chrono::steady_clock::now();
    const auto report =
        ozram::ringload::run_load(*ring, ozram::ring::test::page_pointers(pages), plan);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(report.pages, 20000u);
    EXPECT_EQ(report.mismatches, 0u);
    EXPECT_EQ(report.rejected, 0u);
    EXPECT_EQ(report.stale, 0u);
    EXPECT_EQ(report.fallback, 0u);
    EXPECT_FALSE(report.timed_out);
    EXPECT_GT(report.cpu_seconds, 0.0);

    // Where the threads' time went: pages staged and checked, the lock
    // taken twice for every 64 pages at least, and the steps making up the
    // threads' runs, no more.
    const auto& time = report.time;
    EXPECT_GT(time.checking, 0.0);
    EXPECT_GT(time.staging, 0.0);
    EXPECT_GT(time.locked, 0.0);
    EXPECT_GE(time.lock_takes, 2u * 20000u / 64u);
    EXPECT_LE(time.lock_waits, time.lock_takes);
    const double steps =
        time.checking + time.staging + time.locked + time.lock_wait + time.waking + time.idle;
    EXPECT_LE(steps, plan.threads * wall);
    EXPECT_GE(steps, plan.threads * report.seconds / 2)
        << "four threads, busy or idle from the agent's first page to the last";
    EXPECT_EQ(agent.wait(), 0) << agent.log();
}

// The kernel hands pages to the agent from the moment it opens the ring, and
// takes them back after ring_timeout_ms: the cost model (a calibration when
// there is no cache) and the compressors come first.
TEST(Ozramd, GetsReadyBeforeItAttaches) {
    Scratch scratch;
    std::remove(scratch.cost_model().c_str());  // no cache: it calibrates
    const std::string name = unique_name("ready");
    auto ring = make_ring(name);
    Ozramd agent(scratch, agent_args(scratch, name));
    ozram::ringload::LoadPlan plan;
    plan.pages = 200;
    const auto report = ozram::ringload::run_load(
        *ring, ozram::ring::test::page_pointers(ozram::ring::test::mixed_pages(50)), plan);
    EXPECT_EQ(report.pages, 200u);
    EXPECT_EQ(agent.wait(), 0) << agent.log();
    const std::string log = agent.log();
    const auto calibrated = log.find("calibrating the cost model");
    const auto attached = log.find("attached to");
    ASSERT_NE(calibrated, std::string::npos) << log;
    ASSERT_NE(attached, std::string::npos) << log;
    EXPECT_LT(calibrated, attached) << log;
}

TEST(Ozramd, SigtermFinishesTheBatchInFlightAndDetaches) {
    Scratch scratch;
    const std::string name = unique_name("sigterm");
    auto ring = make_ring(name);
    const std::uint32_t first_head = ring->view().ctrl->sq_head.value;
    Ozramd agent(scratch, agent_args(scratch, name));
    ozram::ring::RingProducer producer(ring->view());
    ozram::ringload::CompletionCheck check;
    const auto pages = ozram::ring::test::mixed_pages(64);
    std::uint64_t submitted = 0;
    std::uint64_t verified = 0;
    std::uint64_t bad = 0;
    bool terminated = false;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    // Keep the ring busy; after 1000 pages, SIGTERM; go on until the agent leaves.
    while (std::chrono::steady_clock::now() < deadline) {
        while (producer.can_stage()) {
            producer.stage(pages[submitted % pages.size()].data(), 0, submitted);
            ++submitted;
        }
        producer.publish();
        ring->notify_work();
        producer.reap(
            [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
                const bool good = verdict == OZRAM_RING_OK && cqe.status == 0 &&
                                  check.restores(cqe, ring->view().output_slot(cqe.slot),
                                                 pages[cookie % pages.size()].data());
                (good ? verified : bad) += 1;
            });
        if (!terminated && verified >= 1000) {
            agent.signal(SIGTERM);
            terminated = true;
        }
        if (terminated && ring->agent_pid() == 0) {
            break;
        }
        ring->wait_for_completions(1ms);
    }
    ASSERT_TRUE(terminated) << agent.log();
    EXPECT_EQ(agent.wait(), 0) << agent.log();
    EXPECT_EQ(ring->agent_pid(), 0u) << "the agent did not detach";
    EXPECT_EQ(bad, 0u);
    // Whatever the agent took from the SQ, it answered before leaving.
    producer.reap([&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
        const bool good = verdict == OZRAM_RING_OK && cqe.status == 0 &&
                          check.restores(cqe, ring->view().output_slot(cqe.slot),
                                         pages[cookie % pages.size()].data());
        (good ? verified : bad) += 1;
    });
    const std::uint32_t consumed = ring->view().ctrl->sq_head.value - first_head;
    EXPECT_EQ(verified, consumed);
    EXPECT_EQ(bad, 0u);
    // The rest the producer takes back and compresses itself.
    EXPECT_EQ(producer.take_back_all().size(), submitted - verified);
}

TEST(Ozramd, UnknownMajorAbiVersionExitsWithStatus3) {
    Scratch scratch;
    const std::string name = unique_name("abi");
    auto ring = ShmRingOwner::create(name, {});
    ring->shared_header().abi_major = 99;
    ring->shared_header().abi_minor = 0;
    Ozramd agent(scratch, agent_args(scratch, name));
    EXPECT_EQ(agent.wait(), 3) << agent.log();
    EXPECT_NE(agent.log().find("ring ABI version 99.0 is not supported"), std::string::npos)
        << agent.log();
    EXPECT_EQ(ring->agent_pid(), 0u) << "it must not attach";
}

TEST(Ozramd, CorruptHeaderIsARuntimeErrorNotACrash) {
    Scratch scratch;
    const std::string name = unique_name("corrupt");
    auto ring = ShmRingOwner::create(name, {});
    ring->shared_header().staging.offset = 1ULL << 40;
    Ozramd agent(scratch, agent_args(scratch, name));
    EXPECT_EQ(agent.wait(), 1) << agent.log();
    EXPECT_NE(agent.log().find("ring header rejected"), std::string::npos) << agent.log();
}

TEST(Ozramd, MissingRingAndUsageErrorsHaveTheirOwnStatus) {
    Scratch scratch;
    {
        Ozramd agent(scratch, agent_args(scratch, unique_name("absent")));
        EXPECT_EQ(agent.wait(), 4) << agent.log();
        EXPECT_NE(agent.log().find("no shared memory ring"), std::string::npos);
    }
    {
        Ozramd agent(scratch, {"--no-such-flag"});
        EXPECT_EQ(agent.wait(), 2);
        EXPECT_NE(agent.log().find("unknown option"), std::string::npos) << agent.log();
    }
    {
        std::ofstream(scratch.config()) << "batch_size = 64\nturbo = yes\n";
        Ozramd agent(scratch, agent_args(scratch, unique_name("config")));
        EXPECT_EQ(agent.wait(), 2);
        EXPECT_NE(agent.log().find("ozramd.conf:2: unknown key 'turbo'"), std::string::npos)
            << agent.log();
    }
    {
        Ozramd agent(scratch, {"--help"});
        EXPECT_EQ(agent.wait(), 0);
    }
}

}  // namespace

namespace {

// The nice value of each of the process's threads, from /proc/PID/task/*/stat
// (field 19; the name in field 2 is in parentheses and may hold spaces).
std::vector<int> thread_nice_values(pid_t pid) {
    std::vector<int> values;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    for (const auto& task : std::filesystem::directory_iterator(tasks)) {
        std::ifstream file(task.path() / "stat");
        std::string stat;
        std::getline(file, stat);
        std::istringstream fields(stat.substr(stat.rfind(')') + 2));
        std::string field;
        for (int number = 3; number <= 19 && fields >> field; ++number) {
        }
        values.push_back(std::stoi(field));
    }
    return values;
}

// Starts ozramd with `extra` arguments, waits until it has attached (its
// pool's threads exist by then) and returns the nice value of each thread.
std::vector<int> nice_values_of_agent(const std::vector<std::string>& extra, std::string& log) {
    Scratch scratch;
    const std::string name = unique_name("nice");
    auto ring = make_ring(name);
    std::vector<std::string> args = agent_args(scratch, name);
    args.insert(args.end(), extra.begin(), extra.end());
    Ozramd agent(scratch, args);
    for (int i = 0; i < 2000 && ring->agent_pid() == 0; ++i) {
        std::this_thread::sleep_for(5ms);
    }
    std::vector<int> values;
    if (ring->agent_pid() != 0) {
        values = thread_nice_values(agent.pid());
    }
    agent.signal(SIGTERM);
    EXPECT_EQ(agent.wait(), 0) << agent.log();
    log = agent.log();
    return values;
}

TEST(Ozramd, EveryThreadRunsAtTheNiceValueAsked) {
    std::string log;
    const std::vector<int> values = nice_values_of_agent({"--nice", "7"}, log);
    // The main thread, which takes part in the pool, and the pool's other
    // worker of --threads 2 (a shared-memory ring has no doorbell thread).
    EXPECT_GE(values.size(), 2u) << log;
    for (const int value : values) {
        EXPECT_EQ(value, 7);
    }
}

TEST(Ozramd, WithoutAGpuEveryThreadRunsAtNice19) {
    std::string log;
    const std::vector<int> values = nice_values_of_agent({"--backend", "cpu"}, log);
    EXPECT_GE(values.size(), 2u) << log;
    for (const int value : values) {
        EXPECT_EQ(value, 19);
    }
    EXPECT_NE(log.find("nice 19 (auto)"), std::string::npos) << log;
}

TEST(Ozramd, SighupReloadsTheConfigurationAndKeepsItOnError) {
    Scratch scratch;
    const std::string name = unique_name("reload");
    auto ring = ShmRingOwner::create(name, {});
    std::vector<std::string> args = agent_args(scratch, name);
    args.resize(args.size() - 2);  // no --batch-size flag: the file decides
    Ozramd agent(scratch, args);
    ASSERT_TRUE(log_shows(agent, "batches of up to 256 pages")) << agent.log();

    std::ofstream(scratch.config()) << "batch_size = 8\nflush_us = 0\n";
    agent.signal(SIGHUP);
    EXPECT_TRUE(log_shows(agent, "batches of up to 8 pages, flush after 0 us")) << agent.log();

    std::ofstream(scratch.config()) << "batch_size = 16\nwarp_speed = 9\n";
    agent.signal(SIGHUP);
    EXPECT_TRUE(log_shows(agent, "ozramd.conf:2: unknown key 'warp_speed'; keeping"))
        << agent.log();

    // Still serving, with batches of 8.
    const auto pages = ozram::ring::test::mixed_pages(20);
    ozram::ringload::LoadPlan plan;
    plan.pages = 200;
    const auto report =
        ozram::ringload::run_load(*ring, ozram::ring::test::page_pointers(pages), plan);
    EXPECT_EQ(report.pages, 200u);
    EXPECT_EQ(report.mismatches + report.rejected, 0u);
    EXPECT_EQ(agent.wait(), 0) << agent.log();
}

TEST(Ozramd, DaemonModeReportsReadinessWritesAndRemovesThePidfile) {
    Scratch scratch;
    const std::string name = unique_name("daemon");
    const std::string pidfile = scratch.config() + ".pid";
    auto ring = ShmRingOwner::create(name, {});
    std::vector<std::string> args = agent_args(scratch, name);
    args.insert(args.end(), {"--daemon", "--pidfile", pidfile});
    Ozramd launcher(scratch, args);
    // The launcher returns once the detached daemon is attached and serving.
    ASSERT_EQ(launcher.wait(), 0) << launcher.log();
    std::ifstream pid_text(pidfile);
    pid_t daemon_pid = 0;
    ASSERT_TRUE(pid_text >> daemon_pid) << "no pidfile";
    EXPECT_EQ(ring->agent_pid(), static_cast<std::uint32_t>(daemon_pid));
    EXPECT_EQ(::kill(daemon_pid, 0), 0) << "the daemon is not running";
    {
        // A second one with the same pidfile neither starts nor touches it
        // (it says why in syslog, as a detached ozramd logs).
        Ozramd second(scratch, args);
        EXPECT_NE(second.wait(), 0) << second.log();
        std::ifstream again(pidfile);
        pid_t still = 0;
        EXPECT_TRUE(again >> still) << "the second ozramd removed the pidfile";
        EXPECT_EQ(still, daemon_pid);
    }

    const auto pages = ozram::ring::test::mixed_pages(20);
    ozram::ringload::LoadPlan plan;
    plan.pages = 500;
    const auto report =
        ozram::ringload::run_load(*ring, ozram::ring::test::page_pointers(pages), plan);
    EXPECT_EQ(report.pages, 500u);
    EXPECT_EQ(report.mismatches + report.rejected, 0u);
    // STOPPING ends it; it detaches and removes its pidfile on the way out.
    // (Its exit status goes to whoever adopted it, so the test watches the
    // pidfile rather than the process, which may linger as a zombie.)
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::ifstream(pidfile).good() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(ring->agent_pid(), 0u) << "the daemon did not detach";
    EXPECT_FALSE(std::ifstream(pidfile).good()) << "the pidfile was left behind";
}

}  // namespace

namespace {

TEST(Ozramd, AfterAnAgentCrashTheProducerTakesBackAndANewAgentServesOn) {
    Scratch scratch;
    const std::string name = unique_name("crash");
    auto ring = make_ring(name);
    ozram::ring::RingProducer producer(ring->view());
    ozram::ringload::CompletionCheck check;
    const auto pages = ozram::ring::test::mixed_pages(64);
    std::uint64_t submitted = 0;
    std::uint64_t verified = 0;
    std::uint64_t bad = 0;
    std::uint64_t staged_after_stop = 0;
    const auto reap = [&] {
        producer.reap(
            [&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
                const bool good = verdict == OZRAM_RING_OK && cqe.status == 0 &&
                                  check.restores(cqe, ring->view().output_slot(cqe.slot),
                                                 pages[cookie % pages.size()].data());
                (good ? verified : bad) += 1;
            });
    };
    // Keeps the ring full until `target` pages are verified.
    const auto drive = [&](std::uint64_t target) {
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        while (verified < target && std::chrono::steady_clock::now() < deadline) {
            while (producer.can_stage()) {
                producer.stage(pages[submitted % pages.size()].data(), 0, submitted);
                ++submitted;
            }
            producer.publish();
            ring->notify_work();
            reap();
            ring->wait_for_completions(1ms);
        }
        return verified >= target;
    };

    {
        Ozramd first(scratch, agent_args(scratch, name));
        ASSERT_TRUE(drive(500)) << first.log();
        // Freeze it, give it work it will never see, then kill it.
        first.signal(SIGSTOP);
        ASSERT_TRUE(first.wait_stopped());
        reap();
        while (producer.can_stage()) {
            producer.stage(pages[submitted % pages.size()].data(), 0, submitted);
            ++submitted;
            ++staged_after_stop;
        }
        producer.publish();
        first.signal(SIGKILL);
        EXPECT_EQ(first.wait(), 128 + SIGKILL);
    }
    reap();  // what it posted before it died is still good
    // The producer's timeout: every slot still in flight comes back.
    const std::uint64_t taken_back = producer.take_back_all().size();
    EXPECT_GT(taken_back, 0u);
    EXPECT_EQ(verified + taken_back, submitted);

    // A new agent attaches; the SQ entries the dead one left behind name
    // slots whose generation has moved on, so their answers are stale.
    Ozramd second(scratch, agent_args(scratch, name));
    EXPECT_TRUE(drive(verified + 1000)) << second.log();
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(producer.unknown_slot(), 0u);
    producer.set_stopping();
    ring->notify_work();
    EXPECT_EQ(second.wait(), 0) << second.log();
    reap();
    EXPECT_EQ(bad, 0u);
    // The entries it never took were answered by the new agent, and ignored.
    EXPECT_GE(producer.stale(), staged_after_stop);
    EXPECT_LE(producer.stale(), taken_back);
    std::printf("crash test: %llu verified, %llu taken back, %llu stale answers ignored\n",
                static_cast<unsigned long long>(verified),
                static_cast<unsigned long long>(taken_back),
                static_cast<unsigned long long>(producer.stale()));
}

// --wait retries until a signal stops the agent (ozramd(8)): SIGTERM before
// any ring is there is a stop, status 0, not a missing ring.
// --wait waits for a ring that is not there yet; a path that names some
// other device will never become one.
TEST(Ozramd, ADeviceThatIsNoRingIsARuntimeErrorEvenWithWait) {
    Scratch scratch;
    Ozramd agent(scratch, {"--device", "/dev/null", "--wait", "--config", scratch.config(),
                           "--cost-model", scratch.cost_model(), "--threads", "2"});
    EXPECT_EQ(agent.wait(5s), 1) << agent.log();
    EXPECT_NE(agent.log().find("/dev/null is not an ozram ring device"), std::string::npos)
        << agent.log();
}

TEST(Ozramd, SigtermWhileWaitingForTheRingStopsItWithStatus0) {
    Scratch scratch;
    auto arguments = agent_args(scratch, unique_name("absent"));
    arguments.emplace_back("--wait");
    Ozramd agent(scratch, arguments);
    ASSERT_TRUE(log_shows(agent, "nice ")) << agent.log();
    std::this_thread::sleep_for(300ms);
    agent.signal(SIGTERM);
    EXPECT_EQ(agent.wait(), 0) << agent.log();
    EXPECT_EQ(agent.log().find("error:"), std::string::npos) << agent.log();
}

// Under systemd, stderr is the journal's stream (JOURNAL_STREAM names it):
// each line carries its priority for journald to file it under, so that
// "journalctl -p warning" shows the agent's errors.  Elsewhere, no prefix.
TEST(Ozramd, OnTheJournalsStreamEachLineCarriesItsPriority) {
    Scratch scratch;
    Ozramd agent(scratch, agent_args(scratch, unique_name("absent")), [] {
        struct stat st {};
        if (::fstat(STDERR_FILENO, &st) != 0) {
            std::_Exit(126);
        }
        const std::string stream = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
        ::setenv("JOURNAL_STREAM", stream.c_str(), 1);
    });
    EXPECT_EQ(agent.wait(), 4) << agent.log();
    EXPECT_NE(agent.log().find("<3>ozramd: error: "), std::string::npos) << agent.log();
    EXPECT_NE(agent.log().find("<6>ozramd: "), std::string::npos) << agent.log();

    Ozramd elsewhere(scratch, agent_args(scratch, unique_name("absent")),
                     [] { ::setenv("JOURNAL_STREAM", "1:1", 1); });
    EXPECT_EQ(elsewhere.wait(), 4) << elsewhere.log();
    EXPECT_EQ(elsewhere.log().find('<'), std::string::npos) << elsewhere.log();
    EXPECT_NE(elsewhere.log().find("ozramd: error: "), std::string::npos) << elsewhere.log();
}

}  // namespace
