#include "compressor_set.hpp"

#include <string>
#include <vector>

#include "log.hpp"
#include "ozram/cost_model.hpp"
#include "ozram/error.hpp"

namespace ozram::daemon {
namespace {

// Pages that exercise every path of a codec: text-like, incompressible and
// same-filled.
std::vector<Page> warm_up_pages(std::size_t count) {
    std::vector<Page> pages(count);
    std::uint32_t state = 0x9e3779b9;
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t b = 0; b < PAGE_SIZE; ++b) {
            state = state * 1664525 + 1013904223;
            switch (i % 3) {
                case 0:
                    pages[i][b] = static_cast<std::uint8_t>('a' + (b * 7 + i) % 13);
                    break;
                case 1:
                    pages[i][b] = static_cast<std::uint8_t>(state >> 24);
                    break;
                default:
                    pages[i][b] = 0;
            }
        }
    }
    return pages;
}

void warm_up(PageCompressor& compressor, const std::vector<Page>& pages) {
    std::vector<const std::uint8_t*> pointers;
    for (const Page& page : pages) {
        pointers.push_back(page.data());
    }
    BatchResult result;
    compressor.compress(pointers, result);
}

}  // namespace

PageCompressor& CompressorPicker::pick_for(Algorithm algorithm, std::size_t pages) {
    if (algorithm != Algorithm::Lz4) {
        throw Error(EOPNOTSUPP, "no compressor for " + std::string(to_string(algorithm)));
    }
    return pick(pages);
}

PageCompressor& CompressorPicker::fallback_for(Algorithm algorithm) {
    std::unique_ptr<PageCompressor>& compressor =
        fallbacks_.at(static_cast<std::size_t>(algorithm));
    if (!compressor) {
        compressor = make_cpu_compressor(Backend::Scalar, CpuConfig{.algorithm = algorithm});
    }
    return *compressor;
}

PageCompressor& CompressorPicker::at_level(
    std::map<Key, std::unique_ptr<PageCompressor>>& kept, Key key,
    const std::function<std::unique_ptr<PageCompressor>()>& make) {
    if (const auto found = kept.find(key); found != kept.end()) {
        return *found->second;
    }
    if (kept.size() >= MAX_LEVELS) {
        throw Error(EOPNOTSUPP, "more than " + std::to_string(MAX_LEVELS) +
                                    " formats at a level: " + std::string(to_string(key.first)) +
                                    " at level " + std::to_string(key.second) + " not kept");
    }
    return *kept.emplace(key, make()).first->second;
}

PageCompressor& CompressorPicker::pick_at(Algorithm algorithm, int level, std::size_t pages) {
    if (level == 0) {
        return pick_for(algorithm, pages);
    }
    return at_level(leveled_, {algorithm, level}, [&] {
        return make_at_level(CpuConfig{.algorithm = algorithm, .level = level});
    });
}

PageCompressor& CompressorPicker::fallback_at(Algorithm algorithm, int level) {
    if (level == 0) {
        return fallback_for(algorithm);
    }
    // Made as pick_at() makes them, so that a redone page meets the same
    // huge threshold.
    return at_level(leveled_fallbacks_, {algorithm, level}, [&] {
        return make_at_level(CpuConfig{.algorithm = algorithm, .level = level});
    });
}

std::unique_ptr<PageCompressor> CompressorPicker::make_at_level(const CpuConfig& config) {
    return make_cpu_compressor(Backend::Scalar, config);
}

std::unique_ptr<PageCompressor> CompressorSet::make_at_level(const CpuConfig& config) {
    CpuConfig at = cpu_config_;
    at.algorithm = config.algorithm;
    at.level = config.level;
    return make_cpu_compressor(choice_ == BackendChoice::Scalar ? Backend::Scalar : Backend::Cpu,
                               at);
}

CompressorSet::CompressorSet(BackendChoice choice, const CpuConfig& cpu, std::size_t max_batch)
    : choice_(choice),
      max_batch_(max_batch),
      scalar_(make_cpu_compressor(Backend::Scalar, cpu)),
      cpu_(make_cpu_compressor(Backend::Cpu, cpu)),
      cpu_config_(cpu) {
    if (choice == BackendChoice::Auto || choice == BackendChoice::Gpu) {
        if (!gpu_available()) {
            if (choice == BackendChoice::Gpu) {
                log_warning("backend gpu: no usable GPU; compressing on the CPU");
            }
        } else {
            try {
                GpuBatchConfig config;
                config.batch_size = max_batch;
                config.huge_threshold = cpu.huge_threshold;
                gpu_ = GpuBatchCompressor::create(config);
                log_info("GPU backend on " + gpu_->device().name);
            } catch (const Error& error) {
                log_warning(std::string("GPU backend unavailable (") + error.what() +
                            "); compressing on the CPU");
            }
        }
    }
    const std::vector<Page> pages = warm_up_pages(max_batch);
    warm_up(*scalar_, pages);
    warm_up(*cpu_, pages);
    if (gpu_) {
        warm_up(*gpu_, pages);
    }
}

void CompressorSet::share_ring(std::span<const std::uint8_t> staging,
                               std::span<std::uint8_t> output) {
    if (!gpu_ || staging_ != nullptr || output_ != nullptr) {
        return;
    }
    const std::string staging_size = std::to_string(staging.size() >> 20) + " MiB";
    if (gpu_->register_host_region(staging)) {
        staging_ = staging.data();
        log_info("the GPU reads staged pages in place (" + staging_size + " registered)");
    } else {
        log_info("the GPU copies staged pages through pinned buffers (" + staging_size +
                 " could not be registered)");
    }
    const std::string output_size = std::to_string(output.size() >> 20) + " MiB";
    if (gpu_->register_output_region(output)) {
        output_ = output.data();
        log_info("the GPU writes compressed bytes into the output slots (" + output_size +
                 " registered)");
    } else {
        log_info("the GPU's compressed bytes are copied into the output slots (" + output_size +
                 " could not be registered)");
    }
}

void CompressorSet::release_ring() {
    for (const std::uint8_t** base : {&staging_, &output_}) {
        if (gpu_ && *base != nullptr) {
            gpu_->unregister_host_region(*base);
        }
        *base = nullptr;
    }
}

std::uint64_t CompressorSet::gpu_pages_in_place() const {
    return gpu_ ? gpu_->pages_read_in_place() : 0;
}

std::uint64_t CompressorSet::gpu_pages_copied() const {
    return gpu_ ? gpu_->pages_copied() : 0;
}

PageCompressor& CompressorSet::pick(std::size_t pages) {
    PageCompressor* chosen = cpu_.get();
    switch (choice_) {
        case BackendChoice::Auto: {
            const Backend choice = select_backend(pages, gpu_ != nullptr);
            if (metrics_ != nullptr) {
                metrics_->record_cost_model_choice(choice);
            }
            switch (choice) {
                case Backend::Gpu:
                    chosen = gpu_ ? static_cast<PageCompressor*>(gpu_.get()) : cpu_.get();
                    break;
                case Backend::Cpu:
                    chosen = cpu_.get();
                    break;
                case Backend::Scalar:
                    chosen = scalar_.get();
                    break;
            }
            break;
        }
        case BackendChoice::Cpu:
            chosen = cpu_.get();
            break;
        case BackendChoice::Scalar:
            chosen = scalar_.get();
            break;
        case BackendChoice::Gpu:
            chosen = gpu_ ? static_cast<PageCompressor*>(gpu_.get()) : cpu_.get();
            break;
    }
    return *chosen;
}

PageCompressor& CompressorSet::fallback_for(Algorithm algorithm) {
    if (algorithm == Algorithm::Lz4) {
        return *cpu_;
    }
    return pick_for(algorithm, 0);
}

PageCompressor& CompressorSet::pick_for(Algorithm algorithm, std::size_t pages) {
    if (algorithm == Algorithm::Lz4) {
        return pick(pages);
    }
    std::unique_ptr<PageCompressor>& compressor = others_.at(static_cast<std::size_t>(algorithm));
    if (!compressor) {
        CpuConfig config = cpu_config_;
        config.algorithm = algorithm;
        compressor = make_cpu_compressor(
            choice_ == BackendChoice::Scalar ? Backend::Scalar : Backend::Cpu, config);
    }
    return *compressor;
}

}  // namespace ozram::daemon
