// Single-page encode/decode, in any of the library's formats.
#include "cpu/page_codec.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "cpu/block_codec.hpp"
#include "cpu/same_filled.hpp"
#include "ozram/error.hpp"

namespace ozram {

// The codec writes into `scratch`, which holds any format's worst case, and
// the block is copied into the page's slot only when it is kept.  With room
// for the whole block the raw/compressed decision is made on its true length,
// exactly as zram makes it; bounding the output at the huge threshold instead
// (writing straight into the slot) makes liblz4 give up a few bytes early.
// Both measured the same speed on real pages.
struct PageEncoder::Scratch {
    std::uint8_t bytes[BLOCK_BOUND];
};

PageEncoder::PageEncoder(std::size_t huge_threshold, int lz4_acceleration, Algorithm algorithm,
                         int level)
    : codec_(make_block_codec(algorithm, lz4_acceleration, level)),
      scratch_(std::make_unique<Scratch>()),
      threshold_(huge_threshold),
      compressed_(algorithm == Algorithm::Lz4 ? PageEncoding::Lz4 : PageEncoding::Compressed) {}

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
    // zram's rule: a page whose compressed length is above the threshold
    // (>= huge_class_size) is stored raw.
    const std::size_t compressed = codec_->compress(page, scratch_->bytes);
    if (compressed <= threshold_) {
        out.encoding = compressed_;
        out.size = static_cast<std::uint32_t>(compressed);
        std::memcpy(slot, scratch_->bytes, out.size);
    } else {
        out.encoding = PageEncoding::Raw;
        out.size = static_cast<std::uint32_t>(PAGE_SIZE);
    }
    return out;
}

namespace {

[[noreturn]] void corrupt(std::size_t index, const std::string& what) {
    throw Error(EIO, "page " + std::to_string(index) + ": " + what);
}

}  // namespace

void decode_page(const BatchResult& batch, std::size_t index, std::uint8_t* page,
                 Algorithm algorithm) {
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
        case PageEncoding::Lz4:
        case PageEncoding::Compressed: {
            // An LZ4 entry is LZ4 whatever the batch's algorithm.
            const Algorithm format =
                entry.encoding == PageEncoding::Lz4 ? Algorithm::Lz4 : algorithm;
            if (!decompress_block(format, bytes, entry.size, page)) {
                corrupt(index, std::string(to_string(format)) + " block of " +
                                   std::to_string(entry.size) + " bytes does not decode to a page");
            }
            return;
        }
    }
    corrupt(index, "unknown encoding " + std::to_string(static_cast<int>(entry.encoding)));
}

}  // namespace ozram
