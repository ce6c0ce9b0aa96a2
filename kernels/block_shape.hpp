// How many warps a compression kernel's block holds.  Each warp takes a
// page's scratch in shared memory, and shared memory is what limits how many
// warps a multiprocessor keeps: the block's size decides how well the
// scratch fills it, since every block also costs a reserved kilobyte, and a
// block's memory comes back only when its last warp ends.  Plain C++, so
// that the rule is tested on the host; the device's occupancy calculator
// says how many blocks of each size fit (lz4_kernels.cu).
#pragma once

namespace ozram::kernels {

struct BlockShape {
    unsigned warps_per_block = 0;
    unsigned warps_per_multiprocessor = 0;  // resident, in blocks of that size
};

// Of blocks of 1 to max_warps warps, the size that keeps the most warps
// resident on a multiprocessor (resident_blocks(w): how many blocks of w
// warps it holds at once), and of those the smallest: a small block frees
// its memory sooner after its slowest page.  {0, 0} when no block fits.
template <class ResidentBlocks>
constexpr BlockShape most_resident_shape(unsigned max_warps, ResidentBlocks&& resident_blocks) {
    BlockShape best;
    for (unsigned warps = 1; warps <= max_warps; ++warps) {
        const unsigned resident = warps * static_cast<unsigned>(resident_blocks(warps));
        if (resident > best.warps_per_multiprocessor)
            best = {warps, resident};
    }
    return best;
}

}  // namespace ozram::kernels
