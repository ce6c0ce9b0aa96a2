// Which devices the GPU backend supports: a rule on the device's description
// alone, so that it is the same in both builds and tested in either.
#include "ozram/gpu.hpp"

namespace ozram {

namespace {

// The build carries sm_90 machine code and compute_90 PTX (CMakeLists.txt),
// which no older device can run or JIT; the kernels also rely on
// independent thread scheduling and __match_any_sync (Volta and newer).
constexpr int MIN_COMPUTE_MAJOR = 9;

}  // namespace

bool GpuDeviceInfo::is_supported() const {
    return compute_capability.first >= MIN_COMPUTE_MAJOR;
}

}  // namespace ozram
