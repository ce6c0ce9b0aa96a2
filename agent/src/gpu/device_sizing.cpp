// Sizing rules that depend only on the device's description (both builds).
#include <algorithm>

#include "ozram/gpu.hpp"

namespace ozram {

namespace {

// One page per warp; the compressor's 12 KiB of shared memory per warp lets
// 16 warps (4 blocks of 4) reside on an SM with 228 KiB (Hopper).
constexpr std::size_t RESIDENT_PAGES_PER_SM = 16;
// Waves of resident warps per batch: enough that the tail of the last wave
// and the launch cost are small next to the batch.  To be checked against
// measurement (Documentation/gpu.md).
constexpr std::size_t WAVES_PER_BATCH = 8;
constexpr std::size_t BATCH_GRANULE = 256;
constexpr std::size_t MIN_BATCH = 256;
constexpr std::size_t MAX_BATCH = 65536;
// Volta: independent thread scheduling and __match_any_sync, which the
// kernels rely on.
constexpr int MIN_COMPUTE_MAJOR = 7;

}  // namespace

std::size_t GpuDeviceInfo::optimal_batch_size() const {
    const std::size_t sms = static_cast<std::size_t>(std::max(multiprocessor_count, 1));
    const std::size_t pages = sms * RESIDENT_PAGES_PER_SM * WAVES_PER_BATCH;
    const std::size_t rounded = (pages + BATCH_GRANULE - 1) / BATCH_GRANULE * BATCH_GRANULE;
    return std::clamp(rounded, MIN_BATCH, MAX_BATCH);
}

bool GpuDeviceInfo::is_supported() const {
    return compute_capability.first >= MIN_COMPUTE_MAJOR;
}

}  // namespace ozram
