#include "model/linear_fit.hpp"

namespace ozram {

LinearCost fit_linear_cost(std::span<const TimingSample> samples) {
    double sw = 0, sn = 0, st = 0, snn = 0, snt = 0;
    for (const TimingSample& s : samples) {
        if (!(s.ns > 0)) {
            continue;  // a zero time carries no information and an infinite weight
        }
        const double w = 1.0 / (s.ns * s.ns);
        sw += w;
        sn += w * s.pages;
        st += w * s.ns;
        snn += w * s.pages * s.pages;
        snt += w * s.pages * s.ns;
    }
    // Relative to its terms, so that one batch size repeated counts as singular.
    const double determinant = sw * snn - sn * sn;
    LinearCost cost;
    if (determinant > 1e-12 * sw * snn) {
        cost.per_page_ns = (sw * snt - sn * st) / determinant;
        cost.fixed_ns = (st - cost.per_page_ns * sn) / sw;
    }
    if (!(cost.fixed_ns >= 0) || !(cost.per_page_ns > 0)) {
        cost.fixed_ns = 0;
        cost.per_page_ns = snn > 0 ? snt / snn : 0;
    }
    return cost;
}

}  // namespace ozram
