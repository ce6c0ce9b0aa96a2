// LZ4 blocks and pages for testing the module's LZ4 check
// (kmod/ozram_lz4_verify.c) against the decoders: a writer of sequences
// chosen by hand, pages of the kinds a process holds, and the reference
// verdicts of liblz4 and of the kernel's own decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace ozram::testing {

using Bytes = std::vector<std::uint8_t>;

inline constexpr std::size_t PAGE = 4096;

// Writes an LZ4 block sequence by sequence, with the lengths encoded as the
// format encodes them (a nibble, then bytes of 255 and a remainder).  It
// checks nothing: a test chooses what it writes, rules broken included.
class BlockWriter {
  public:
    // A sequence: `literals`, then a match of `length` bytes (at least 4)
    // `offset` bytes back.
    BlockWriter& sequence(std::span<const std::uint8_t> literals, std::uint32_t offset,
                          std::uint32_t length);
    // The last sequence: literals only.
    BlockWriter& last(std::span<const std::uint8_t> literals);
    // Bytes as they are: a hand-made token, garbage, a cut.
    BlockWriter& raw(std::span<const std::uint8_t> bytes);

    [[nodiscard]] const Bytes& bytes() const { return bytes_; }

  private:
    void length_bytes(std::uint32_t rest);
    Bytes bytes_;
};

// A decoder with LZ4_decompress_safe()'s contract, and whose it is.
struct Decoder {
    const char* name;
    int (*decompress_safe)(const char* src, char* dst, int src_size, int dst_capacity);
};

// The decoders the module's verdicts are held against: liblz4's, then the
// kernel's own (lib/lz4 of each kernel whose source the build found, see
// CMakeLists.txt), which reads ozram's objects back.
[[nodiscard]] std::span<const Decoder> reference_decoders();

// The kernels' decoders alone: empty when the build found no kernel source.
[[nodiscard]] std::span<const Decoder> kernel_decoders();

// A reference verdict: whether `decoder` decodes `block` into exactly
// `page.size()` bytes equal to `page`.
[[nodiscard]] bool decoder_gives(const Decoder& decoder, std::span<const std::uint8_t> block,
                                 std::span<const std::uint8_t> page);

// What `decoder` makes of `block` with room for `size` bytes: the bytes
// when it returns exactly `size`, else empty.
[[nodiscard]] Bytes decoder_decode(const Decoder& decoder, std::span<const std::uint8_t> block,
                                   std::size_t size);

// decoder_gives() and decoder_decode() with liblz4's decoder.
[[nodiscard]] bool liblz4_gives(std::span<const std::uint8_t> block,
                                std::span<const std::uint8_t> page);
[[nodiscard]] Bytes liblz4_decode(std::span<const std::uint8_t> block, std::size_t size);

// The module's verdict (ozram_lz4_verify()).
[[nodiscard]] bool module_accepts(std::span<const std::uint8_t> block,
                                  std::span<const std::uint8_t> page);

// Whether a block that liblz4 decodes holds a match of offset 0: the format
// forbids it, the decoders copy zeros for it, and the module refuses it.
// Walks the sequences as the format lays them out; stops at the first
// length that runs past the block.
[[nodiscard]] bool has_zero_offset(std::span<const std::uint8_t> block);

// LZ4_compress_default()'s block of a page.
[[nodiscard]] Bytes lz4_compress(std::span<const std::uint8_t> page);

// The kinds of page the tests draw from: zeros, one repeated word, text,
// records of pointers and small integers, short periods with noise,
// random bytes, a few symbols, and halves of two kinds.
enum class PageKind : std::uint8_t {
    Zero,
    SameFilled,
    Text,
    Records,
    Periodic,
    Random,
    FewSymbols,
    Sparse,
    Mixed,
};
inline constexpr int PAGE_KINDS = 9;

[[nodiscard]] Bytes make_page(PageKind kind, std::mt19937_64& rng, std::size_t size = PAGE);

}  // namespace ozram::testing
