// The warp abstraction: the page kernels are written once against this
// interface and compiled twice.  Under nvcc, a Warp is the 32 threads of a CUDA
// warp and each operation is one intrinsic.  Under a plain C++ compiler, a Warp
// is an emulation that runs every lane-parallel section for lanes 0..31 in
// turn, so the same algorithm runs, and is tested, on a machine without a GPU.
//
// The programming model has two kinds of code:
//  - uniform code, outside any lambda: every lane computes the same values
//    (on the host it simply runs once);
//  - lane code, inside warp.each() / warp.ballot(): one body per lane, which
//    gets its Lane and keeps per-lane values in Lanes<T>.
// Rule that keeps both builds equivalent: inside one each()/ballot(), a lane
// never reads memory that another lane writes in the same section.  Writes are
// published to the other lanes by warp.sync() (__syncwarp on the device).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#include <cub/warp/warp_scan.cuh>
#define OZRAM_KERNEL_FN __device__ inline
#else
#include <array>
#include <bit>
#include <cstring>
#define OZRAM_KERNEL_FN inline
#endif

namespace ozram::kernels {

inline constexpr unsigned WARP_SIZE = 32;
using LaneMask = std::uint32_t;

// A lane's index in its warp, 0..31.
struct Lane {
    unsigned id;
};

// Index (0..31) of the lowest set bit; mask must not be 0.
OZRAM_KERNEL_FN unsigned lowest_lane(LaneMask mask) {
#if defined(__CUDACC__)
    return static_cast<unsigned>(__ffs(mask) - 1);
#else
    return static_cast<unsigned>(std::countr_zero(mask));
#endif
}

// Index (0..31) of the highest set bit; mask must not be 0.
OZRAM_KERNEL_FN unsigned highest_lane(LaneMask mask) {
#if defined(__CUDACC__)
    return 31u - static_cast<unsigned>(__clz(mask));
#else
    return 31u - static_cast<unsigned>(std::countl_zero(mask));
#endif
}

// Lanes below `lane`: the mask of lanes 0..lane-1 (lane < 32).
OZRAM_KERNEL_FN LaneMask lanes_below(unsigned lane) {
    return (LaneMask{1} << lane) - 1u;
}

// The mask of lanes first..end-1, for any first <= end (empty when first >= 32).
OZRAM_KERNEL_FN LaneMask lanes_between(unsigned first, unsigned end) {
#if defined(__CUDACC__)
    // One instruction: a bit mask of end - first bits from bit first, both
    // clamped to the word (PTX bmsk.clamp).
    LaneMask mask;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(mask) : "r"(first), "r"(end - first));
    return mask;
#else
    const LaneMask below_end = end >= WARP_SIZE ? ~LaneMask{0} : lanes_below(end);
    const LaneMask below_first = first >= WARP_SIZE ? ~LaneMask{0} : lanes_below(first);
    return below_end & ~below_first;
#endif
}

#if defined(__CUDACC__)

inline constexpr LaneMask FULL_WARP = 0xffffffffu;

// One value per lane: on the device each thread holds its own lane's value.
template <class T>
struct Lanes {
    T value;
    __device__ __forceinline__ T& operator[](Lane) { return value; }
    __device__ __forceinline__ const T& operator[](Lane) const { return value; }
};

// The calling warp.  Every lane of the warp must call each operation (the
// kernels return from a page only as a whole warp).
class Warp {
  public:
    __device__ __forceinline__ Warp() : lane_{threadIdx.x % WARP_SIZE} {}

    // Runs body(lane) on every lane.
    template <class Body>
    __device__ __forceinline__ void each(Body&& body) const {
        body(Lane{lane_});
    }
    // The mask of lanes for which pred(lane) is true.
    template <class Pred>
    __device__ __forceinline__ LaneMask ballot(Pred&& pred) const {
        return __ballot_sync(FULL_WARP, pred(Lane{lane_}) ? 1 : 0);
    }
    // For each lane, the mask of lanes holding the same value.
    __device__ __forceinline__ Lanes<LaneMask> match_any(const Lanes<std::uint32_t>& v) const {
        return {__match_any_sync(FULL_WARP, v.value)};
    }
    // The lanes below lane l: lanes_below(l.id), read from the lane's own
    // special register, which the compiler may keep from one call to the next.
    __device__ __forceinline__ LaneMask lanes_before(Lane) const {
        LaneMask mask;
        asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
        return mask;
    }
    // Lane `src`'s value, given to every lane.
    template <class T>
    __device__ __forceinline__ T broadcast(const Lanes<T>& v, unsigned src) const {
        return __shfl_sync(FULL_WARP, v.value, static_cast<int>(src));
    }
    // For each lane, the sum of the values of lanes 0..lane (an inclusive
    // prefix sum): CUB's warp scan, five shuffles that need no shared memory.
    __device__ __forceinline__ Lanes<std::uint32_t> inclusive_sum(
        const Lanes<std::uint32_t>& v) const {
        using Scan = cub::WarpScan<std::uint32_t>;
        typename Scan::TempStorage unused;
        std::uint32_t sum;
        Scan(unused).InclusiveSum(v.value, sum);
        return {sum};
    }
    // Runs body() once for the warp (on lane 0): for small sequential writes.
    template <class Body>
    __device__ __forceinline__ void single(Body&& body) const {
        if (lane_ == 0)
            body();
    }
    // Makes each lane's memory writes visible to the other lanes.
    __device__ __forceinline__ void sync() const { __syncwarp(FULL_WARP); }

  private:
    unsigned lane_;
};

// Unaligned-safe loads and stores of small words (the device faults on a
// misaligned word access, so bytes are assembled one at a time).
OZRAM_KERNEL_FN std::uint32_t load_u32_le(const std::uint8_t* p) {
    return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
           (std::uint32_t{p[3]} << 24);
}
// The 4 bytes at base[pos...] as a little-endian word, from two aligned
// words (base must be 4-byte aligned, and 4 bytes past base + pos + 3
// readable): two loads and a funnel shift instead of four byte loads.  The
// funnel shift takes its count modulo 32, so pos * 8 is (pos % 4) * 8.
OZRAM_KERNEL_FN std::uint32_t load_u32_at(const std::uint8_t* base, std::uint32_t pos) {
    const auto* words = reinterpret_cast<const std::uint32_t*>(base);
    const std::uint32_t low = words[pos >> 2];
    const std::uint32_t high = words[(pos >> 2) + 1];
    return __funnelshift_r(low, high, pos * 8);
}
// Aligned 8-byte access (p must be 8-byte aligned).
OZRAM_KERNEL_FN std::uint64_t load_u64_aligned(const std::uint8_t* p) {
    return *reinterpret_cast<const std::uint64_t*>(p);
}
OZRAM_KERNEL_FN void store_u64_aligned(std::uint8_t* p, std::uint64_t v) {
    *reinterpret_cast<std::uint64_t*>(p) = v;
}

// 16 bytes, the widest access a thread makes: a warp moves 512 contiguous
// bytes with one.
using Vec16 = uint4;
// p must be 16-byte aligned.  Streaming: for memory read once (host memory
// mapped into the device, pages that the next batch replaces).
OZRAM_KERNEL_FN Vec16 load_vec16_once(const std::uint8_t* p) {
    return __ldcs(reinterpret_cast<const Vec16*>(p));
}
// p must be 16-byte aligned: any memory (device, shared or mapped host).
OZRAM_KERNEL_FN Vec16 load_vec16(const std::uint8_t* p) {
    return *reinterpret_cast<const Vec16*>(p);
}
OZRAM_KERNEL_FN void store_vec16(std::uint8_t* p, Vec16 v) {
    *reinterpret_cast<Vec16*>(p) = v;
}

#else  // the host emulation

template <class T>
struct Lanes {
    std::array<T, WARP_SIZE> values{};
    T& operator[](Lane l) { return values[l.id]; }
    const T& operator[](Lane l) const { return values[l.id]; }
};

// The order in which the emulation runs the lanes of a section.  The device
// promises no order, so a kernel that obeys the rule above gives the same
// result in either; the tests run both to check that it does.
enum class LaneOrder { Ascending, Descending };

// The emulation also counts warp-steps: every warp-wide operation (a lane
// section, a ballot, a match, a broadcast, a prefix sum, a single-lane
// section, a sync) is one.  Kernels keep their loops outside the lane
// sections, so that a step stands for a few instructions of every lane: the
// count compares kernel designs on the host before any of them runs on a
// device.  Uniform code between the steps is not counted.
class Warp {
  public:
    explicit Warp(LaneOrder order = LaneOrder::Ascending) : order_(order) {}

    template <class Body>
    void each(Body&& body) const {
        ++steps_;
        for (unsigned i = 0; i < WARP_SIZE; ++i)
            body(lane(i));
    }
    template <class Pred>
    LaneMask ballot(Pred&& pred) const {
        ++steps_;
        LaneMask mask = 0;
        for (unsigned i = 0; i < WARP_SIZE; ++i) {
            if (pred(lane(i)))
                mask |= LaneMask{1} << lane(i).id;
        }
        return mask;
    }
    Lanes<LaneMask> match_any(const Lanes<std::uint32_t>& v) const {
        ++steps_;
        Lanes<LaneMask> groups;
        for (unsigned a = 0; a < WARP_SIZE; ++a) {
            for (unsigned b = 0; b < WARP_SIZE; ++b) {
                if (v.values[a] == v.values[b])
                    groups.values[a] |= LaneMask{1} << b;
            }
        }
        return groups;
    }
    LaneMask lanes_before(Lane l) const { return lanes_below(l.id); }
    template <class T>
    T broadcast(const Lanes<T>& v, unsigned src) const {
        ++steps_;
        return v.values[src];
    }
    Lanes<std::uint32_t> inclusive_sum(const Lanes<std::uint32_t>& v) const {
        ++steps_;
        Lanes<std::uint32_t> sums;
        std::uint32_t sum = 0;
        for (unsigned i = 0; i < WARP_SIZE; ++i)
            sums.values[i] = sum += v.values[i];
        return sums;
    }
    template <class Body>
    void single(Body&& body) const {
        ++steps_;
        body();
    }
    void sync() const { ++steps_; }

    // Warp-steps run since the warp was made.
    [[nodiscard]] std::uint64_t steps() const { return steps_; }

  private:
    Lane lane(unsigned i) const {
        return Lane{order_ == LaneOrder::Ascending ? i : WARP_SIZE - 1 - i};
    }
    LaneOrder order_;
    mutable std::uint64_t steps_ = 0;
};

inline std::uint32_t load_u32_le(const std::uint8_t* p) {
    return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
           (std::uint32_t{p[3]} << 24);
}
inline std::uint32_t load_u32_at(const std::uint8_t* base, std::uint32_t pos) {
    return load_u32_le(base + pos);
}
inline std::uint64_t load_u64_aligned(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store_u64_aligned(std::uint8_t* p, std::uint64_t v) {
    std::memcpy(p, &v, sizeof v);
}

struct Vec16 {
    std::uint8_t bytes[16];
};
inline Vec16 load_vec16_once(const std::uint8_t* p) {
    Vec16 v;
    std::memcpy(v.bytes, p, sizeof v.bytes);
    return v;
}
inline Vec16 load_vec16(const std::uint8_t* p) {
    return load_vec16_once(p);
}
inline void store_vec16(std::uint8_t* p, const Vec16& v) {
    std::memcpy(p, v.bytes, sizeof v.bytes);
}

#endif

}  // namespace ozram::kernels
