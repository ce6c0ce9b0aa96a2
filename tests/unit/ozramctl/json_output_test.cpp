#include "json_output.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "fake_record.hpp"

namespace ozramctl {
namespace {

using testing::fake_device_record;

// The keys of one JSON object, top level only: enough to tell that a
// document is well formed in the shape ozramctl writes (no JSON library is a
// dependency of this project).  Fails the test on anything malformed.
std::multiset<std::string> top_level_keys(const std::string& json) {
    std::multiset<std::string> keys;
    int depth = 0;
    bool in_string = false;
    bool expect_key = false;
    std::string current;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
            if (c == '\\') {
                current += json.at(++i);
            } else if (c == '"') {
                in_string = false;
                if (expect_key) {
                    EXPECT_EQ(json.at(i + 1), ':') << "a key must be followed by ':'";
                    keys.insert(current);
                    expect_key = false;
                }
            } else {
                current += c;
            }
            continue;
        }
        switch (c) {
            case '"':
                in_string = true;
                current.clear();
                break;
            case '{':
                ++depth;
                expect_key = depth == 1;
                break;
            case '[':
                ++depth;
                break;
            case '}':
            case ']':
                --depth;
                EXPECT_GE(depth, 0) << "unbalanced at " << i;
                break;
            case ',':
                expect_key = depth == 1;
                break;
            default:
                break;
        }
    }
    EXPECT_EQ(depth, 0) << "unbalanced document";
    EXPECT_FALSE(in_string) << "unterminated string";
    return keys;
}

// Identity first, then every number by its name in the order of the lists,
// the agent's state in words, and the ring's numbers nested under "ring".
TEST(JsonOutput, DeviceRecordInTableOrder) {
    const StatsRecord record = fake_device_record();
    std::string members = "\"dev_id\":0,\"dev_name\":\"ozram0\"";
    std::string ring;
    const auto fields = stat_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        std::string value = std::to_string(*record.values[i]);
        if (fields[i].key == "agent_state") {
            value = "\"attached\"";
        }
        std::string& to = fields[i].section == Section::ring ? ring : members;
        to += (to.empty() ? "" : ",") + ('"' + std::string(fields[i].key) + "\":" + value);
    }
    EXPECT_EQ(json_stats(record), '{' + members + ",\"ring\":{" + ring + "}}");
    EXPECT_TRUE(json_stats(record).starts_with(
        "{\"dev_id\":0,\"dev_name\":\"ozram0\",\"disksize\":67108864,\"initstate\":1,"));
}

TEST(JsonOutput, EveryFieldAppearsOnceAndTheDocumentIsWellFormed) {
    const auto keys = top_level_keys(json_stats(fake_device_record()));
    EXPECT_EQ(keys.count("dev_id"), 1u);
    EXPECT_EQ(keys.count("ring"), 1u);
    for (const auto& field : stat_fields()) {
        if (field.section != Section::ring) {
            EXPECT_EQ(keys.count(std::string(field.key)), 1u) << field.key;
        }
    }
}

TEST(JsonOutput, TotalAndDeviceList) {
    StatsRecord total = fake_device_record();
    total.dev_id.reset();
    total.dev_name.clear();
    total.num_devices = 2;
    const std::string json = json_stats_all({fake_device_record(), fake_device_record()}, total);
    EXPECT_EQ(top_level_keys(json), (std::multiset<std::string>{"devices", "total"}));
    EXPECT_NE(json.find("],\"total\":{\"num_devices\":2,\"disksize\":67108864,"), std::string::npos)
        << json;
}

TEST(JsonOutput, DevicesCarryOnlyTheirIdentity) {
    StatsRecord device = fake_device_record();
    EXPECT_EQ(json_devices({device}),
              "{\"devices\":[{\"dev_id\":0,\"dev_name\":\"ozram0\",\"disksize\":67108864,"
              "\"initstate\":1}]}");
    EXPECT_EQ(json_devices({}), "{\"devices\":[]}");
}

TEST(JsonOutput, AgentView) {
    StatsRecord total = fake_device_record();
    total.dev_id.reset();
    total.dev_name.clear();
    total.num_devices = 1;
    // The agent's state, what backend_stat counts, and the ring.
    std::multiset<std::string> expected = {"num_devices", "ring"};
    for (const StatField& field : stat_fields()) {
        if (field.section == Section::agent || field.section == Section::backend_stat) {
            expected.insert(std::string(field.key));
        }
    }
    EXPECT_EQ(top_level_keys(json_agent(total)), expected);
}

// A module older than this program sends fewer attributes: those are null.
TEST(JsonOutput, MissingValuesAreNull) {
    StatsRecord empty;
    empty.num_devices = 0;
    const std::string json = json_stats(empty);
    EXPECT_TRUE(json.starts_with("{\"num_devices\":0,\"disksize\":null,\"initstate\":null,"))
        << json;
    EXPECT_NE(
        json.find(
            "\"ring\":{\"" +
            std::string(
                stat_fields()[*find_stat_field(Source::nested_ring, OZRAM_RING_ATTR_SUBMITTED)]
                    .key) +
            "\":null,"),
        std::string::npos)
        << json;
}

TEST(JsonOutput, StringsAreEscaped) {
    EXPECT_EQ(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
}

}  // namespace
}  // namespace ozramctl
