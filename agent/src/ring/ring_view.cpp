#include "ring_view.hpp"

namespace ozram::ring {

const char* to_string(ozram_ring_verdict verdict) {
    switch (verdict) {
        case OZRAM_RING_OK:
            return "ok";
        case OZRAM_RING_BAD_MAGIC:
            return "bad magic";
        case OZRAM_RING_BAD_VERSION:
            return "unsupported ABI version";
        case OZRAM_RING_BAD_GEOMETRY:
            return "bad geometry";
        case OZRAM_RING_BAD_AREA:
            return "area misaligned, short or outside the mapping";
        case OZRAM_RING_BAD_SLOT:
            return "slot out of range";
        case OZRAM_RING_STALE:
            return "stale generation";
        case OZRAM_RING_BAD_STATUS:
            return "unknown status";
        case OZRAM_RING_BAD_ENCODING:
            return "unknown encoding";
        case OZRAM_RING_BAD_LENGTH:
            return "bad length";
        case OZRAM_RING_BAD_FLAGS:
            return "unknown flags";
    }
    return "unknown verdict";
}

void check_header(const ozram_ring_header& header, std::uint64_t mapped_bytes) {
    const ozram_ring_verdict verdict = ozram_ring_check_header(&header, mapped_bytes);
    if (verdict == OZRAM_RING_BAD_VERSION) {
        throw AbiVersionError("ring ABI version " + std::to_string(header.abi_major) + "." +
                              std::to_string(header.abi_minor) +
                              " is not supported (this build speaks " +
                              std::to_string(OZRAM_RING_ABI_MAJOR) + ".x)");
    }
    if (verdict != OZRAM_RING_OK) {
        throw Error(EBADMSG, std::string("ring header rejected: ") + to_string(verdict));
    }
}

RingView RingView::locate(const ozram_ring_header& header, std::uint8_t* writable,
                          std::uint8_t* staging_base) {
    RingView view;
    view.header = header;
    view.ctrl = reinterpret_cast<ozram_ring_ctrl*>(writable + header.ctrl.offset);
    view.sq = reinterpret_cast<ozram_ring_sqe*>(writable + header.sq.offset);
    view.cq = reinterpret_cast<ozram_ring_cqe*>(writable + header.cq.offset);
    view.output = writable + header.output.offset;
    view.staging = staging_base;
    return view;
}

}  // namespace ozram::ring
