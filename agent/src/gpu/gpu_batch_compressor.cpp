// GpuBatchCompressor: batches through the pipeline (batch_pipeline.hpp) on a
// Device, with the CPU finishing any batch the GPU cannot.
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpu/batch_pipeline.hpp"
#include "gpu/gpu_compressor_factory.hpp"
#include "ozram/diagnostics.hpp"
#include "ozram/error.hpp"
#include "ozram/gpu.hpp"

namespace ozram {

namespace {

using Clock = std::chrono::steady_clock;

// Slots and pages per slot beyond which a configuration is surely a mistake.
constexpr std::size_t MAX_SLOTS = 64;
constexpr std::size_t MAX_BATCH_PAGES = std::size_t{1} << 20;
// Pages a slot holds at most: a larger batch_size is split into chunks of
// this many (a slot's buffers are 8 KiB a page of device memory).
constexpr std::size_t MAX_SLOT_PAGES = 65536;

std::uint64_t ns_since(Clock::time_point start) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

void check_batch_fits_offsets(std::size_t pages) {
    if (pages > std::numeric_limits<std::uint32_t>::max() / PAGE_SIZE) {
        throw Error(EINVAL, "batch of " + std::to_string(pages) +
                                " pages: payload offsets would not fit in 32 bits");
    }
}

[[noreturn]] void corrupt(std::size_t index, const std::string& what) {
    throw Error(EIO, "page " + std::to_string(index) + ": " + what);
}

// The checks the device cannot do without the payload: every page's bytes
// lie inside it, with a size its encoding allows.
void check_compressed_batch(const BatchResult& in) {
    for (std::size_t i = 0; i < in.pages.size(); ++i) {
        const CompressedPage& page = in.pages[i];
        if (std::uint64_t{page.offset} + page.size > in.payload.size()) {
            corrupt(i, "bytes [" + std::to_string(page.offset) + ", +" + std::to_string(page.size) +
                           ") lie outside the payload of " + std::to_string(in.payload.size()) +
                           " bytes");
        }
        switch (page.encoding) {
            case PageEncoding::SameFilled:
                if (page.size != 0)
                    corrupt(i, "same-filled page with bytes");
                break;
            case PageEncoding::Raw:
                if (page.size != PAGE_SIZE)
                    corrupt(i, "raw page of " + std::to_string(page.size));
                break;
            case PageEncoding::Lz4:
                if (page.size == 0 || page.size > PAGE_SIZE)
                    corrupt(i, "LZ4 block of " + std::to_string(page.size) + " bytes");
                break;
            default:
                corrupt(i, "unknown encoding");
        }
    }
}

void add_times(BatchResult& out, const gpu::StageTimes& times) {
    out.h2d_time_ns += times.h2d_ns;
    out.kernel_time_ns += times.kernel_ns;
    out.d2h_time_ns += times.d2h_ns;
}

}  // namespace

struct GpuBatchCompressor::Impl {
    // A batch submitted and not yet completed.
    struct InFlight {
        bool used = false;
        Ticket ticket = 0;
        std::optional<gpu::Ticket> on_device;  // none: finished on the CPU at submit
        bool finished = false;                 // the device's part is done (settle())
        std::span<const std::uint8_t* const> pages;
        std::span<std::uint8_t* const> outputs;
        BatchResult* out = nullptr;
        std::exception_ptr error;
        Clock::time_point start;
    };

    GpuBatchConfig config;
    GpuDeviceInfo info;
    std::shared_ptr<gpu::Device> device;
    std::optional<gpu::BatchPipeline> pipeline;  // empty once the GPU is given up
    std::unique_ptr<PageCompressor> cpu;         // made at the first fallback
    std::map<int, std::uint64_t> failures;       // by the device's error code
    std::uint64_t fallback_batches = 0;          // batches the CPU finished
    std::uint64_t stream_recoveries = 0;
    gpu::HostWork host_work_before_loss;  // of a pipeline given up
    std::vector<InFlight> in_flight;
    Ticket next_ticket = 1;

    Impl(const GpuBatchConfig& c, std::shared_ptr<gpu::Device> d, GpuDeviceInfo i)
        : config(c), info(std::move(i)), device(std::move(d)) {
        const std::size_t slots = config.async_dma ? config.ring_buffer_slots : 1;
        device->make_current();
        pipeline.emplace(*device, gpu::PipelineConfig{std::min(config.batch_size, MAX_SLOT_PAGES),
                                                      slots, config.kernel, huge_threshold()});
        in_flight.resize(slots);
    }

    // The largest LZ4 block kept, as the kernel takes it.
    std::uint32_t huge_threshold() const {
        return static_cast<std::uint32_t>(std::min(config.huge_threshold, PAGE_SIZE));
    }

    std::size_t slot_pages() const { return std::min(config.batch_size, MAX_SLOT_PAGES); }

    PageCompressor& cpu_compressor() {
        if (!cpu) {
            CpuConfig cpu_config;
            cpu_config.huge_threshold = config.huge_threshold;
            cpu = make_cpu_compressor(Backend::Cpu, cpu_config);
        }
        return *cpu;
    }

    gpu::HostWork host_work() const {
        gpu::HostWork work = host_work_before_loss;
        if (pipeline) {
            const gpu::HostWork& now = pipeline->host_work();
            work.bytes_copied += now.bytes_copied;
            work.descriptor_bytes += now.descriptor_bytes;
            work.pages_in_place += now.pages_in_place;
            work.pages_copied += now.pages_copied;
            work.outputs_in_place += now.outputs_in_place;
            work.outputs_copied += now.outputs_copied;
        }
        return work;
    }

    // The GPU is given up for good: its context is lost.
    void give_up_gpu() {
        if (!pipeline)
            return;
        host_work_before_loss = host_work();
        pipeline.reset();
        warn(
            "GPU backend disabled (its CUDA context is lost); compressing on the CPU from now "
            "on; restart the agent to use the GPU again");
    }

    // After a failure on the device: logged (once per kind), and counted.  A
    // sticky failure ends the GPU's use; any other spoils only the batch's
    // stream, which abandon() replaced.
    void recover(const gpu::DeviceFailure& failure, const char* operation) {
        if (++failures[failure.code()] == 1) {
            warn(std::string("GPU ") + operation + " failed: " + failure.what() +
                 "; finishing the batch on the CPU");
        }
        if (failure.sticky())
            give_up_gpu();
        else
            ++stream_recoveries;
    }

    // Forgets a device batch that failed; a failure to do so is sticky.
    void abandon(gpu::Ticket ticket) {
        if (!pipeline)
            return;
        try {
            pipeline->abandon(ticket);
        } catch (const gpu::DeviceFailure& failure) {
            recover(failure, "recovery");
            give_up_gpu();
        }
    }

    InFlight& entry_of(Ticket ticket) {
        for (InFlight& entry : in_flight) {
            if (entry.used && entry.ticket == ticket)
                return entry;
        }
        throw Error(EINVAL, "no batch in flight has ticket " + std::to_string(ticket));
    }

    // Finishes the device's part of an async batch: its results land in its
    // BatchResult, or, after a failure, the CPU redoes it.
    void finish_entry(InFlight& entry) {
        if (entry.finished)
            return;
        entry.finished = true;
        if (!entry.on_device)
            return;
        const gpu::Ticket ticket = *entry.on_device;
        if (pipeline) {
            try {
                device->make_current();
                add_times(*entry.out, pipeline->finish(ticket).times);
                entry.out->backend = Backend::Gpu;
                return;
            } catch (const gpu::DeviceFailure& failure) {
                abandon(ticket);
                recover(failure, "compression");
            } catch (...) {
                // Not the device's failure (the host out of memory): the
                // batch fails, and its slot is free for the next.
                abandon(ticket);
                entry.error = std::current_exception();
                return;
            }
        }
        ++fallback_batches;
        try {
            cpu_compressor().compress_into(entry.pages, entry.outputs, *entry.out);
        } catch (...) {
            entry.error = std::current_exception();
        }
    }

    // Finishes every async batch's device part, so that a synchronous call
    // has every slot.
    void settle() {
        std::vector<InFlight*> order;
        for (InFlight& entry : in_flight) {
            if (entry.used && !entry.finished)
                order.push_back(&entry);
        }
        std::sort(order.begin(), order.end(),
                  [](const InFlight* a, const InFlight* b) { return a->ticket < b->ticket; });
        for (InFlight* entry : order)
            finish_entry(*entry);
    }

    // Runs a synchronous batch through the slots, a chunk a slot.  False,
    // with the failure logged and counted, when the CPU must redo the batch
    // (`out` is then reset by the caller).
    template <class Submit, class Finished>
    bool run_chunks(std::size_t pages, const char* operation, Submit&& submit,
                    Finished&& finished) {
        if (!pipeline)
            return false;
        settle();
        // Settling may have given the GPU up (a stream that could not be
        // replaced): the batch is then the CPU's.
        if (!pipeline)
            return false;
        std::vector<gpu::Ticket> running;
        try {
            device->make_current();
            const std::size_t chunk = slot_pages();
            for (std::size_t first = 0; first < pages; first += chunk) {
                if (!pipeline->has_free_slot()) {
                    finished(pipeline->finish(running.front()), running.front());
                    running.erase(running.begin());
                }
                running.push_back(submit(first, std::min(chunk, pages - first)));
            }
            while (!running.empty()) {
                finished(pipeline->finish(running.front()), running.front());
                running.erase(running.begin());
            }
            return true;
        } catch (const gpu::DeviceFailure& failure) {
            for (const gpu::Ticket ticket : running)
                abandon(ticket);
            recover(failure, operation);
        } catch (...) {
            // Not the device's failure: the call fails, and every slot it
            // took is free again (settle() left none to async batches).
            if (pipeline) {
                for (const gpu::Ticket ticket : pipeline->tickets())
                    abandon(ticket);
            }
            throw;
        }
        ++fallback_batches;
        return false;
    }

    bool compress_on_device(std::span<const std::uint8_t* const> pages,
                            std::span<std::uint8_t* const> outputs, BatchResult& out) {
        return run_chunks(
            pages.size(), "compression",
            [&](std::size_t first, std::size_t count) {
                return pipeline->submit(gpu::CompressJob{
                    pages.subspan(first, count),
                    outputs.empty() ? outputs : outputs.subspan(first, count), false, &out, first});
            },
            [&](const gpu::FinishedBatch& batch, gpu::Ticket) { add_times(out, batch.times); });
    }

    bool decompress_on_device(const BatchResult& in, std::span<std::uint8_t* const> pages,
                              std::optional<std::size_t>& first_bad) {
        std::map<gpu::Ticket, std::size_t> firsts;
        return run_chunks(
            pages.size(), "decompression",
            [&](std::size_t first, std::size_t count) {
                const gpu::Ticket ticket =
                    pipeline->submit(gpu::DecompressJob{&in, first, pages.subspan(first, count)});
                firsts[ticket] = first;
                return ticket;
            },
            [&](const gpu::FinishedBatch& batch, gpu::Ticket ticket) {
                if (batch.first_corrupt && !first_bad)
                    first_bad = firsts[ticket] + *batch.first_corrupt;
            });
    }
};

std::unique_ptr<GpuBatchCompressor> make_gpu_compressor(const GpuBatchConfig& config,
                                                        std::shared_ptr<gpu::Device> device,
                                                        GpuDeviceInfo info) {
    if (config.batch_size == 0 || config.batch_size > MAX_BATCH_PAGES) {
        throw Error(EINVAL, "GPU batch_size must be 1.." + std::to_string(MAX_BATCH_PAGES) +
                                " pages, not " + std::to_string(config.batch_size));
    }
    if (config.ring_buffer_slots == 0 || config.ring_buffer_slots > MAX_SLOTS) {
        throw Error(EINVAL, "GPU ring_buffer_slots must be 1.." + std::to_string(MAX_SLOTS) +
                                ", not " + std::to_string(config.ring_buffer_slots));
    }
    if (config.huge_threshold == 0 || config.huge_threshold > PAGE_SIZE) {
        throw Error(EINVAL, "GPU huge_threshold must be 1.." + std::to_string(PAGE_SIZE) +
                                ", not " + std::to_string(config.huge_threshold));
    }
    try {
        return std::unique_ptr<GpuBatchCompressor>(
            new GpuBatchCompressor(std::make_unique<GpuBatchCompressor::Impl>(
                config, std::move(device), std::move(info))));
    } catch (const gpu::DeviceFailure& failure) {
        // cudaErrorMemoryAllocation is 2 in every CUDA release.
        throw Error(failure.code() == 2 ? ENOMEM : ENODEV,
                    std::string("GPU backend: ") + failure.what());
    }
}

std::unique_ptr<GpuBatchCompressor> GpuBatchCompressor::create(const GpuBatchConfig& config) {
    if (config.batch_size == 0 || config.batch_size > MAX_BATCH_PAGES ||
        config.ring_buffer_slots == 0 || config.ring_buffer_slots > MAX_SLOTS) {
        return make_gpu_compressor(config, nullptr, {});  // throws the EINVAL
    }
    // Throws ENODEV without a device, and in a build without CUDA.
    GpuDeviceInfo info = GpuDeviceInfo::query(config.device_index);
    if (!info.is_supported()) {
        throw Error(ENODEV, info.name + ": compute capability " +
                                std::to_string(info.compute_capability.first) + "." +
                                std::to_string(info.compute_capability.second) + " is below 9.0");
    }
    std::shared_ptr<gpu::Device> device;
    try {
        device = gpu::make_cuda_device(config.device_index);
    } catch (const gpu::DeviceFailure& failure) {
        throw Error(ENODEV, std::string("GPU backend: ") + failure.what());
    }
    return make_gpu_compressor(config, std::move(device), std::move(info));
}

GpuBatchCompressor::GpuBatchCompressor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuBatchCompressor::~GpuBatchCompressor() = default;

void GpuBatchCompressor::compress(std::span<const std::uint8_t* const> pages, BatchResult& out) {
    const auto start = Clock::now();
    check_batch_fits_offsets(pages.size());
    out.reset_without_payload(pages.size());
    out.payload.reserve(pages.size() * PAGE_SIZE);
    if (impl_->compress_on_device(pages, {}, out)) {
        out.backend = Backend::Gpu;
    } else {
        impl_->cpu_compressor().compress(pages, out);
    }
    out.total_time_ns = ns_since(start);
}

void GpuBatchCompressor::compress_into(std::span<const std::uint8_t* const> pages,
                                       std::span<std::uint8_t* const> outputs, BatchResult& out) {
    const auto start = Clock::now();
    if (outputs.size() != pages.size()) {
        throw Error(EINVAL, "compress_into: " + std::to_string(pages.size()) + " pages but " +
                                std::to_string(outputs.size()) + " outputs");
    }
    out.reset_without_payload(pages.size());
    if (pages.empty() || impl_->compress_on_device(pages, outputs, out)) {
        out.backend = Backend::Gpu;
    } else {
        impl_->cpu_compressor().compress_into(pages, outputs, out);
    }
    out.total_time_ns = ns_since(start);
}

void GpuBatchCompressor::decompress(const BatchResult& in, std::span<std::uint8_t* const> pages) {
    if (pages.size() != in.pages.size()) {
        throw Error(EINVAL, "decompress: " + std::to_string(in.pages.size()) + " pages into " +
                                std::to_string(pages.size()) + " buffers");
    }
    check_compressed_batch(in);
    if (pages.empty())
        return;
    std::optional<std::size_t> first_bad;
    if (!impl_->decompress_on_device(in, pages, first_bad)) {
        impl_->cpu_compressor().decompress(in, pages);
        return;
    }
    if (first_bad) {
        corrupt(*first_bad, "LZ4 block of " + std::to_string(in.pages[*first_bad].size) +
                                " bytes does not decode to exactly " + std::to_string(PAGE_SIZE) +
                                " bytes");
    }
}

PageCompressor::Ticket GpuBatchCompressor::submit(std::span<const std::uint8_t* const> pages,
                                                  std::span<std::uint8_t* const> outputs,
                                                  BatchResult& out) {
    if (outputs.size() != pages.size() || pages.empty() || pages.size() > max_batch_pages()) {
        throw Error(EINVAL, "submit: " + std::to_string(pages.size()) + " pages, " +
                                std::to_string(outputs.size()) + " outputs, at most " +
                                std::to_string(max_batch_pages()) + " a batch");
    }
    Impl& impl = *impl_;
    Impl::InFlight* entry = nullptr;
    for (Impl::InFlight& candidate : impl.in_flight) {
        if (!candidate.used) {
            entry = &candidate;
            break;
        }
    }
    if (entry == nullptr) {
        throw Error(EBUSY, "all " + std::to_string(impl.in_flight.size()) +
                               " GPU batches in flight are taken");
    }
    out.reset_without_payload(pages.size());
    *entry = Impl::InFlight{true,    impl.next_ticket++, std::nullopt, false, pages, outputs, &out,
                            nullptr, Clock::now()};
    if (impl.pipeline) {
        try {
            impl.device->make_current();
            entry->on_device =
                impl.pipeline->submit(gpu::CompressJob{pages, outputs, false, &out, 0});
        } catch (const gpu::DeviceFailure& failure) {
            impl.recover(failure, "compression");
        } catch (...) {
            *entry = Impl::InFlight{};  // not the device's failure: the batch fails
            throw;
        }
    }
    if (!entry->on_device) {
        ++impl.fallback_batches;
        entry->finished = true;
        try {
            impl.cpu_compressor().compress_into(pages, outputs, out);
        } catch (...) {
            entry->error = std::current_exception();
        }
    }
    return entry->ticket;
}

bool GpuBatchCompressor::poll(Ticket ticket) {
    Impl::InFlight& entry = impl_->entry_of(ticket);
    if (entry.finished || !entry.on_device || !impl_->pipeline)
        return true;
    try {
        impl_->device->make_current();
        return impl_->pipeline->ready(*entry.on_device);
    } catch (const gpu::DeviceFailure&) {
        return true;  // complete() sees the failure and redoes the batch
    }
}

void GpuBatchCompressor::complete(Ticket ticket) {
    Impl::InFlight& entry = impl_->entry_of(ticket);
    impl_->finish_entry(entry);
    entry.out->total_time_ns = ns_since(entry.start);
    const std::exception_ptr error = entry.error;
    entry = Impl::InFlight{};
    if (error)
        std::rethrow_exception(error);
}

std::size_t GpuBatchCompressor::max_in_flight() const {
    return impl_->in_flight.size();
}

std::size_t GpuBatchCompressor::max_batch_pages() const {
    return impl_->slot_pages();
}

const GpuDeviceInfo& GpuBatchCompressor::device() const {
    return impl_->info;
}
std::uint64_t GpuBatchCompressor::fallback_batches() const {
    return impl_->fallback_batches;
}
std::uint64_t GpuBatchCompressor::stream_recoveries() const {
    return impl_->stream_recoveries;
}
bool GpuBatchCompressor::gpu_in_use() const {
    return impl_->pipeline.has_value();
}

bool GpuBatchCompressor::register_host_region(std::span<const std::uint8_t> region) {
    if (!impl_->pipeline) {
        gpu::HostRegions{}.check_can_add(region.data(), region.size());
        return false;  // the GPU was given up: nothing reads the region
    }
    std::string why;
    if (impl_->pipeline->add_region(region, false, why))
        return true;
    warn("the GPU cannot read a host region of " + std::to_string(region.size()) +
         " bytes in place: the driver cannot register it: " + why + "; its pages are copied");
    return false;
}

bool GpuBatchCompressor::register_output_region(std::span<std::uint8_t> region) {
    if (!impl_->pipeline) {
        gpu::HostRegions{}.check_can_add(region.data(), region.size());
        return false;
    }
    std::string why;
    if (impl_->pipeline->add_region(region, true, why))
        return true;
    warn("the GPU cannot write a host region of " + std::to_string(region.size()) +
         " bytes in place: the driver cannot register it: " + why +
         "; its pages' bytes are copied");
    return false;
}

bool GpuBatchCompressor::unregister_host_region(const std::uint8_t* base) {
    // A batch in flight may still read its pages from the region, or write
    // its bytes into it: the device must be done with it before the driver
    // unmaps it, so every batch's device part finishes first.
    impl_->settle();
    return impl_->pipeline && impl_->pipeline->remove_region(base);
}

std::uint64_t GpuBatchCompressor::pages_read_in_place() const {
    return impl_->host_work().pages_in_place;
}
std::uint64_t GpuBatchCompressor::pages_copied() const {
    return impl_->host_work().pages_copied;
}
GpuHostWork GpuBatchCompressor::host_work() const {
    return impl_->host_work();
}
void GpuBatchCompressor::keep_timeline(bool keep) {
    if (impl_->pipeline)
        impl_->pipeline->keep_timeline(keep);
}
std::vector<GpuTimelineEntry> GpuBatchCompressor::take_timeline() {
    return impl_->pipeline ? impl_->pipeline->take_timeline() : std::vector<GpuTimelineEntry>{};
}

}  // namespace ozram
