// How ozramd reaches a ring: the kernel's /dev/ozram-ring or a userspace
// ring in shared memory with the same layout.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "ring_view.hpp"

namespace ozram::ring {

enum class Wake {
    Ready,         // SQ entries are waiting, or the producer is stopping
    TimedOut,      // nothing happened within the timeout
    ProducerGone,  // the producer closed the ring: detach
};

class RingTransport {
  public:
    virtual ~RingTransport() = default;

    // The checked layout of the attached ring.
    [[nodiscard]] virtual const RingView& view() const = 0;
    // Sleeps until there is work, the producer stops or goes, or `timeout`.
    virtual Wake wait_for_work(std::chrono::microseconds timeout) = 0;
    // Rings the producer's doorbell after AgentQueues::publish().
    virtual void notify_completions() = 0;
    // Tells a producer that offers OZRAM_RING_FEAT_ALGORITHMS which formats
    // (bit 1 << OZRAM_RING_ALG_*) the agent compresses.  Nothing by default:
    // such a producer then submits LZ4 pages only.
    virtual void declare_algorithms(std::uint32_t /*mask*/) {}
    // Tells the producer the agent leaves and unmaps the ring.  Idempotent.
    virtual void detach() = 0;
    // For log messages: what this transport is attached to.
    [[nodiscard]] virtual std::string describe() const = 0;
};

}  // namespace ozram::ring
