// The producer's check of a completion's bytes, the kernel's own
// (ozram_ring_result_matches() in kmod/ozram_ring_slots.c): the output slot is
// copied out of the shared mapping first, then its LZ4 block is checked
// against the page that was submitted by the module's LZ4 walk.
#pragma once

#include <cstdint>
#include <vector>

#include "ozram_ring.h"

namespace ozram::ringload {

class CompletionCheck {
  public:
    CompletionCheck();

    // Whether `cqe` (already accepted by ozram_ring_check_cqe() with status
    // OK) and the output slot restore exactly `original`, PAGE_SIZE bytes.
    [[nodiscard]] bool restores(const ozram_ring_cqe& cqe, const std::uint8_t* output_slot,
                                const std::uint8_t* original);

  private:
    std::vector<std::uint8_t> copy_;     // private copy of the output slot
    std::vector<std::uint8_t> decoded_;  // scratch for the decoding
};

}  // namespace ozram::ringload
