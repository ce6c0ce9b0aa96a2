// Which devices the GPU backend supports: a rule on the device's description
// alone, so that it is the same in both builds and tested in either.
#include "ozram/gpu.hpp"

namespace ozram {

namespace {

// Volta: independent thread scheduling and __match_any_sync, which the
// kernels rely on.
constexpr int MIN_COMPUTE_MAJOR = 7;

}  // namespace

bool GpuDeviceInfo::is_supported() const {
    return compute_capability.first >= MIN_COMPUTE_MAJOR;
}

}  // namespace ozram
