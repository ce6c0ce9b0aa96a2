// A validated view of one attached ring: where each area of the mapping is.
// The accesses to the shared indices are in barrier.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "barrier.hpp"
#include "ozram/error.hpp"
#include "ozram_ring.h"

namespace ozram::ring {

// Thrown when the ring speaks a major ABI version this side does not know;
// ozramd exits with its own status for it.
class AbiVersionError : public Error {
  public:
    explicit AbiVersionError(const std::string& message) : Error(EPROTONOSUPPORT, message) {}
};

[[nodiscard]] const char* to_string(ozram_ring_verdict verdict);

// Checks a private copy of a header against the bytes actually mapped.
// Throws AbiVersionError on an unknown major version, Error(EBADMSG) on
// anything else that is wrong.
void check_header(const ozram_ring_header& header, std::uint64_t mapped_bytes);

struct RingView {
    ozram_ring_header header{};  // the checked private copy; never re-read
    ozram_ring_ctrl* ctrl = nullptr;
    ozram_ring_sqe* sq = nullptr;
    ozram_ring_cqe* cq = nullptr;
    std::uint8_t* output = nullptr;
    std::uint8_t* staging = nullptr;  // mapped read-only on the agent side

    // `writable` maps [0, staging.offset), `staging_base` the staging area.
    [[nodiscard]] static RingView locate(const ozram_ring_header& header, std::uint8_t* writable,
                                         std::uint8_t* staging_base);

    [[nodiscard]] std::uint8_t* output_slot(std::uint32_t slot) const {
        return output + static_cast<std::size_t>(slot) * OZRAM_RING_PAGE_SIZE;
    }
    [[nodiscard]] std::uint8_t* staging_slot(std::uint32_t slot) const {
        return staging + static_cast<std::size_t>(slot) * OZRAM_RING_PAGE_SIZE;
    }
    [[nodiscard]] bool stopping() const {
        return (load_acquire(ctrl->flags) & OZRAM_RING_F_STOPPING) != 0;
    }
};

}  // namespace ozram::ring
