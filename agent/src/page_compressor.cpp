// PageCompressor's default batches in flight: one, run inside submit().
#include <limits>
#include <string>
#include <utility>

#include "ozram/backend.hpp"
#include "ozram/error.hpp"

namespace ozram {

PageCompressor::Ticket PageCompressor::submit(std::span<const std::uint8_t* const> pages,
                                              std::span<std::uint8_t* const> outputs,
                                              BatchResult& out) {
    if (last_pending_) {
        throw Error(EBUSY,
                    "a batch is in flight already (ticket " + std::to_string(last_ticket_) + ")");
    }
    last_error_ = nullptr;
    try {
        compress_into(pages, outputs, out);
    } catch (...) {
        last_error_ = std::current_exception();
    }
    last_pending_ = true;
    return ++last_ticket_;
}

bool PageCompressor::poll(Ticket ticket) {
    if (!last_pending_ || ticket != last_ticket_)
        throw Error(EINVAL, "no batch in flight has ticket " + std::to_string(ticket));
    return true;
}

void PageCompressor::complete(Ticket ticket) {
    if (!last_pending_ || ticket != last_ticket_)
        throw Error(EINVAL, "no batch in flight has ticket " + std::to_string(ticket));
    last_pending_ = false;
    if (last_error_)
        std::rethrow_exception(std::exchange(last_error_, nullptr));
}

std::size_t PageCompressor::max_batch_pages() const {
    // A batch's offsets are 32-bit (CompressedPage::offset).
    return std::numeric_limits<std::uint32_t>::max() / PAGE_SIZE;
}

}  // namespace ozram
