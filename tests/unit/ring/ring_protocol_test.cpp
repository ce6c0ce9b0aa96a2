// The queue protocol between a producer and the agent: free-running indices
// across the 2^32 wrap, full and empty queues, generations, stale and
// superseded completions, and a producer that lies about its tail.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "agent_queues.hpp"
#include "heap_ring.hpp"
#include "ring_producer.hpp"

namespace {

using ozram::ring::AgentQueues;
using ozram::ring::RingProducer;
using ozram::ring::test::HeapRing;

struct Reaped {
    ozram_ring_cqe cqe;
    ozram_ring_verdict verdict;
    std::uint64_t cookie;
};

std::vector<Reaped> reap_all(RingProducer& producer) {
    std::vector<Reaped> reaped;
    producer.reap([&](const ozram_ring_cqe& cqe, ozram_ring_verdict verdict, std::uint64_t cookie) {
        reaped.push_back({cqe, verdict, cookie});
    });
    return reaped;
}

// The agent's answer to an SQ entry: a same-filled page, whatever it holds.
ozram_ring_cqe answer(const ozram_ring_sqe& sqe) {
    return {sqe.slot, sqe.generation, OZRAM_RING_STATUS_OK, OZRAM_RING_ENC_SAME_FILLED, 0,
            0,        sqe.slot};
}

void agent_answers_everything(AgentQueues& agent) {
    const std::uint32_t pending = agent.pending();
    for (std::uint32_t k = 0; k < pending; ++k) {
        agent.post(answer(agent.peek(k)));
    }
    agent.consume(pending);
    agent.publish();
}

TEST(RingProtocol, IndicesWrapAroundTwoToTheThirtyTwo) {
    const std::uint32_t near_end = std::numeric_limits<std::uint32_t>::max() - 5;
    HeapRing ring(8, 8, near_end);
    RingProducer producer(ring.view());
    AgentQueues agent(ring.view());
    std::vector<std::uint8_t> page(OZRAM_RING_PAGE_SIZE);
    std::uint64_t next_cookie = 0;
    std::uint64_t expected_cookie = 0;
    // Enough rounds to carry every index well past the wrap.
    for (int round = 0; round < 10; ++round) {
        for (int i = 0; i < 5; ++i) {
            std::memset(page.data(), static_cast<int>(next_cookie), page.size());
            producer.stage(page.data(), 0, next_cookie++);
        }
        producer.publish();
        ASSERT_EQ(agent.pending(), 5u) << "round " << round;
        for (std::uint32_t k = 0; k < 5; ++k) {
            const ozram_ring_sqe sqe = agent.peek(k);
            // The staged bytes are in the slot the entry names.
            EXPECT_EQ(ring.view().staging_slot(sqe.slot)[100],
                      static_cast<std::uint8_t>(expected_cookie + k));
        }
        agent_answers_everything(agent);
        const auto reaped = reap_all(producer);
        ASSERT_EQ(reaped.size(), 5u);
        for (const Reaped& r : reaped) {
            EXPECT_EQ(r.verdict, OZRAM_RING_OK);
            EXPECT_EQ(r.cookie, expected_cookie++);
        }
        EXPECT_EQ(producer.in_flight(), 0u);
    }
    EXPECT_LT(ring.view().ctrl->sq_tail.value, near_end) << "the tail never wrapped";
    EXPECT_EQ(producer.stale(), 0u);
}

TEST(RingProtocol, FullRingStopsTheProducerAndEmptyRingHasNothingPending) {
    HeapRing ring(4, 4);
    RingProducer producer(ring.view());
    AgentQueues agent(ring.view());
    std::vector<std::uint8_t> page(OZRAM_RING_PAGE_SIZE, 1);
    EXPECT_EQ(agent.pending(), 0u);
    for (int i = 0; i < 4; ++i) {
        ASSERT_TRUE(producer.can_stage());
        producer.stage(page.data(), 0, i);
    }
    EXPECT_FALSE(producer.can_stage()) << "every slot is in flight";
    EXPECT_EQ(agent.pending(), 0u) << "nothing is visible before publish()";
    producer.publish();
    EXPECT_EQ(agent.pending(), 4u);
    // The agent took the entries but has not answered: slots stay busy.
    agent.consume(4);
    EXPECT_FALSE(producer.can_stage());
    EXPECT_EQ(agent.cq_space(), 4u);
    for (int i = 0; i < 4; ++i) {
        agent.post({0, 0, -EIO, 0, 0, 0, 0});
    }
    EXPECT_EQ(agent.cq_space(), 0u) << "a full CQ has no room";
    agent.publish();
    reap_all(producer);
    EXPECT_EQ(agent.cq_space(), 4u);
}

TEST(RingProtocol, CompletionsForAnOldGenerationAreStale) {
    HeapRing ring(2, 4);  // room in the CQ for the three answers below
    RingProducer producer(ring.view());
    AgentQueues agent(ring.view());
    std::vector<std::uint8_t> page(OZRAM_RING_PAGE_SIZE, 7);
    producer.stage(page.data(), 0, 100);
    producer.publish();
    const ozram_ring_sqe first = agent.peek(0);
    agent.consume(1);

    // The agent is slow: the producer takes the slot back and reuses it.
    EXPECT_EQ(producer.take_back_all(), std::vector<std::uint64_t>{100});
    const std::uint32_t slot = producer.stage(page.data(), 0, 200);
    producer.publish();
    ASSERT_EQ(slot, first.slot) << "the test wants the same slot reused";
    const ozram_ring_sqe second = agent.peek(0);
    agent.consume(1);
    EXPECT_NE(second.generation, first.generation);

    // The late answer is ignored; the current one is taken; a repeat is ignored.
    agent.post(answer(first));
    agent.post(answer(second));
    agent.post(answer(second));
    agent.publish();
    const auto reaped = reap_all(producer);
    ASSERT_EQ(reaped.size(), 1u);
    EXPECT_EQ(reaped[0].cookie, 200u);
    EXPECT_EQ(producer.stale(), 2u);
    EXPECT_EQ(producer.in_flight(), 0u);
}

TEST(RingProtocol, MalformedCompletionsFreeTheSlotButAreReported) {
    HeapRing ring(4, 4);
    RingProducer producer(ring.view());
    AgentQueues agent(ring.view());
    std::vector<std::uint8_t> page(OZRAM_RING_PAGE_SIZE, 3);
    for (int i = 0; i < 3; ++i) {
        producer.stage(page.data(), 0, i);
    }
    producer.publish();
    ozram_ring_cqe too_long = answer(agent.peek(0));
    too_long.encoding = OZRAM_RING_ENC_LZ4;
    too_long.length = OZRAM_RING_PAGE_SIZE + 1;
    ozram_ring_cqe unknown = answer(agent.peek(1));
    unknown.encoding = 42;
    ozram_ring_cqe nowhere = answer(agent.peek(2));
    nowhere.slot = 1000;
    agent.consume(3);
    agent.post(too_long);
    agent.post(unknown);
    agent.post(nowhere);
    agent.publish();
    const auto reaped = reap_all(producer);
    ASSERT_EQ(reaped.size(), 2u);
    EXPECT_EQ(reaped[0].verdict, OZRAM_RING_BAD_LENGTH);
    EXPECT_EQ(reaped[1].verdict, OZRAM_RING_BAD_ENCODING);
    EXPECT_EQ(producer.unknown_slot(), 1u);
    EXPECT_EQ(producer.in_flight(), 1u) << "the slot named by no valid completion stays busy";
}

TEST(RingProtocol, AgentIgnoresATailTooFarAheadAndTheFlagsItDoesNotKnow) {
    HeapRing ring(4, 4);
    AgentQueues agent(ring.view());
    ring.view().ctrl->sq_tail.value = 1000;  // a corrupt producer
    EXPECT_EQ(agent.pending(), 0u);
    EXPECT_EQ(agent.corrupt_tails(), 1u);
    ring.view().ctrl->sq_tail.value = 0;
    ring.view().ctrl->cq_head.value = 12345;  // claims to have reaped the future
    EXPECT_EQ(agent.cq_space(), 0u) << "a CQ head that makes no sense leaves no room";
    EXPECT_FALSE(agent.stopping());
    RingProducer(ring.view()).set_stopping();
    EXPECT_TRUE(agent.stopping());
}

}  // namespace
