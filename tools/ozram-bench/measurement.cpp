#include "measurement.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "ozram/page.hpp"

namespace ozram::bench {
namespace {

double gbps(std::uint64_t bytes, std::uint64_t ns) {
    return ns == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(ns);
}

}  // namespace

double Measurement::ratio() const {
    if (bytes_in == 0) {
        return 0.0;
    }
    if (bytes_out == 0) {
        return std::numeric_limits<double>::infinity();
    }
    return static_cast<double>(bytes_in) / static_cast<double>(bytes_out);
}

std::vector<Measurement> measure_codecs(std::span<Codec* const> codecs,
                                        std::span<const std::uint8_t* const> pages,
                                        std::size_t batch, unsigned repeats) {
    const auto bytes_in = static_cast<std::uint64_t>(pages.size()) * PAGE_SIZE;
    std::vector<std::vector<double>> compress(codecs.size());
    std::vector<std::vector<double>> decompress(codecs.size());
    std::vector<std::vector<double>> kernel(codecs.size());
    std::vector<std::vector<bool>> failed(codecs.size(), std::vector<bool>(pages.size()));
    std::vector<Measurement> rows(codecs.size());
    for (unsigned repeat = 0; repeat < repeats; ++repeat) {
        for (std::size_t c = 0; c < codecs.size(); ++c) {
            const auto pass = codecs[c]->run_pass(pages, batch, failed[c]);
            compress[c].push_back(gbps(bytes_in, pass.compress_ns));
            decompress[c].push_back(gbps(bytes_in, pass.decompress_ns));
            kernel[c].push_back(gbps(bytes_in, pass.kernel_ns));
            rows[c].bytes_out = pass.bytes_out;
            rows[c].raw_pages = pass.raw_pages;
            rows[c].same_filled_pages = pass.same_filled_pages;
        }
    }
    for (std::size_t c = 0; c < codecs.size(); ++c) {
        auto& row = rows[c];
        row.backend = codecs[c]->name();
        row.threads = codecs[c]->threads();
        row.batch = batch;
        row.repeats = repeats;
        row.pages = pages.size();
        row.bytes_in = bytes_in;
        row.compress_gbps = median(compress[c]);
        row.decompress_gbps = median(decompress[c]);
        row.kernel_gbps = median(kernel[c]);
        row.compress_by_pass = std::move(compress[c]);
        row.decompress_by_pass = std::move(decompress[c]);
        row.mismatches =
            static_cast<std::uint64_t>(std::count(failed[c].begin(), failed[c].end(), true));
        row.verified_pages = row.pages - row.mismatches;
    }
    return rows;
}

}  // namespace ozram::bench
