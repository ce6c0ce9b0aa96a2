// Malformed LZ4 blocks for fuzzing a decoder: well-formed seeds (the
// kernel's and liblz4's), mutated, truncated, extended or replaced by noise.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace ozram::testing {

// Blocks of text, mixed and periodic pages, from both compressors.
std::vector<std::vector<std::uint8_t>> seed_blocks();

// One random damage to a block (the result is at most a page long).
std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> block, std::mt19937_64& rng);

// Whether a block holds a match of offset 0.  The format forbids it, and the
// kernel rejects it, but LZ4_decompress_safe's fast path lets it through
// (copying the output onto itself), so there the two decoders differ.
bool has_zero_offset(const std::vector<std::uint8_t>& block);

}  // namespace ozram::testing
