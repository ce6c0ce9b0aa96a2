// Single-page encode/decode with liblz4.
#include "cpu/page_codec.hpp"

#include <lz4.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "cpu/same_filled.hpp"
#include "ozram/error.hpp"

namespace ozram {

// LZ4 writes into `scratch`, which holds the worst case, and the block is
// copied into the page's slot only when it is kept.  With room for the whole
// block the raw/LZ4 decision is made on its true length, exactly as zram makes
// it; bounding the output at the huge threshold instead (writing straight
// into the slot) makes liblz4 give up a few bytes early.  Both measured the
// same speed on real pages.
struct PageEncoder::Lz4State {
    LZ4_stream_t stream;
    char scratch[LZ4_COMPRESSBOUND(PAGE_SIZE)];
};

PageEncoder::PageEncoder(std::size_t huge_threshold, int lz4_acceleration)
    : state_(std::make_unique<Lz4State>()),
      threshold_(huge_threshold),
      acceleration_(lz4_acceleration) {}

PageEncoder::~PageEncoder() = default;
PageEncoder::PageEncoder(PageEncoder&&) noexcept = default;
PageEncoder& PageEncoder::operator=(PageEncoder&&) noexcept = default;

CompressedPage PageEncoder::encode(const std::uint8_t* page, std::uint8_t* slot) {
    CompressedPage out;
    std::uint64_t word = 0;
    if (is_same_filled(page, &word)) {
        out.encoding = PageEncoding::SameFilled;
        out.fill_word = word;
        out.size = 0;
        return out;
    }
    // The state is reused for every page of this encoder: no allocation.  (The
    // _fastReset variant, which skips re-zeroing the 16 KiB table, made no
    // measurable difference on 4 KiB pages.)  zram's rule: a page whose
    // compressed length is above the threshold (>= huge_class_size) is stored raw.
    const int compressed = LZ4_compress_fast_extState(
        &state_->stream, reinterpret_cast<const char*>(page), state_->scratch,
        static_cast<int>(PAGE_SIZE), static_cast<int>(sizeof(state_->scratch)), acceleration_);
    if (compressed > 0 && static_cast<std::size_t>(compressed) <= threshold_) {
        out.encoding = PageEncoding::Lz4;
        out.size = static_cast<std::uint32_t>(compressed);
        std::memcpy(slot, state_->scratch, out.size);
    } else {
        out.encoding = PageEncoding::Raw;
        out.size = static_cast<std::uint32_t>(PAGE_SIZE);
        std::memcpy(slot, page, PAGE_SIZE);
    }
    return out;
}

namespace {

[[noreturn]] void corrupt(std::size_t index, const std::string& what) {
    throw Error(EIO, "page " + std::to_string(index) + ": " + what);
}

}  // namespace

void decode_page(const BatchResult& batch, std::size_t index, std::uint8_t* page) {
    const CompressedPage& entry = batch.pages[index];
    // Checked in 64 bits so that offset + size cannot wrap.
    const std::uint64_t end = std::uint64_t{entry.offset} + entry.size;
    if (end > batch.payload.size()) {
        corrupt(index, "bytes [" + std::to_string(entry.offset) + ", " + std::to_string(end) +
                           ") lie outside the payload of " + std::to_string(batch.payload.size()) +
                           " bytes");
    }
    const std::uint8_t* bytes = batch.payload.data() + entry.offset;
    switch (entry.encoding) {
        case PageEncoding::SameFilled:
            if (entry.size != 0) {
                corrupt(index, "same-filled page with " + std::to_string(entry.size) + " bytes");
            }
            fill_page(page, entry.fill_word);
            return;
        case PageEncoding::Raw:
            if (entry.size != PAGE_SIZE) {
                corrupt(index, "raw page of " + std::to_string(entry.size) + " bytes");
            }
            std::memcpy(page, bytes, PAGE_SIZE);
            return;
        case PageEncoding::Lz4: {
            const int decoded = LZ4_decompress_safe(
                reinterpret_cast<const char*>(bytes), reinterpret_cast<char*>(page),
                static_cast<int>(entry.size), static_cast<int>(PAGE_SIZE));
            if (decoded < 0) {
                corrupt(index, "malformed LZ4 block of " + std::to_string(entry.size) + " bytes");
            }
            if (static_cast<std::size_t>(decoded) != PAGE_SIZE) {
                corrupt(index, "LZ4 block decodes to " + std::to_string(decoded) +
                                   " bytes instead of " + std::to_string(PAGE_SIZE));
            }
            return;
        }
    }
    corrupt(index, "unknown encoding " + std::to_string(static_cast<int>(entry.encoding)));
}

}  // namespace ozram
