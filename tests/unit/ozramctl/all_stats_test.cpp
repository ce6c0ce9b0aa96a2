#include "all_stats.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <optional>
#include <vector>

#include "ozram/error.hpp"

namespace ozramctl {
namespace {

StatsRecord listed(std::optional<std::uint32_t> id) {
    StatsRecord record;
    record.dev_id = id;
    return record;
}

int error_of(const std::vector<StatsRecord>& devices,
             const std::function<StatsRecord(std::optional<std::uint32_t>)>& stats) {
    try {
        (void)gather_all_stats(devices, stats);
    } catch (const ozram::Error& error) {
        return error.code().value();
    }
    return 0;
}

// A device listed and then hot-removed before its own request is left out;
// the others and the total are kept.
TEST(AllStats, ADeviceGoneSinceTheListIsLeftOut) {
    std::vector<std::optional<std::uint32_t>> asked;
    const AllStats all =
        gather_all_stats({listed(0), listed(1), listed(2)}, [&](std::optional<std::uint32_t> id) {
            asked.push_back(id);
            if (id == 1U) {
                throw ozram::Error(ENODEV, "no such device: ozram1");
            }
            return listed(id);
        });
    ASSERT_EQ(all.devices.size(), 2U);
    EXPECT_EQ(all.devices[0].dev_id, 0U);
    EXPECT_EQ(all.devices[1].dev_id, 2U);
    EXPECT_FALSE(all.total.dev_id);
    EXPECT_EQ(asked, (std::vector<std::optional<std::uint32_t>>{0U, 1U, 2U, std::nullopt}));
}

TEST(AllStats, OtherErrorsEndIt) {
    EXPECT_EQ(error_of({listed(0)},
                       [](std::optional<std::uint32_t>) -> StatsRecord {
                           throw ozram::Error(EPERM, "not allowed");
                       }),
              EPERM);
    // The total's ENODEV is not a device gone: it ends it too.
    EXPECT_EQ(error_of({},
                       [](std::optional<std::uint32_t>) -> StatsRecord {
                           throw ozram::Error(ENODEV, "no module");
                       }),
              ENODEV);
}

// A listed device without its number would be asked for as the total.
TEST(AllStats, AListedDeviceWithoutItsNumberIsMalformed) {
    bool asked = false;
    EXPECT_EQ(error_of({listed(std::nullopt)},
                       [&](std::optional<std::uint32_t>) {
                           asked = true;
                           return StatsRecord{};
                       }),
              EPROTO);
    EXPECT_FALSE(asked);
}

}  // namespace
}  // namespace ozramctl
