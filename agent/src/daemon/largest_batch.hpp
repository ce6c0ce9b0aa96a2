// The most pages one batch can hold.  Each page of a batch is in a staging
// slot of its own, so a batch never has more pages than the ring has slots,
// whatever batch_size asks: the drain loop's batches, the compressors'
// warm-up and their buffers are all sized by this.
#pragma once

#include <algorithm>
#include <cstdint>

namespace ozram::daemon {

[[nodiscard]] constexpr std::uint32_t largest_batch(std::uint32_t batch_size,
                                                    std::uint32_t ring_slots) {
    return std::clamp<std::uint32_t>(batch_size, 1, std::max<std::uint32_t>(ring_slots, 1));
}

}  // namespace ozram::daemon
