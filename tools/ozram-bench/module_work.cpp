#include "module_work.hpp"

#include <time.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iomanip>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cpu/block_codec.hpp"
#include "cpu/same_filled.hpp"
#include "median.hpp"
#include "ozram/backend.hpp"
#include "ozram/page.hpp"

extern "C" {
#include "ozram_lz4_verify.h"
#include "ozram_ring_slots.h"
}

namespace ozram::bench {
namespace {

// The timed rows, in the order each batch runs them.
enum Row : std::uint8_t {
    InlineCompress,
    InlineStore,
    RingStage,
    RingCheck,
    RingStore,
    RingCheckDecode,
    RingStoreDecode,
    CheckVerify,
    CheckDecodeCompare,
    ROW_COUNT,
};

struct RowText {
    const char* name;
    const char* what;
};

constexpr std::array<RowText, ROW_COUNT> ROW_TEXT = {{
    {"inline-compress", "compress the page with the library"},
    {"inline-store", "copy the block (or the raw page) into its object"},
    {"ring-stage", "take a slot, copy the page into it, fill the SQ entry"},
    {"ring-check",
     "claim the slot, copy the block and check it (an LZ4 block: into its object, walked)"},
    {"ring-store",
     "copy the block (unless in its object) or the staged page into its object, free the slot"},
    {"ring-check-decode", "ring-check with every block decoded and compared"},
    {"ring-store-decode", "ring-store after ring-check-decode: every block copied into its object"},
    {"check-verify", "ozram_lz4_verify() alone, per compressed page"},
    {"check-decode-compare", "decode and memcmp() alone, per compressed page"},
}};

// The thread's CPU time: a pass is not charged for the time another
// process has the core.
std::uint64_t thread_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

// What a reading of the thread's CPU clock adds to the interval it closes:
// the median of back-to-back readings.  The clock is a system call, about
// a microsecond, and a lap of a batch of 64 pages would otherwise carry
// 0.02 us a page of it, most of a small row such as ring-store.
std::uint64_t thread_clock_cost_ns() {
    std::vector<double> gaps(201);
    for (double& gap : gaps) {
        const std::uint64_t before = thread_ns();
        gap = static_cast<double>(thread_ns() - before);
    }
    return static_cast<std::uint64_t>(median(std::move(gaps)));
}

bool is_lz4_format(Algorithm algorithm) {
    return algorithm == Algorithm::Lz4 || algorithm == Algorithm::Lz4hc;
}

// The decoder the module's check calls for a format (its crypto stream's).
int decode_page(void* ctx, const void* src, unsigned int len, void* dst) {
    const auto algorithm = *static_cast<const Algorithm*>(ctx);
    return decompress_block(algorithm, static_cast<const std::uint8_t*>(src), len,
                            static_cast<std::uint8_t*>(dst))
               ? 0
               : -1;
}

// Page-aligned pages that nothing else touches.
class Pages {
  public:
    explicit Pages(std::size_t count)
        : data_(static_cast<std::uint8_t*>(
              ::operator new[](count* PAGE_SIZE, std::align_val_t{PAGE_SIZE}))) {
        std::memset(data_.get(), 0, count * PAGE_SIZE);
    }
    [[nodiscard]] std::uint8_t* at(std::size_t i) const { return data_.get() + i * PAGE_SIZE; }

  private:
    struct Free {
        void operator()(std::uint8_t* p) const {
            ::operator delete[](p, std::align_val_t{PAGE_SIZE});
        }
    };
    std::unique_ptr<std::uint8_t[], Free> data_;
};

// The producer's side of a ring of `nr` slots, as the module keeps it: the
// slot rules' arrays, the staging slots, the agent's output slots, the
// check's private copy of each result, and the queues' entries.
struct Ring {
    Ring(std::uint32_t nr, std::uint32_t huge_threshold)
        : free_stack(nr),
          generations(nr),
          states(nr),
          algorithms(nr),
          posted(nr),
          staging(nr),
          output(nr),
          copies(nr),
          in_place(nr),
          sq(nr),
          cq(nr) {
        slots.free_stack = free_stack.data();
        slots.generations = generations.data();
        slots.states = states.data();
        slots.algorithms = algorithms.data();
        slots.posted = posted.data();
        ozram_ring_slots_init(&slots, nr, huge_threshold);
    }

    std::vector<std::uint32_t> free_stack, generations;
    std::vector<std::uint8_t> states, algorithms;
    std::vector<unsigned long> posted;
    ozram_ring_slots slots{};
    unsigned long now = 0;  // the producer's clock, in ticks
    Pages staging;
    Pages output;
    Pages copies;
    // Per answer of the batch: checked in its object, not in a copy.
    std::vector<char> in_place;
    std::vector<ozram_ring_sqe> sq;
    std::vector<ozram_ring_cqe> cq;
};

// The blocks the agent returns for each page, made once: the agent's work
// is not the kernel's.
struct Answers {
    std::vector<std::uint8_t> bytes;  // BLOCK_BOUND a page
    std::vector<std::uint32_t> length;
    std::vector<std::uint32_t> encoding;
};

class Runner {
  public:
    Runner(std::span<const std::uint8_t* const> pages, Algorithm algorithm, std::size_t batch,
           bool warm, std::size_t huge_threshold)
        : pages_(pages),
          algorithm_(algorithm),
          batch_(batch),
          warm_(warm),
          huge_threshold_(huge_threshold),
          codec_(make_block_codec(algorithm, 1)),
          ring_(static_cast<std::uint32_t>(batch), static_cast<std::uint32_t>(huge_threshold)),
          inline_blocks_(batch * BLOCK_BOUND),
          inline_length_(batch),
          objects_(batch),
          decoded_(1),
          clock_cost_ns_(thread_clock_cost_ns()) {
        answer_all();
    }

    // One pass: every batch warmed, then timed row by row.
    std::array<std::uint64_t, ROW_COUNT> pass();

    [[nodiscard]] std::size_t huge() const { return huge_; }
    [[nodiscard]] std::size_t compressed() const { return pages_.size() - huge_; }
    [[nodiscard]] std::size_t refused() const { return refused_; }
    [[nodiscard]] std::uint64_t clock_cost_ns() const { return clock_cost_ns_; }

  private:
    void answer_all();
    void inline_compress(std::size_t first, std::size_t n);
    void inline_store(std::size_t first, std::size_t n);
    void stage(std::size_t first, std::size_t n);
    void agent(std::size_t first, std::size_t n);
    void check(std::size_t n, bool decode);
    void store(std::size_t n);
    void check_alone(std::size_t n, bool walk);
    void cycle(std::size_t first, std::size_t n, std::array<std::uint64_t, ROW_COUNT>* time);

    std::span<const std::uint8_t* const> pages_;
    Algorithm algorithm_;
    std::size_t batch_;
    bool warm_;
    std::size_t huge_threshold_;
    std::unique_ptr<BlockCodec> codec_;
    Ring ring_;
    Answers answers_;
    std::vector<std::uint8_t> inline_blocks_;
    std::vector<std::size_t> inline_length_;
    Pages objects_;
    Pages decoded_;
    std::size_t huge_ = 0;
    std::size_t refused_ = 0;
    std::uint64_t clock_cost_ns_;  // taken off every lap
};

void Runner::answer_all() {
    answers_.bytes.resize(pages_.size() * BLOCK_BOUND);
    answers_.length.resize(pages_.size());
    answers_.encoding.resize(pages_.size());
    for (std::size_t i = 0; i < pages_.size(); ++i) {
        std::uint8_t* block = answers_.bytes.data() + i * BLOCK_BOUND;
        const std::size_t n = codec_->compress(pages_[i], block);
        if (n == 0 || n > huge_threshold_) {
            answers_.encoding[i] = OZRAM_RING_ENC_RAW;
            answers_.length[i] = 0;
            ++huge_;
        } else {
            answers_.encoding[i] =
                algorithm_ == Algorithm::Lz4 ? OZRAM_RING_ENC_LZ4 : OZRAM_RING_ENC_COMPRESSED;
            answers_.length[i] = static_cast<std::uint32_t>(n);
        }
    }
}

void Runner::inline_compress(std::size_t first, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        inline_length_[i] = codec_->compress(pages_[first + i], &inline_blocks_[i * BLOCK_BOUND]);
    }
}

void Runner::inline_store(std::size_t first, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t len = inline_length_[i];
        if (len == 0 || len > huge_threshold_) {
            std::memcpy(objects_.at(i), pages_[first + i], PAGE_SIZE);  // stored raw
        } else {
            std::memcpy(objects_.at(i), &inline_blocks_[i * BLOCK_BOUND], len);
        }
    }
}

void Runner::stage(std::size_t first, std::size_t n) {
    const auto alg = static_cast<std::uint8_t>(algorithm_);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t slot = 0;
        std::uint32_t generation = 0;
        if (!ozram_ring_slots_get(&ring_.slots, ++ring_.now, alg, &slot, &generation)) {
            throw std::logic_error("module work: no free staging slot");
        }
        std::memcpy(ring_.staging.at(slot), pages_[first + i], PAGE_SIZE);
        ring_.sq[i] =
            ozram_ring_sqe{.slot = slot, .generation = generation, .device_id = 0, .flags = alg};
    }
}

// The agent's side, untimed: its block into the output slot, its answer.
void Runner::agent(std::size_t first, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const ozram_ring_sqe& sqe = ring_.sq[i];
        const std::uint32_t len = answers_.length[first + i];
        std::memcpy(ring_.output.at(sqe.slot), &answers_.bytes[(first + i) * BLOCK_BOUND], len);
        ring_.cq[i] = ozram_ring_cqe{.slot = sqe.slot,
                                     .generation = sqe.generation,
                                     .status = OZRAM_RING_STATUS_OK,
                                     .encoding = answers_.encoding[first + i],
                                     .length = len,
                                     .flags = 0,
                                     .fill = 0};
    }
}

// The module's check of each answer.  A result that
// ozram_ring_checks_in_place() allows (an LZ4 block) is copied once, into
// its object, and walked there with ozram_lz4_verify(); any other is
// copied out and checked by ozram_ring_result_matches(), which decodes and
// compares it.  `decode`: every compressed block copied out, decoded and
// compared instead.
void Runner::check(std::size_t n, bool decode) {
    Algorithm algorithm = algorithm_;
    const auto posted = static_cast<std::uint8_t>(algorithm);
    for (std::size_t i = 0; i < n; ++i) {
        const ozram_ring_cqe cqe = ring_.cq[i];
        bool ok = ozram_ring_slots_claim(&ring_.slots, &cqe) == OZRAM_RING_OK;
        const std::uint8_t* staged = ring_.staging.at(cqe.slot);
        ring_.in_place[i] = !decode && ozram_ring_checks_in_place(&cqe, posted, true);
        if (ring_.in_place[i]) {
            std::memcpy(objects_.at(i), ring_.output.at(cqe.slot), cqe.length);
            ok = ok && ozram_lz4_verify(objects_.at(i), cqe.length, staged, PAGE_SIZE);
            refused_ += ok ? 0 : 1;
            continue;
        }
        if (cqe.encoding != OZRAM_RING_ENC_RAW) {
            std::memcpy(ring_.copies.at(i), ring_.output.at(cqe.slot), cqe.length);
        }
        if (!ok) {
            // Counted below: an honest answer is never refused.
        } else if (decode && cqe.encoding != OZRAM_RING_ENC_RAW) {
            ok = decode_page(&algorithm, ring_.copies.at(i), cqe.length, decoded_.at(0)) == 0 &&
                 std::memcmp(decoded_.at(0), staged, PAGE_SIZE) == 0;
        } else {
            ok = ozram_ring_result_matches(&cqe, posted, ring_.copies.at(i), staged, decoded_.at(0),
                                           true, decode_page, &algorithm);
        }
        refused_ += ok ? 0 : 1;
    }
}

void Runner::store(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const ozram_ring_cqe& cqe = ring_.cq[i];
        if (cqe.encoding == OZRAM_RING_ENC_RAW) {
            std::memcpy(objects_.at(i), ring_.staging.at(cqe.slot), PAGE_SIZE);
        } else if (!ring_.in_place[i]) {
            std::memcpy(objects_.at(i), ring_.copies.at(i), cqe.length);
        }
        ozram_ring_slots_put(&ring_.slots, cqe.slot);
    }
}

// The two checks alone on the batch's compressed pages, as the last cycle
// left them: each block in its private copy, each page in its slot.
void Runner::check_alone(std::size_t n, bool walk) {
    for (std::size_t i = 0; i < n; ++i) {
        const ozram_ring_cqe& cqe = ring_.cq[i];
        if (cqe.encoding == OZRAM_RING_ENC_RAW) {
            continue;
        }
        const std::uint8_t* staged = ring_.staging.at(cqe.slot);
        bool ok;
        if (walk) {
            ok = ozram_lz4_verify(ring_.copies.at(i), cqe.length, staged, PAGE_SIZE);
        } else {
            ok = decompress_block(algorithm_, ring_.copies.at(i), cqe.length, decoded_.at(0)) &&
                 std::memcmp(decoded_.at(0), staged, PAGE_SIZE) == 0;
        }
        refused_ += ok ? 0 : 1;
    }
}

// One batch through every row; with `time`, each row is timed.
void Runner::cycle(std::size_t first, std::size_t n, std::array<std::uint64_t, ROW_COUNT>* time) {
    std::uint64_t t = thread_ns();
    auto lap = [&](Row row) {
        const std::uint64_t now = thread_ns();
        if (time != nullptr) {
            (*time)[row] += now - t - std::min(now - t, clock_cost_ns_);
        }
        t = now;
    };
    auto skip = [&] { t = thread_ns(); };

    inline_compress(first, n);
    lap(InlineCompress);
    inline_store(first, n);
    lap(InlineStore);

    stage(first, n);
    lap(RingStage);
    agent(first, n);
    skip();
    check(n, false);
    lap(RingCheck);
    store(n);
    lap(RingStore);

    // Again, checked by decode and compare.
    stage(first, n);
    agent(first, n);
    skip();
    check(n, true);
    lap(RingCheckDecode);
    store(n);
    lap(RingStoreDecode);

    if (is_lz4_format(algorithm_)) {
        check_alone(n, true);
        lap(CheckVerify);
    }
    check_alone(n, false);
    lap(CheckDecodeCompare);
}

std::array<std::uint64_t, ROW_COUNT> Runner::pass() {
    std::array<std::uint64_t, ROW_COUNT> time{};
    for (std::size_t first = 0; first < pages_.size(); first += batch_) {
        const std::size_t n = std::min(batch_, pages_.size() - first);
        if (warm_) {
            cycle(first, n, nullptr);
        }
        cycle(first, n, &time);
    }
    return time;
}

}  // namespace

double ModuleWork::us(const std::string& name) const {
    for (const auto& row : rows) {
        if (row.name == name) {
            return row.us_per_page;
        }
    }
    throw std::out_of_range("no module work row " + name);
}

ModuleWork measure_module_work(std::span<const std::uint8_t* const> pages, Algorithm algorithm,
                               std::size_t batch, bool cold, unsigned repeats,
                               std::size_t huge_threshold) {
    ModuleWork work{.algorithm = algorithm, .cold = cold, .repeats = repeats};
    // Same-filled pages never reach either path: the module stores the word.
    std::vector<const std::uint8_t*> kept;
    for (const std::uint8_t* page : pages) {
        std::uint64_t word = 0;
        if (is_same_filled(page, &word)) {
            ++work.same_filled;
        } else {
            kept.push_back(page);
        }
    }
    work.pages = kept.size();
    if (kept.empty()) {
        throw std::runtime_error("module work: every page is same-filled");
    }
    work.batch = cold ? kept.size() : batch;
    Runner runner(kept, algorithm, work.batch, !cold, huge_threshold);
    work.huge = runner.huge();

    std::array<std::vector<double>, ROW_COUNT> per_pass;
    std::vector<double> inline_total, ring_total, ring_decode_total;
    const double pages_ns = static_cast<double>(kept.size()) * 1000.0;
    // The checks alone run on compressed pages only: with none, they have
    // no figure, and their rows are left out.
    const double compressed_ns = static_cast<double>(runner.compressed()) * 1000.0;
    for (unsigned r = 0; r < repeats; ++r) {
        const auto time = runner.pass();
        std::array<double, ROW_COUNT> us{};
        for (int row = 0; row < ROW_COUNT; ++row) {
            const bool alone = row == CheckVerify || row == CheckDecodeCompare;
            const double per = alone ? compressed_ns : pages_ns;
            us[row] = per > 0 ? static_cast<double>(time[row]) / per : 0;
            per_pass[row].push_back(us[row]);
        }
        inline_total.push_back(us[InlineCompress] + us[InlineStore]);
        ring_total.push_back(us[RingStage] + us[RingCheck] + us[RingStore]);
        ring_decode_total.push_back(us[RingStage] + us[RingCheckDecode] + us[RingStoreDecode]);
    }
    work.refused = runner.refused();
    work.clock_cost_ns = runner.clock_cost_ns();

    auto add = [&](const char* name, const char* what, std::vector<double> values) {
        work.rows.push_back(
            ModuleWorkRow{.name = name, .what = what, .us_per_page = median(values)});
    };
    for (int row = 0; row < ROW_COUNT; ++row) {
        const bool alone = row == CheckVerify || row == CheckDecodeCompare;
        if ((row == CheckVerify && !is_lz4_format(algorithm)) ||
            (alone && runner.compressed() == 0)) {
            continue;
        }
        add(ROW_TEXT[row].name, ROW_TEXT[row].what, per_pass[row]);
        if (row == InlineStore) {
            add("inline", "inline-compress + inline-store", inline_total);
        } else if (row == RingStore) {
            add("ring", "ring-stage + ring-check + ring-store", ring_total);
        } else if (row == RingStoreDecode) {
            add("ring-decode", "ring-stage + ring-check-decode + ring-store-decode",
                ring_decode_total);
        }
    }
    return work;
}

void print_module_work(std::ostream& out, const ModuleWork& work) {
    out << "the module's work a page, " << to_string(work.algorithm) << ": " << work.pages
        << " pages (" << work.same_filled << " same-filled left out, " << work.huge
        << " stored raw), ";
    if (work.cold) {
        out << "cold (each row streams over every page)";
    } else {
        out << "batches of " << work.batch << ", warm";
    }
    out << ", median of " << work.repeats << " passes, thread CPU time (less " << work.clock_cost_ns
        << " ns a row and batch for reading the clock)\n";
    const double inline_us = work.us("inline");
    for (const auto& row : work.rows) {
        out << "  " << std::left << std::setw(22) << row.name << std::right << std::fixed
            << std::setprecision(3) << std::setw(8) << row.us_per_page << " us";
        if (row.name == "inline" || row.name == "ring" || row.name == "ring-decode") {
            out << "  " << std::setprecision(2) << row.us_per_page / inline_us << "x of inline";
        }
        out << "   " << row.what << "\n";
    }
    if ((work.algorithm == Algorithm::Lz4 || work.algorithm == Algorithm::Lz4hc) &&
        work.pages > work.huge) {
        out << "  check-verify / check-decode-compare: " << std::setprecision(2)
            << work.us("check-verify") / work.us("check-decode-compare") << "x\n";
    }
    out.unsetf(std::ios::floatfield);
}

void print_module_work_csv(std::ostream& out, const ModuleWork& work, bool header) {
    if (header) {
        out << "algorithm,row,us_per_page,pages\n";
    }
    for (const auto& row : work.rows) {
        out << to_string(work.algorithm) << "," << row.name << "," << std::fixed
            << std::setprecision(4) << row.us_per_page << "," << work.pages << "\n";
    }
    out.unsetf(std::ios::floatfield);
}

}  // namespace ozram::bench
