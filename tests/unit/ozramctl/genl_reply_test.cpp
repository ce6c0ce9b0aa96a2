// record_from_reply() on answers built here with libnl: what a well-formed
// answer carries is read, and an attribute of the wrong size, a name
// without its NUL or a broken nest makes the whole answer malformed rather
// than a number read from the bytes around it.
#include "genl_reply.hpp"

#include <gtest/gtest.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "ozram_genl.h"

namespace ozramctl {
namespace {

using Message = std::unique_ptr<nl_msg, decltype(&nlmsg_free)>;

// A GET_STATS answer's header, before its attributes.
Message answer() {
    Message message(nlmsg_alloc(), nlmsg_free);
    EXPECT_NE(genlmsg_put(message.get(), 0, 0, 0x20, 0, 0, OZRAM_CMD_GET_STATS, OZRAM_GENL_VERSION),
              nullptr);
    return message;
}

void put_histogram(nl_msg* message, int op, std::vector<std::uint64_t> buckets) {
    nlattr* nest = nla_nest_start(message, op);
    nla_put_u64(message, OZRAM_HIST_ATTR_COUNT, 3);
    nla_put_u64(message, OZRAM_HIST_ATTR_SUM_NS, 700);
    nla_put(message, OZRAM_HIST_ATTR_BUCKETS,
            static_cast<int>(buckets.size() * sizeof(std::uint64_t)), buckets.data());
    nla_nest_end(message, nest);
}

// ozram2's answer, well formed.
void put_device(nl_msg* message) {
    nla_put_u32(message, OZRAM_ATTR_DEV_ID, 2);
    nla_put_string(message, OZRAM_ATTR_DEV_NAME, "ozram2");
    nla_put_u64(message, OZRAM_ATTR_DISKSIZE, 1ull << 33);
    nla_put_u8(message, OZRAM_ATTR_INITSTATE, 1);
    nla_put_u32(message, OZRAM_ATTR_AGENT_PID, 4242);
    nlattr* stats = nla_nest_start(message, OZRAM_ATTR_STATS);
    nla_put_u64(message, OZRAM_STAT_ATTR_ORIG_DATA, 1ull << 40);
    nla_nest_end(message, stats);
    nlattr* ring = nla_nest_start(message, OZRAM_ATTR_RING);
    nla_put_u64(message, OZRAM_RING_ATTR_SUBMITTED, 77);
    nla_nest_end(message, ring);
    nlattr* latency = nla_nest_start(message, OZRAM_ATTR_LATENCY);
    put_histogram(message, OZRAM_LATENCY_ATTR_WRITE, {1, 2});
    nla_nest_end(message, latency);
}

std::optional<StatsRecord> read(const Message& message) {
    return record_from_reply(nlmsg_hdr(message.get()));
}

TEST(GenlReply, ReadsAWellFormedAnswer) {
    auto message = answer();
    put_device(message.get());
    const auto record = read(message);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->dev_id, 2u);
    EXPECT_EQ(record->dev_name, "ozram2");
    EXPECT_EQ(record->value("disksize"), 1ull << 33);
    EXPECT_EQ(record->value("initstate"), 1u);
    EXPECT_EQ(record->value("agent_pid"), 4242u);
    EXPECT_EQ(record->stat(OZRAM_STAT_ATTR_ORIG_DATA), 1ull << 40);
    EXPECT_EQ(record->ring_stat(OZRAM_RING_ATTR_SUBMITTED), 77u);
    const auto& write = record->latency[static_cast<std::size_t>(LatencyOp::write)];
    ASSERT_TRUE(write);
    EXPECT_EQ(write->count, 3u);
    EXPECT_EQ(write->sum_ns, 700u);
    EXPECT_EQ(write->buckets, (std::vector<std::uint64_t>{1, 2}));
    EXPECT_FALSE(record->latency[static_cast<std::size_t>(LatencyOp::read)]);
    EXPECT_FALSE(record->value("agent_state"));  // not sent: empty
}

TEST(GenlReply, SkipsAttributesItDoesNotKnow) {
    auto message = answer();
    put_device(message.get());
    nla_put_u16(message.get(), 7, 1);  // a retired number
    nla_put_u64(message.get(), OZRAM_ATTR_MAX + 3, 5);
    nlattr* stats = nla_nest_start(message.get(), OZRAM_ATTR_STATS);
    nla_put_u32(message.get(), OZRAM_STAT_ATTR_MAX + 1, 9);
    nla_nest_end(message.get(), stats);
    const auto record = read(message);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->value("disksize"), 1ull << 33);
}

// A latency nest with one histogram for `op`: a count of `count_bytes`
// (4 or 8), a sum of 8 bytes, and `bucket_bytes` of buckets (none if 0).
void put_histogram_of_sizes(nl_msg* m, int op, int count_bytes, int bucket_bytes) {
    nlattr* latency = nla_nest_start(m, OZRAM_ATTR_LATENCY);
    nlattr* nest = nla_nest_start(m, op);
    if (count_bytes == 4)
        nla_put_u32(m, OZRAM_HIST_ATTR_COUNT, 1);
    else
        nla_put_u64(m, OZRAM_HIST_ATTR_COUNT, 1);
    nla_put_u64(m, OZRAM_HIST_ATTR_SUM_NS, 1);
    const std::uint8_t buckets[8] = {1};
    if (bucket_bytes != 0)
        nla_put(m, OZRAM_HIST_ATTR_BUCKETS, bucket_bytes, buckets);
    nla_nest_end(m, nest);
    nla_nest_end(m, latency);
}

// Each case: a well-formed answer with one attribute of the wrong shape.
struct Malformed {
    const char* what;
    void (*put)(nl_msg*);
};

const Malformed MALFORMED[] = {
    {"a u64 of 4 bytes", [](nl_msg* m) { nla_put_u32(m, OZRAM_ATTR_DISKSIZE, 1); }},
    {"a u8 of 8 bytes", [](nl_msg* m) { nla_put_u64(m, OZRAM_ATTR_INITSTATE, 1); }},
    {"a u32 of 2 bytes", [](nl_msg* m) { nla_put_u16(m, OZRAM_ATTR_DEV_ID, 1); }},
    {"a name without its NUL", [](nl_msg* m) { nla_put(m, OZRAM_ATTR_DEV_NAME, 6, "ozram9"); }},
    {"a device number of 4 bytes",
     [](nl_msg* m) {
         nlattr* nest = nla_nest_start(m, OZRAM_ATTR_STATS);
         nla_put_u32(m, OZRAM_STAT_ATTR_ORIG_DATA, 1);
         nla_nest_end(m, nest);
     }},
    {"a ring number of 12 bytes",
     [](nl_msg* m) {
         nlattr* nest = nla_nest_start(m, OZRAM_ATTR_RING);
         const std::uint32_t three[3] = {1, 2, 3};
         nla_put(m, OZRAM_RING_ATTR_SUBMITTED, sizeof three, three);
         nla_nest_end(m, nest);
     }},
    {"a histogram without buckets",
     [](nl_msg* m) { put_histogram_of_sizes(m, OZRAM_LATENCY_ATTR_READ, 8, 0); }},
    {"buckets shorter than one bucket",
     [](nl_msg* m) { put_histogram_of_sizes(m, OZRAM_LATENCY_ATTR_RING, 8, 4); }},
    {"a count of 4 bytes",
     [](nl_msg* m) { put_histogram_of_sizes(m, OZRAM_LATENCY_ATTR_READ, 4, 8); }},
};

TEST(GenlReply, RefusesAnAttributeOfTheWrongShape) {
    for (const Malformed& malformed : MALFORMED) {
        SCOPED_TRACE(malformed.what);
        auto message = answer();
        // The bad attribute first: a duplicate's later value would win.
        malformed.put(message.get());
        EXPECT_FALSE(read(message));
    }
}

TEST(GenlReply, ReadsFamiliesFromItsVersionOn) {
    EXPECT_FALSE(family_version_problem(OZRAM_GENL_VERSION));
    EXPECT_FALSE(family_version_problem(OZRAM_GENL_VERSION + 1));
    const auto problem = family_version_problem(OZRAM_GENL_VERSION - 1);
    ASSERT_TRUE(problem);
    EXPECT_NE(problem->find("version 1 of the netlink family"), std::string::npos) << *problem;
}

}  // namespace
}  // namespace ozramctl
