// ozram-lz4-verify-fuzz: the module's LZ4 check (kmod/ozram_lz4_verify.c)
// against LZ4_decompress_safe() and a compare, liblz4's and the kernel's,
// over millions of blocks.  Every (block, page) pair gets every verdict,
// which must agree; the one exception allowed is a block with a match of
// offset 0, which the module refuses and a decoder may accept.  See --help.
#include <lz4.h>
#include <lz4hc.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "cli/arguments.hpp"
#include "cli/integer_option.hpp"
#include "cli/usage.hpp"
#include "cli/usage_error.hpp"
#include "lz4_blocks.hpp"

namespace ozram::testing {
namespace {

constexpr std::string_view PROGRAM = "ozram-lz4-verify-fuzz";

constexpr std::string_view USAGE =
    R"(Usage: ozram-lz4-verify-fuzz [--seed N] [--blocks N] [--seconds N]

Checks ozram.ko's LZ4 check (kmod/ozram_lz4_verify.c) against
LZ4_decompress_safe() followed by a compare: liblz4's, and the kernel's own
(lib/lz4 of each Linux source tree the build found), which reads ozram's
objects back.  The blocks are generated: blocks of liblz4 and liblz4hc at
many levels, mutated, cut, extended, built sequence by sequence to reach the
decoder's edge cases, and hostile ones (offsets of 0 and before the page,
lengths that overflow, runs of 255), each against its page and against pages
that differ from it by one byte.  Every verdict must agree with every
decoder's, except that a block with a match of offset 0 is refused by the
module where a decoder copies something for it; such blocks are counted.
The last line names the decoders.

  --seed N       the generator's seed (default 1); a run is repeatable
  --blocks N     stop after N blocks (default 1000000, or no limit with
                 --seconds)
  --seconds N    stop after N seconds (default 0: no time limit)
  --help         this text

Exit status: 0 when every verdict agrees, 1 on the first disagreement (the
block, the page and the seed are printed), 2 on a usage error.
)";

struct Options {
    std::uint64_t seed = 1;
    std::uint64_t blocks = 0;  // 0: none given
    std::uint64_t seconds = 0;
};

constexpr std::uint64_t DEFAULT_BLOCKS = 1000000;

// What a run did, by kind of block.
struct Tally {
    std::uint64_t blocks = 0;  // distinct blocks
    std::uint64_t checks = 0;  // (block, page) pairs
    std::uint64_t accepted = 0;
    std::uint64_t refused = 0;
    std::uint64_t zero_offset = 0;  // refused by the module, decoded by a decoder
    std::array<std::uint64_t, 6> by_kind{};
};

enum BlockKind : std::uint8_t { Valid, OneByteOff, Mutated, Cut, Built, Hostile };
constexpr std::array<const char*, 6> KIND_NAMES = {
    "valid", "one byte off", "mutated", "cut or extended", "built sequence by sequence", "hostile"};

class Disagreement : public std::exception {
  public:
    [[nodiscard]] const char* what() const noexcept override { return "disagreement"; }
};

void dump(const char* what, std::span<const std::uint8_t> bytes) {
    std::fprintf(stderr, "%s (%zu bytes):", what, bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::fprintf(stderr, "%s%02x", i % 32 ? " " : "\n  ", bytes[i]);
    }
    std::fprintf(stderr, "\n");
}

class Fuzzer {
  public:
    Fuzzer(const Options& options) : options_(options), rng_(options.seed) {}

    void run();
    [[nodiscard]] const Tally& tally() const { return tally_; }

  private:
    void round();
    void check(BlockKind kind, std::span<const std::uint8_t> block,
               std::span<const std::uint8_t> page);
    void check_block(BlockKind kind, const Bytes& block, const Bytes& page);
    void one_byte_off(const Bytes& block, const Bytes& page, bool every_byte);
    [[nodiscard]] Bytes compress(const Bytes& page);
    [[nodiscard]] Bytes mutate(Bytes block);
    [[nodiscard]] Bytes built_block(std::size_t size, Bytes& intended);
    [[nodiscard]] Bytes hostile_block(const Bytes& page);
    [[nodiscard]] std::uint32_t pick_length(std::uint32_t most);
    [[nodiscard]] bool done() const;

    Options options_;
    std::mt19937_64 rng_;
    Tally tally_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void Fuzzer::check(BlockKind kind, std::span<const std::uint8_t> block,
                   std::span<const std::uint8_t> page) {
    const bool ours = module_accepts(block, page);
    ++tally_.checks;
    ++tally_.by_kind[kind];
    ours ? ++tally_.accepted : ++tally_.refused;
    bool zero_offset = false;
    for (const Decoder& decoder : reference_decoders()) {
        const bool theirs = decoder_gives(decoder, block, page);
        if (ours == theirs) {
            continue;
        }
        if (!ours && has_zero_offset(block)) {
            zero_offset = true;
            continue;
        }
        std::fprintf(stderr,
                     "%s: disagreement on a %s block (seed %llu, block %llu): the module %s, "
                     "%s's decoder %s\n",
                     PROGRAM.data(), KIND_NAMES[kind],
                     static_cast<unsigned long long>(options_.seed),
                     static_cast<unsigned long long>(tally_.blocks), ours ? "accepts" : "refuses",
                     decoder.name, theirs ? "decodes the page" : "does not decode the page");
        dump("block", block);
        dump("page", page);
        throw Disagreement();
    }
    tally_.zero_offset += zero_offset;
}

void Fuzzer::check_block(BlockKind kind, const Bytes& block, const Bytes& page) {
    ++tally_.blocks;
    check(kind, block, page);
    // A block that decodes is also checked against what it decodes to, and
    // that page with one byte changed.
    if (kind == Valid || kind == OneByteOff) {
        return;
    }
    Bytes decoded = liblz4_decode(block, page.size());
    if (!decoded.empty() && decoded != page) {
        check(kind, block, decoded);
        decoded[rng_() % decoded.size()] ^= static_cast<std::uint8_t>(1 + rng_() % 255);
        check(kind, block, decoded);
    }
}

void Fuzzer::one_byte_off(const Bytes& block, const Bytes& page, bool every_byte) {
    Bytes other = page;
    auto at = [&](std::size_t i) {
        const std::uint8_t old = other[i];
        other[i] ^= static_cast<std::uint8_t>(1 + rng_() % 255);
        check(OneByteOff, block, other);
        other[i] = old;
    };
    if (every_byte) {
        for (std::size_t i = 0; i < page.size(); ++i) {
            at(i);
        }
        return;
    }
    // Both ends, where the end rules apply, and anywhere.
    for (std::size_t i = 0; i < std::min<std::size_t>(8, page.size()); ++i) {
        at(i);
        at(page.size() - 1 - i);
    }
    for (int n = 0; n < 16; ++n) {
        at(rng_() % page.size());
    }
}

Bytes Fuzzer::compress(const Bytes& page) {
    const int size = static_cast<int>(page.size());
    Bytes block(static_cast<std::size_t>(LZ4_compressBound(size)));
    const auto* src = reinterpret_cast<const char*>(page.data());
    auto* dst = reinterpret_cast<char*>(block.data());
    const int capacity = static_cast<int>(block.size());
    int n;
    const unsigned choice = rng_() % 16;
    if (choice == 0) {
        // liblz4hc at any level: longer matches, other parses.
        n = LZ4_compress_HC(src, dst, size, capacity, 1 + static_cast<int>(rng_() % 12));
    } else {
        static constexpr std::array<int, 8> accelerations = {1, 1, 1, 1, 2, 4, 16, 1000};
        n = LZ4_compress_fast(src, dst, size, capacity,
                              accelerations[rng_() % accelerations.size()]);
    }
    block.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return block;
}

Bytes Fuzzer::mutate(Bytes block) {
    static constexpr std::array<std::uint8_t, 9> special = {0x00, 0xff, 0xf0, 0x0f, 0x1f,
                                                            0xf1, 0x10, 0x01, 0x4f};
    const unsigned edits = 1 + rng_() % 4;
    for (unsigned e = 0; e < edits; ++e) {
        const std::size_t at = block.empty() ? 0 : rng_() % block.size();
        switch (rng_() % 10) {
            case 0:
                if (!block.empty()) {
                    block[at] ^= static_cast<std::uint8_t>(1u << (rng_() % 8));
                }
                break;
            case 1:
                if (!block.empty()) {
                    block[at] = static_cast<std::uint8_t>(rng_());
                }
                break;
            case 2:
                if (!block.empty()) {
                    block[at] = special[rng_() % special.size()];
                }
                break;
            case 3:
                block.insert(block.begin() + static_cast<std::ptrdiff_t>(at),
                             static_cast<std::uint8_t>(rng_()));
                break;
            case 4:
                if (!block.empty()) {
                    block.erase(block.begin() + static_cast<std::ptrdiff_t>(at));
                }
                break;
            case 5:
                block.resize(at);
                break;
            case 6:
                for (unsigned n = 1 + rng_() % 16; n > 0; --n) {
                    block.push_back(static_cast<std::uint8_t>(rng_()));
                }
                break;
            case 7:
                if (!block.empty()) {
                    const std::size_t n = std::min<std::size_t>(1 + rng_() % 32, block.size() - at);
                    const Bytes range(block.begin() + static_cast<std::ptrdiff_t>(at),
                                      block.begin() + static_cast<std::ptrdiff_t>(at + n));
                    block.insert(block.begin() + static_cast<std::ptrdiff_t>(rng_() % block.size()),
                                 range.begin(), range.end());
                }
                break;
            case 8:
                if (!block.empty()) {
                    block[at] = static_cast<std::uint8_t>(block[at] + (rng_() % 2 ? 1 : -1));
                }
                break;
            default:
                // An offset's two bytes, or what might be: 0, or far back.
                if (block.size() >= 2) {
                    const std::size_t i = at == block.size() - 1 ? at - 1 : at;
                    const bool zero = rng_() % 2;
                    block[i] = zero ? 0 : 0xff;
                    block[i + 1] = zero ? 0 : 0xff;
                }
                break;
        }
    }
    return block;
}

// Mostly short, as compressors write them; sometimes at the nibble's edges
// and far past them.
std::uint32_t Fuzzer::pick_length(std::uint32_t most) {
    std::uint32_t n;
    switch (rng_() % 8) {
        case 0:
            n = 14 + rng_() % 4;  // 14 to 17: around the nibble's 15
            break;
        case 1:
            n = 255 + 14 + rng_() % 4;  // around the first length byte's end
            break;
        case 2:
            n = rng_() % (most + 1);
            break;
        default:
            n = rng_() % 16;
            break;
    }
    return std::min(n, most);
}

// A block written sequence by sequence for a page of `size` bytes, with
// `intended` set to what its sequences say the page is (literals random,
// matches copied forward).  The end is drawn to meet the decoder's end
// tests or miss them by a little: the last match ending anywhere in the last
// 12 bytes, the last literals exact or one off, and now and then an offset
// of 0 or one reaching before the page.
Bytes Fuzzer::built_block(std::size_t size, Bytes& intended) {
    BlockWriter writer;
    intended.assign(size, 0);
    const unsigned alphabet = 1 + rng_() % 255;
    auto literal = [&] { return static_cast<std::uint8_t>('A' + rng_() % alphabet); };
    std::size_t pos = 0;
    while (true) {
        const std::size_t left = size - pos;
        // The last sequence: literals to the end, or one too many or few.
        if (left <= 12 || rng_() % 400 == 0) {
            std::size_t n = left;
            const unsigned miss = rng_() % 16;
            if (miss == 0 && n > 0) {
                --n;
            } else if (miss == 1) {
                ++n;
            }
            Bytes literals(n);
            for (std::size_t i = 0; i < n; ++i) {
                literals[i] = literal();
                if (pos + i < size) {
                    intended[pos + i] = literals[i];
                }
            }
            writer.last(literals);
            return writer.bytes();
        }
        std::uint32_t nlit = pick_length(static_cast<std::uint32_t>(left));
        if (pos == 0 && nlit == 0 && rng_() % 64) {
            nlit = 1;  // a match needs a byte before it
        }
        // From 28 to 44 bytes before the end, often a sequence the size of
        // the decoder's shortcut (at most 14 literals, a match of at most
        // 18) ending in the last 12 bytes, where only the shortcut lets a
        // match end.
        std::uint32_t shortcut_match = 0;
        if (left >= 28 && left <= 44 && rng_() % 2) {
            const auto span = static_cast<std::uint32_t>(left - rng_() % 13);
            if (span >= 4 && span <= 32) {
                const std::uint32_t low = span > 18 ? span - 18 : 0;
                const std::uint32_t high = std::min<std::uint32_t>(14, span - 4);
                nlit = low + static_cast<std::uint32_t>(rng_() % (high - low + 1));
                shortcut_match = span - nlit;
            }
        }
        Bytes literals(nlit);
        for (auto& b : literals) {
            b = literal();
        }
        std::copy(literals.begin(), literals.end(),
                  intended.begin() + static_cast<std::ptrdiff_t>(pos));
        pos += nlit;
        const std::size_t room = size - pos;
        // The match: often to end the page exactly or within its last 12
        // bytes, otherwise of any length that fits.
        std::uint32_t length;
        if (shortcut_match) {
            length = shortcut_match;
        } else if (room > 48 && rng_() % 4 == 0) {
            // Leave 28 to 44 bytes: the place for the shortcut's last match.
            length = static_cast<std::uint32_t>(room - 28 - rng_() % 17);
        } else if (room >= 4 && rng_() % 4 == 0) {
            const std::size_t end_gap = rng_() % 13;
            length = static_cast<std::uint32_t>(room > end_gap + 4 ? room - end_gap : 4);
        } else {
            length = 4 + pick_length(room > 4 ? static_cast<std::uint32_t>(room - 4) : 0);
        }
        // Now and then an offset of 0 or one reaching before the page:
        // the block must be refused, whatever the rest.
        std::uint32_t offset;
        if (pos == 0 || rng_() % 1024 == 0) {
            offset = rng_() % 2 ? 0 : static_cast<std::uint32_t>(pos + 1 + rng_() % 4);
        } else if (shortcut_match && pos >= 8) {
            offset = 8 + static_cast<std::uint32_t>(rng_() % std::min<std::size_t>(pos - 7, 65528));
        } else if (const unsigned how = rng_() % 16; how < 6) {
            offset = 1 + static_cast<std::uint32_t>(rng_() % std::min<std::size_t>(pos, 8));
        } else if (how == 6) {
            offset = static_cast<std::uint32_t>(pos);
        } else {
            offset = 1 + static_cast<std::uint32_t>(rng_() % std::min<std::size_t>(pos, 65535));
        }
        offset = std::min<std::uint32_t>(offset, 65535);
        writer.sequence(literals, offset, length);
        // Copy forward as the decoder does; a bad offset leaves the
        // intended page as it is: the block must be refused anyway.
        for (std::uint32_t i = 0; i < length && pos < size; ++i, ++pos) {
            if (offset != 0 && offset <= pos) {
                intended[pos] = intended[pos - offset];
            }
        }
        if (pos >= size) {
            // The match ran to or past the end: a token of no literals ends
            // the block (what the decoder's shortcut may accept).
            writer.raw(std::vector<std::uint8_t>{0x00});
            return writer.bytes();
        }
    }
}

Bytes Fuzzer::hostile_block(const Bytes& page) {
    BlockWriter writer;
    const std::size_t size = page.size();
    switch (rng_() % 6) {
        case 0: {
            // Random bytes of a random length.
            Bytes noise(rng_() % (size + 64));
            for (auto& b : noise) {
                b = static_cast<std::uint8_t>(rng_());
            }
            return noise;
        }
        case 1: {
            // A literal length of 255s, running to the end or not.
            Bytes block{static_cast<std::uint8_t>(0xf0 | rng_() % 16)};
            block.resize(1 + rng_() % (size + 32), 255);
            if (rng_() % 2) {
                block.push_back(static_cast<std::uint8_t>(rng_()));
            }
            return block;
        }
        case 2: {
            // A match length of 255s that adds up past the page, or wraps a
            // 32-bit sum for a decoder that does not stop.
            const std::size_t first = std::min<std::size_t>(4, size);
            writer.sequence(std::span(page).first(first), 1, 19);
            Bytes block = writer.bytes();
            block.back() = 255;
            block.insert(block.end(), rng_() % 3 == 0 ? 16843010 / 255 + rng_() % 64 : rng_() % 600,
                         255);
            block.push_back(static_cast<std::uint8_t>(rng_()));
            block.push_back(0x50);
            block.insert(block.end(),
                         page.end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(5, size)),
                         page.end());
            return block;
        }
        case 3: {
            // Offsets of 0 and before the page, over a page's real bytes.
            const std::size_t first = std::min<std::size_t>(1 + rng_() % 64, size);
            const std::uint32_t offset =
                rng_() % 2 ? 0 : static_cast<std::uint32_t>(first + 1 + rng_() % 65000);
            writer.sequence(std::span(page).first(first), std::min<std::uint32_t>(offset, 65535),
                            4 + rng_() % 64);
            const std::size_t rest = std::min<std::size_t>(size - first, 64);
            writer.last(std::span(page).subspan(size - rest));
            return writer.bytes();
        }
        case 4: {
            // Tokens of 0xff and 0x0f with short bodies.
            Bytes block;
            for (std::size_t n = 1 + rng_() % 64; n > 0; --n) {
                block.push_back(rng_() % 2 ? 0xff : 0x0f);
                for (unsigned k = rng_() % 4; k > 0; --k) {
                    block.push_back(static_cast<std::uint8_t>(rng_()));
                }
            }
            return block;
        }
        default: {
            // The page's own bytes as literals, with a bad length somewhere.
            Bytes block = BlockWriter().last(page).bytes();
            block[rng_() % std::min<std::size_t>(block.size(), 20)] =
                static_cast<std::uint8_t>(rng_());
            return block;
        }
    }
}

bool Fuzzer::done() const {
    if (options_.blocks != 0 && tally_.blocks >= options_.blocks) {
        return true;
    }
    if (options_.seconds == 0) {
        return false;
    }
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    return elapsed >= std::chrono::seconds(options_.seconds);
}

void Fuzzer::round() {
    // Mostly whole pages; sometimes a few bytes to 300, where the decoder's
    // end tests all meet near the start.
    const std::size_t size = rng_() % 8 == 0 ? 1 + rng_() % 300 : PAGE;
    const Bytes page = make_page(static_cast<PageKind>(rng_() % PAGE_KINDS), rng_, size);
    const Bytes block = compress(page);
    check_block(Valid, block, page);
    one_byte_off(block, page, rng_() % 64 == 0);

    for (int n = 0; n < 48; ++n) {
        check_block(Mutated, mutate(block), page);
    }
    for (int n = 0; n < 6; ++n) {
        Bytes cut = block;
        if (rng_() % 2) {
            cut.resize(rng_() % cut.size());
        } else {
            for (unsigned k = 1 + rng_() % 8; k > 0; --k) {
                cut.push_back(static_cast<std::uint8_t>(rng_() % 4 ? 0 : rng_()));
            }
        }
        check_block(Cut, cut, page);
    }
    for (int n = 0; n < 24; ++n) {
        Bytes intended;
        const Bytes built = built_block(size, intended);
        check_block(Built, built, intended);
        check_block(Built, mutate(built), intended);
    }
    for (int n = 0; n < 8; ++n) {
        check_block(Hostile, hostile_block(page), page);
    }
}

void Fuzzer::run() {
    while (!done()) {
        round();
    }
}

Options parse(int argc, char** argv, bool& help) {
    Options options;
    const std::vector<std::string> words(argv + 1, argv + argc);
    cli::Arguments args(words);
    while (args.next()) {
        const auto name = args.name();
        if (!args.is_option()) {
            args.reject();
        } else if (name == "--help" || name == "-h") {
            args.flag();
            help = true;
        } else if (name == "--seed") {
            options.seed = cli::parse_integer_option<std::uint64_t>(name, args.value(), 0);
        } else if (name == "--blocks") {
            options.blocks = cli::parse_integer_option<std::uint64_t>(name, args.value(), 1);
        } else if (name == "--seconds") {
            options.seconds = cli::parse_integer_option<std::uint64_t>(name, args.value(), 0);
        } else {
            args.reject();
        }
    }
    return options;
}

int run(int argc, char** argv) {
    bool help = false;
    Options options;
    try {
        options = parse(argc, argv, help);
    } catch (const cli::UsageError& e) {
        return cli::usage_error(PROGRAM, e.what());
    }
    if (help) {
        return cli::print_usage(USAGE);
    }
    if (options.blocks == 0 && options.seconds == 0) {
        options.blocks = DEFAULT_BLOCKS;
    }
    Fuzzer fuzzer(options);
    const auto start = std::chrono::steady_clock::now();
    int status = 0;
    try {
        fuzzer.run();
    } catch (const Disagreement&) {
        status = 1;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Tally& t = fuzzer.tally();
    std::printf("%s: seed %llu: %llu blocks, %llu checks in %.1f s: %llu accepted, %llu refused\n",
                PROGRAM.data(), static_cast<unsigned long long>(options.seed),
                static_cast<unsigned long long>(t.blocks),
                static_cast<unsigned long long>(t.checks), seconds,
                static_cast<unsigned long long>(t.accepted),
                static_cast<unsigned long long>(t.refused));
    for (std::size_t k = 0; k < KIND_NAMES.size(); ++k) {
        std::printf("  %-28s %12llu checks\n", KIND_NAMES[k],
                    static_cast<unsigned long long>(t.by_kind[k]));
    }
    std::printf("  refused for an offset of 0 that a decoder decodes: %llu\n",
                static_cast<unsigned long long>(t.zero_offset));
    std::string decoders;
    for (const Decoder& decoder : reference_decoders()) {
        decoders += decoders.empty() ? "" : ", ";
        decoders += decoder.name;
    }
    if (kernel_decoders().empty()) {
        decoders += " (no kernel's decoder was built: no linux-source tree was found)";
    }
    std::printf("%s\n",
                status ? "a verdict disagrees"
                       : ("every other verdict agrees with the decoders of " + decoders).c_str());
    return status;
}

}  // namespace
}  // namespace ozram::testing

int main(int argc, char** argv) {
    return ozram::testing::run(argc, argv);
}
