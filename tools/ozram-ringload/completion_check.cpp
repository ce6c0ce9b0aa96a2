#include "completion_check.hpp"

#include <lz4.h>

#include <cstring>

namespace ozram::ringload {

CompletionCheck::CompletionCheck() : copy_(OZRAM_RING_PAGE_SIZE), decoded_(OZRAM_RING_PAGE_SIZE) {}

bool CompletionCheck::restores(const ozram_ring_cqe& cqe, const std::uint8_t* output_slot,
                               const std::uint8_t* original) {
    constexpr int PAGE = static_cast<int>(OZRAM_RING_PAGE_SIZE);
    switch (cqe.encoding) {
        case OZRAM_RING_ENC_LZ4: {
            std::memcpy(copy_.data(), output_slot, cqe.length);
            const int restored = LZ4_decompress_safe(reinterpret_cast<const char*>(copy_.data()),
                                                     reinterpret_cast<char*>(decoded_.data()),
                                                     static_cast<int>(cqe.length), PAGE);
            return restored == PAGE && std::memcmp(decoded_.data(), original, PAGE) == 0;
        }
        case OZRAM_RING_ENC_RAW:
            std::memcpy(copy_.data(), output_slot, PAGE);
            return std::memcmp(copy_.data(), original, PAGE) == 0;
        case OZRAM_RING_ENC_SAME_FILLED:
            for (std::size_t at = 0; at < OZRAM_RING_PAGE_SIZE; at += sizeof(cqe.fill)) {
                std::uint64_t word;
                std::memcpy(&word, original + at, sizeof(word));
                if (word != cqe.fill) {
                    return false;
                }
            }
            return true;
        default:
            return false;
    }
}

}  // namespace ozram::ringload
