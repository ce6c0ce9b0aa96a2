#include "gpu/host_regions.hpp"

#include <algorithm>
#include <string>

#include "ozram/error.hpp"

namespace ozram::gpu {
namespace {

// Addresses as integers: comparing pointers into unrelated objects is
// unspecified in C++, comparing their integer values is not.
std::uintptr_t address(const std::uint8_t* p) {
    return reinterpret_cast<std::uintptr_t>(p);
}

bool overlap(const HostRegion& a, const HostRegion& b) {
    return address(a.host) < address(b.host) + b.bytes &&
           address(b.host) < address(a.host) + a.bytes;
}

}  // namespace

void HostRegions::check_can_add(const std::uint8_t* host, std::size_t bytes) const {
    if (host == nullptr || bytes == 0)
        throw Error(EINVAL, "an empty host region cannot be registered");
    if (address(host) + bytes < address(host))
        throw Error(EINVAL, "host region wraps around the address space");
    const HostRegion candidate{host, bytes, 0};
    for (const HostRegion& known : regions_) {
        if (overlap(known, candidate)) {
            throw Error(EEXIST, "host region of " + std::to_string(bytes) +
                                    " bytes overlaps one already registered");
        }
    }
}

void HostRegions::add(const HostRegion& region) {
    check_can_add(region.host, region.bytes);
    regions_.push_back(region);
}

bool HostRegions::remove(const std::uint8_t* host) {
    const auto found = std::find_if(regions_.begin(), regions_.end(),
                                    [&](const HostRegion& r) { return r.host == host; });
    if (found == regions_.end())
        return false;
    regions_.erase(found);
    return true;
}

std::optional<std::uint64_t> HostRegions::device_address(const std::uint8_t* page,
                                                         std::size_t bytes, bool writes) const {
    const std::uintptr_t begin = address(page);
    for (const HostRegion& region : regions_) {
        if (writes && !region.device_writes)
            continue;
        const std::uintptr_t start = address(region.host);
        if (begin < start || begin - start > region.bytes || bytes > region.bytes - (begin - start))
            continue;
        const std::uint64_t device = region.device + (begin - start);
        if (device % IN_PLACE_ALIGNMENT != 0)
            return std::nullopt;
        return device;
    }
    return std::nullopt;
}

}  // namespace ozram::gpu
