#include "completion_check.hpp"

#include <lz4.h>

#include <cstring>

extern "C" {
#include "ozram_ring_slots.h"
}

namespace ozram::ringload {

CompletionCheck::CompletionCheck() : copy_(OZRAM_RING_PAGE_SIZE), decoded_(OZRAM_RING_PAGE_SIZE) {}

namespace {

// The decoder of other formats than LZ4; this producer submits LZ4 pages
// only, which the slot rules check with the module's LZ4 walk.
int decode_lz4(void* /*ctx*/, const void* src, unsigned int len, void* dst) {
    const int restored =
        LZ4_decompress_safe(static_cast<const char*>(src), static_cast<char*>(dst),
                            static_cast<int>(len), static_cast<int>(OZRAM_RING_PAGE_SIZE));
    return restored == static_cast<int>(OZRAM_RING_PAGE_SIZE) ? 0 : -1;
}

}  // namespace

bool CompletionCheck::restores(const ozram_ring_cqe& cqe, const std::uint8_t* output_slot,
                               const std::uint8_t* original) {
    // The slot rules accepted the length for the encoding: at most a page.
    std::memcpy(copy_.data(), output_slot, cqe.length);
    return ozram_ring_result_matches(&cqe, OZRAM_RING_ALG_LZ4, copy_.data(), original,
                                     decoded_.data(), true, decode_lz4, nullptr);
}

}  // namespace ozram::ringload
