// A build without CUDA: the GPU API exists and says ENODEV everywhere.
#include <gtest/gtest.h>

#include "ozram/error.hpp"
#include "ozram/gpu.hpp"

namespace ozram {
namespace {

template <class Call>
void expect_enodev(Call&& call) {
    try {
        call();
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_EQ(error.code().value(), ENODEV);
        EXPECT_STREQ(error.what(), "built without CUDA support: No such device");
    }
}

TEST(GpuWithoutCuda, NothingIsAvailable) {
    EXPECT_FALSE(gpu_available());
    expect_enodev([] { (void)GpuDeviceInfo::query(0); });
    expect_enodev([] { (void)GpuBatchCompressor::create({}); });
}

TEST(GpuWithoutCuda, SupportedDeviceRuleStillWorks) {
    GpuDeviceInfo info;
    info.compute_capability = {9, 0};
    EXPECT_TRUE(info.is_supported());
    info.compute_capability = {10, 0};
    EXPECT_TRUE(info.is_supported()) << "newer chips JIT the compute_90 PTX";
    info.compute_capability = {8, 9};
    EXPECT_FALSE(info.is_supported()) << "the build carries no code for Ada";
    info.compute_capability = {7, 0};
    EXPECT_FALSE(info.is_supported());
}

}  // namespace
}  // namespace ozram
