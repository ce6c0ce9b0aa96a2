#include "completion_check.hpp"

#include <cstring>

extern "C" {
#include "ozram_ring_slots.h"
}

namespace ozram::ringload {

CompletionCheck::CompletionCheck() : copy_(OZRAM_RING_PAGE_SIZE), decoded_(OZRAM_RING_PAGE_SIZE) {}

bool CompletionCheck::restores(const ozram_ring_cqe& cqe, const std::uint8_t* output_slot,
                               const std::uint8_t* original) {
    // The slot rules accepted the length for the encoding: at most a page.
    std::memcpy(copy_.data(), output_slot, cqe.length);
    return ozram_ring_result_matches(&cqe, copy_.data(), original, decoded_.data(), true);
}

}  // namespace ozram::ringload
