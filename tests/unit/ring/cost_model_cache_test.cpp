// ozramd's cost-model cache and the cost.* settings applied over it.
#include "cost_model_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "config.hpp"
#include "ozram/cost_model.hpp"

namespace {

using ozram::CostModel;
using ozram::daemon::ConfigError;
using ozram::daemon::load_cost_model;

class CostModelCache : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("ozram-cost-cache-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir_);
        path_ = (dir_ / "cost-model").string();
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    void write(const std::string& text) const { std::ofstream(path_) << text; }
    [[nodiscard]] std::string read() const {
        std::ifstream file(path_);
        return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    }

    std::filesystem::path dir_;
    std::string path_;
};

// A model without a GPU, as a host without one caches it.
std::string model_without_a_gpu() {
    CostModel model = CostModel::defaults();
    model.gpu.reset();
    return model.serialize();
}

TEST_F(CostModelCache, OverridesApplyOverTheCache) {
    write(model_without_a_gpu());
    const CostModel model = load_cost_model(path_, false, "cpu.per_page_ns = 2500\n");
    EXPECT_EQ(model.cpu.per_page_ns, 2500);
    EXPECT_EQ(read(), model_without_a_gpu()) << "the cache is as it was";
}

// One GPU rate on a host whose model has no GPU makes no model: that is the
// configuration's error, and the good cache stays, not recalibrated.
TEST_F(CostModelCache, OverridesThatMakeNoModelAreAConfigErrorAndKeepTheCache) {
    const std::string cached = model_without_a_gpu();
    write(cached);
    try {
        (void)load_cost_model(path_, false, "gpu.fixed_ns = 40000\n");
        FAIL() << "accepted a GPU's rate alone on a model without a GPU";
    } catch (const ConfigError& error) {
        EXPECT_NE(std::string(error.what()).find("cost.*"), std::string::npos) << error.what();
    }
    EXPECT_EQ(read(), cached);
}

}  // namespace
