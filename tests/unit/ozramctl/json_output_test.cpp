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

TEST(JsonOutput, DeviceRecordExactly) {
    EXPECT_EQ(json_stats(fake_device_record()),
              "{\"dev_id\":0,\"dev_name\":\"ozram0\",\"disksize\":67108864,\"initstate\":1,"
              "\"orig_data_size\":2736128,\"compr_data_size\":103,\"mem_used_total\":104,"
              "\"mem_limit\":105,\"mem_used_max\":106,\"same_pages\":107,"
              "\"pages_compacted\":108,\"huge_pages\":109,\"huge_pages_since\":110,"
              "\"pages_recompressed\":111,\"recompress_saved\":112,"
              "\"failed_reads\":113,\"failed_writes\":114,\"invalid_io\":115,"
              "\"notify_free\":116,\"writestall\":117,\"miss_free\":118,"
              "\"pages_kernel_lz4\":119,\"pages_agent_cpu\":120,\"pages_agent_gpu\":121,"
              "\"pages_same_filled\":122,\"pages_huge\":123,\"pages_parked\":124,"
              "\"parked_total\":125,\"agent_state\":\"attached\","
              "\"agent_pid\":127,\"ring\":{\"submitted\":128,\"completed\":129,"
              "\"rejected\":130,\"timeouts\":131,\"inline_fallbacks\":132,\"batches\":133,"
              "\"occupancy\":134,\"stale\":135,\"verify_failures\":136,"
              "\"agent_errors\":137,\"drained\":138,\"deferred\":139,"
              "\"unsupported\":140,\"admission_inline\":141}}");
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

TEST(JsonOutput, BdStatOnlyWhereTheDeviceHasIt) {
    StatsRecord record = fake_device_record();
    EXPECT_EQ(json_stats(record).find("bd_stat"), std::string::npos);
    record.backing = BackingStat{300, 12, 310};
    const std::string json = json_stats(record);
    EXPECT_TRUE(
        json.ends_with(",\"bd_stat\":{\"bd_count\":300,\"bd_reads\":12,\"bd_writes\":310}}"))
        << json;
    EXPECT_EQ(top_level_keys(json).count("bd_stat"), 1u);
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
    const auto keys = top_level_keys(json_agent(total));
    EXPECT_EQ(keys, (std::multiset<std::string>{
                        "num_devices", "pages_kernel_lz4", "pages_agent_cpu", "pages_agent_gpu",
                        "pages_same_filled", "pages_huge", "pages_parked", "parked_total",
                        "agent_state", "agent_pid", "ring"}));
}

// A module older than this program sends fewer attributes: those are null.
TEST(JsonOutput, MissingValuesAreNull) {
    StatsRecord empty;
    empty.num_devices = 0;
    const std::string json = json_stats(empty);
    EXPECT_TRUE(json.starts_with("{\"num_devices\":0,\"disksize\":null,\"initstate\":null,"))
        << json;
    EXPECT_NE(json.find("\"ring\":{\"submitted\":null,"), std::string::npos) << json;
}

TEST(JsonOutput, StringsAreEscaped) {
    EXPECT_EQ(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
}

}  // namespace
}  // namespace ozramctl
