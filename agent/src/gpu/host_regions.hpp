// Host memory the device reads, or writes, in place: regions registered with
// the CUDA driver (page-locked and mapped into the device's address space),
// each with the device address of its first byte.  The pipeline asks, page
// by page, whether the device can reach a page there instead of the host
// copying it through a pinned buffer.  Plain C++, so that the lookup is
// tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ozram::gpu {

// The kernels move pages in 16-byte accesses: a page read or written in
// place must start on a 16-byte boundary of device memory.
inline constexpr std::uint64_t IN_PLACE_ALIGNMENT = 16;

struct HostRegion {
    const std::uint8_t* host = nullptr;
    std::size_t bytes = 0;
    std::uint64_t device = 0;    // device address of host[0]
    bool device_writes = false;  // registered for the device to write too
};

class HostRegions {
  public:
    // Throws Error(EINVAL) for an empty region and Error(EEXIST) for one
    // that overlaps a region already known.
    void add(const HostRegion& region);
    // The checks of add(), without adding: called before the driver is
    // asked to register the memory.
    void check_can_add(const std::uint8_t* host, std::size_t bytes) const;
    // Forgets the region that starts at `host`; false when there is none.
    bool remove(const std::uint8_t* host);
    // The device address of [page, page + bytes) when the whole range lies
    // inside one region (one the device may write, for `writes`) and the
    // address suits the kernels.
    [[nodiscard]] std::optional<std::uint64_t> device_address(const std::uint8_t* page,
                                                              std::size_t bytes,
                                                              bool writes = false) const;

    [[nodiscard]] std::span<const HostRegion> regions() const { return regions_; }
    [[nodiscard]] bool empty() const { return regions_.empty(); }

  private:
    std::vector<HostRegion> regions_;  // a handful at most: searched in order
};

}  // namespace ozram::gpu
