// BatchResult: one compressed batch, reused from batch to batch.
#include "ozram/batch_result.hpp"

namespace ozram {

void BatchResult::reset(std::size_t n) {
    // clear() + resize() keep the capacity, so a result reused for batches of
    // the same size never allocates again.
    pages.clear();
    pages.resize(n);
    payload.resize(n * PAGE_SIZE);
    h2d_time_ns = 0;
    kernel_time_ns = 0;
    d2h_time_ns = 0;
    total_time_ns = 0;
}

}  // namespace ozram
