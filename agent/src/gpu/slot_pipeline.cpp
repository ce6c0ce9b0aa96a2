#include "gpu/slot_pipeline.hpp"

namespace ozram::gpu {

Slot::Slot(std::size_t pages, bool pinned)
    : host_in(pages * PAGE_SIZE, pinned),
      host_out(pages * PAGE_SIZE, pinned),
      host_descriptors(pages, pinned),
      host_sources(pages, pinned),
      device_in(pages * PAGE_SIZE),
      device_out(pages * PAGE_SIZE),
      device_descriptors(pages),
      device_sources(pages) {}

SlotPipeline::SlotPipeline(std::size_t batch_pages, std::size_t slots, bool async)
    : batch_pages_(batch_pages), async_(async) {
    const std::size_t count = async ? slots : 1;
    slots_.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        slots_.emplace_back(batch_pages, async);
}

void SlotPipeline::abandon() {
    for (Slot& slot : slots_)
        slot.in_flight = false;
}

void SlotPipeline::wait_if_synchronous(const Event& event) const {
    if (!async_)
        cuda_check(cudaEventSynchronize(event.get()), "cudaEventSynchronize");
}

std::uint64_t SlotPipeline::elapsed_ns(const Event& begin, const Event& end) {
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, begin.get(), end.get()), "cudaEventElapsedTime");
    return static_cast<std::uint64_t>(static_cast<double>(ms) * 1e6);
}

}  // namespace ozram::gpu
