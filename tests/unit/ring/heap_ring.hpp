// A ring laid out in ordinary memory, for tests of the queue logic that need
// neither shared memory nor a second process.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "ozram/page.hpp"
#include "ring_transport.hpp"
#include "ring_view.hpp"

namespace ozram::ring::test {

class HeapRing final : public RingTransport {
  public:
    // abi_minor: the minor version the producer claims, to play an older one.
    HeapRing(std::uint32_t slots, std::uint32_t entries, std::uint32_t first_index = 0,
             std::uint32_t huge_threshold = 3072, std::uint16_t abi_minor = OZRAM_RING_ABI_MINOR) {
        ozram_ring_header header;
        ozram_ring_init_header(&header, slots, entries, huge_threshold);
        header.abi_minor = abi_minor;
        memory_.reset(static_cast<std::uint8_t*>(
            std::aligned_alloc(OZRAM_RING_PAGE_SIZE, header.mapping_size)));
        std::fill_n(memory_.get(), header.mapping_size, 0);
        std::copy_n(reinterpret_cast<const std::uint8_t*>(&header), sizeof(header), memory_.get());
        check_header(header, header.mapping_size);
        view_ = RingView::locate(header, memory_.get(), memory_.get() + header.staging.offset);
        for (ozram_ring_index* index : {&view_.ctrl->sq_head, &view_.ctrl->sq_tail,
                                        &view_.ctrl->cq_head, &view_.ctrl->cq_tail}) {
            index->value = first_index;
        }
    }

    [[nodiscard]] const RingView& view() const override { return view_; }
    Wake wait_for_work(std::chrono::microseconds) override {
        ++waits;
        return Wake::Ready;
    }
    void notify_completions() override { ++notifications; }
    void detach() override {}
    [[nodiscard]] std::string describe() const override { return "heap"; }

    unsigned waits = 0;
    unsigned notifications = 0;

  private:
    struct Free {
        void operator()(std::uint8_t* memory) const { std::free(memory); }
    };
    std::unique_ptr<std::uint8_t, Free> memory_;
    RingView view_;
};

// The addresses of `pages`, as ozram-ringload's driver takes a corpus.
inline std::vector<const std::uint8_t*> page_pointers(const std::vector<Page>& pages) {
    std::vector<const std::uint8_t*> pointers;
    pointers.reserve(pages.size());
    for (const Page& page : pages) {
        pointers.push_back(page.data());
    }
    return pointers;
}

// Pages of every kind the agent meets: text-like, incompressible, same-filled.
inline std::vector<Page> mixed_pages(std::size_t count) {
    std::vector<Page> pages(count);
    std::uint64_t state = 0x2545f4914f6cdd1dULL;
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t b = 0; b < PAGE_SIZE; ++b) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            switch (i % 4) {
                case 0:
                    pages[i][b] = static_cast<std::uint8_t>("the quick brown fox "[(b + i) % 20]);
                    break;
                case 1:
                    pages[i][b] = static_cast<std::uint8_t>(state);
                    break;
                case 2:
                    pages[i][b] = static_cast<std::uint8_t>(b % 8 == 0 ? i : 0);
                    break;
                default:
                    pages[i][b] = static_cast<std::uint8_t>(b < 2048 ? state % 4 : 0);
            }
        }
    }
    return pages;
}

}  // namespace ozram::ring::test
