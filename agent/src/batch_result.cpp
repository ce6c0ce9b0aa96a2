// BatchResult: one compressed batch, reused from batch to batch.
#include "ozram/batch_result.hpp"

namespace ozram {
namespace {

// clear() + resize() keep the capacity, so a result reused for batches of the
// same size never allocates again.
void reset_pages_and_times(BatchResult& result, std::size_t n) {
    result.pages.clear();
    result.pages.resize(n);
    result.h2d_time_ns = 0;
    result.kernel_time_ns = 0;
    result.d2h_time_ns = 0;
    result.total_time_ns = 0;
}

}  // namespace

void BatchResult::reset(std::size_t n) {
    reset_pages_and_times(*this, n);
    // Not cleared first: a payload already of this size is not zeroed again.
    payload.resize(n * PAGE_SIZE);
}

void BatchResult::reset_without_payload(std::size_t n) {
    reset_pages_and_times(*this, n);
    payload.clear();
}

}  // namespace ozram
