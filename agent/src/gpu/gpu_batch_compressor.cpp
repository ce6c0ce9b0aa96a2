// GpuBatchCompressor: batches through the slot pipeline (slot_pipeline.hpp)
// and the LZ4 page kernels, with the CPU finishing any batch the GPU cannot.
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpu/cuda_call.hpp"
#include "gpu/host_regions.hpp"
#include "gpu/slot_pipeline.hpp"
#include "kernels/lz4_kernels.hpp"
#include "ozram/diagnostics.hpp"
#include "ozram/error.hpp"
#include "ozram/gpu.hpp"
#include "page_sink.hpp"

namespace ozram {

namespace {

using Clock = std::chrono::steady_clock;

// Device resets tried before the GPU is given up for good.
constexpr int MAX_DEVICE_RESETS = 3;
// Slots and pages per batch beyond which a configuration is surely a mistake.
constexpr std::size_t MAX_SLOTS = 64;
constexpr std::size_t MAX_BATCH_PAGES = std::size_t{1} << 20;

// A result from the device that no correct kernel produces.
class ImpossibleResult : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

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

}  // namespace

struct GpuBatchCompressor::Impl {
    GpuBatchConfig config;
    GpuDeviceInfo device;
    std::optional<gpu::SlotPipeline> pipeline;  // empty once the GPU is given up
    std::unique_ptr<PageCompressor> cpu;        // made at the first fallback
    std::map<int, std::uint64_t> failures;      // by cudaError_t
    std::uint64_t fallback_batches = 0;         // batches the CPU finished
    int device_resets = 0;
    gpu::HostRegions host_regions;  // registered memory the device reads in place
    std::uint64_t pages_in_place = 0;
    std::uint64_t pages_copied = 0;

    Impl(const GpuBatchConfig& c, GpuDeviceInfo d) : config(c), device(std::move(d)) {
        select_device();
        pipeline.emplace(config.batch_size, config.ring_buffer_slots, config.async_dma);
    }

    ~Impl() {
        for (const gpu::HostRegion& region : host_regions.regions())
            cudaHostUnregister(const_cast<std::uint8_t*>(region.host));
    }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    // Registers `region` with the driver and returns the device address of
    // its first byte, or the driver's reason for refusing.  Read-only where
    // the device supports it: the agent maps the kernel's staging area
    // read-only, and pinning it for writing would fail.
    // Throws nothing: a refusal only means the pages are copied.
    std::optional<std::uint64_t> pin_and_map(std::span<const std::uint8_t> region,
                                             std::string& why) const {
        int read_only = 0;
        if (cudaDeviceGetAttribute(&read_only, cudaDevAttrHostRegisterReadOnlySupported,
                                   config.device_index) != cudaSuccess) {
            read_only = 0;
        }
        const unsigned flags = cudaHostRegisterMapped | (read_only ? cudaHostRegisterReadOnly : 0u);
        void* host = const_cast<std::uint8_t*>(region.data());
        cudaError_t result = cudaSetDevice(config.device_index);
        if (result == cudaSuccess)
            result = cudaHostRegister(host, region.size(), flags);
        if (result == cudaSuccess) {
            void* device_address = nullptr;
            result = cudaHostGetDevicePointer(&device_address, host, 0);
            if (result == cudaSuccess)
                return reinterpret_cast<std::uint64_t>(device_address);
            cudaHostUnregister(host);
        }
        cudaGetLastError();  // neither failure is sticky; do not leave it for the next call
        why = std::string(cudaGetErrorName(result)) + " (" + cudaGetErrorString(result) + ")";
        return std::nullopt;
    }

    // After cudaDeviceReset the driver has forgotten every registration.
    void register_regions_again() {
        const std::vector<gpu::HostRegion> known(host_regions.regions().begin(),
                                                 host_regions.regions().end());
        for (const gpu::HostRegion& region : known) {
            host_regions.remove(region.host);
            std::string why;
            const auto address = pin_and_map({region.host, region.bytes}, why);
            if (address) {
                host_regions.add({region.host, region.bytes, *address});
            } else {
                warn("after the device reset, a host region of " + std::to_string(region.bytes) +
                     " bytes could not be registered again (" + why +
                     "); its pages are copied from now on");
            }
        }
    }

    // Fills slot.host_sources and returns true when the device can read
    // every page of the chunk in place.
    bool find_in_place(std::span<const std::uint8_t* const> chunk, gpu::Slot& slot) const {
        if (host_regions.empty())
            return false;
        for (std::size_t i = 0; i < chunk.size(); ++i) {
            const auto address = host_regions.device_address(chunk[i], PAGE_SIZE);
            if (!address)
                return false;
            slot.host_sources.data()[i] = *address;
        }
        return true;
    }

    void select_device() const {
        gpu::cuda_check(cudaSetDevice(config.device_index), "cudaSetDevice");
    }

    // The largest LZ4 block kept, as the kernel takes it.
    std::uint32_t huge_threshold() const {
        return static_cast<std::uint32_t>(std::min(config.huge_threshold, PAGE_SIZE));
    }

    PageCompressor& cpu_compressor() {
        if (!cpu) {
            CpuConfig cpu_config;
            cpu_config.huge_threshold = config.huge_threshold;
            cpu = make_cpu_compressor(Backend::Cpu, cpu_config);
        }
        return *cpu;
    }

    void compress_on_device(std::span<const std::uint8_t* const> pages, const PageSink& sink,
                            BatchResult& out) {
        select_device();
        const std::uint32_t threshold = huge_threshold();
        std::uint64_t in_place = 0;
        std::uint64_t copied = 0;
        const gpu::StageTimes times = pipeline->run(
            pages.size(), false,
            [&](gpu::Slot& slot) {
                const auto chunk = pages.subspan(slot.first, slot.count);
                if (find_in_place(chunk, slot)) {
                    slot.gather = true;
                    return;
                }
                for (std::size_t i = 0; i < slot.count; ++i)
                    std::memcpy(slot.host_in.data() + i * PAGE_SIZE, chunk[i], PAGE_SIZE);
            },
            [&](gpu::Slot& slot, cudaStream_t stream) {
                return kernels::launch_compress_pages(
                    slot.device_in.data(), slot.device_out.data(), slot.device_descriptors.data(),
                    static_cast<std::uint32_t>(slot.count), threshold, stream);
            },
            [&](const gpu::Slot& slot) {
                unpack_compressed(slot, threshold, sink, out);
                (slot.gather ? in_place : copied) += slot.count;
            });
        // Counted only for a batch the device finished (a failed one is redone on the CPU).
        pages_in_place += in_place;
        pages_copied += copied;
        out.h2d_time_ns = times.h2d_ns;
        out.kernel_time_ns = times.kernel_ns;
        out.d2h_time_ns = times.d2h_ns;
    }

    // The D2H copy brought whole slots into pinned memory; only each page's
    // own bytes are copied on, into the sink (see Documentation/gpu.md).
    static void unpack_compressed(const gpu::Slot& slot, std::uint32_t threshold,
                                  const PageSink& sink, BatchResult& out) {
        for (std::size_t i = 0; i < slot.count; ++i) {
            const kernels::PageDescriptor& d = slot.host_descriptors.data()[i];
            const std::size_t index = slot.first + i;
            const bool size_ok =
                (d.encoding == PageEncoding::Lz4 && d.size > 0 && d.size <= threshold) ||
                (d.encoding == PageEncoding::Raw && d.size == PAGE_SIZE) ||
                (d.encoding == PageEncoding::SameFilled && d.size == 0);
            if (d.status != kernels::PAGE_OK || !size_ok) {
                throw ImpossibleResult("compression kernel: impossible descriptor for page " +
                                       std::to_string(index));
            }
            CompressedPage& page = out.pages[index];
            page.encoding = d.encoding;
            page.fill_word = d.encoding == PageEncoding::SameFilled ? d.fill_word : 0;
            page.offset = sink.offset(index);
            page.size = d.size;
            if (d.encoding != PageEncoding::Raw || sink.copies_raw()) {
                std::memcpy(sink.slot(index), slot.host_out.data() + i * PAGE_SIZE, d.size);
            }
        }
    }

    void decompress_on_device(const BatchResult& in, std::span<std::uint8_t* const> pages) {
        select_device();
        std::optional<std::size_t> first_bad;
        pipeline->run(
            pages.size(), true,
            [&](gpu::Slot& slot) {
                for (std::size_t i = 0; i < slot.count; ++i) {
                    const CompressedPage& page = in.pages[slot.first + i];
                    slot.host_descriptors.data()[i] = kernels::PageDescriptor{
                        page.fill_word, page.size, page.encoding, kernels::PAGE_OK, 0};
                    std::memcpy(slot.host_in.data() + i * PAGE_SIZE,
                                in.payload.data() + page.offset, page.size);
                }
            },
            [&](gpu::Slot& slot, cudaStream_t stream) {
                return kernels::launch_decompress_pages(
                    slot.device_in.data(), slot.device_descriptors.data(), slot.device_out.data(),
                    static_cast<std::uint32_t>(slot.count), stream);
            },
            [&](const gpu::Slot& slot) {
                for (std::size_t i = 0; i < slot.count; ++i) {
                    const std::size_t index = slot.first + i;
                    if (slot.host_descriptors.data()[i].status != kernels::PAGE_OK) {
                        if (!first_bad || index < *first_bad)
                            first_bad = index;
                        continue;
                    }
                    std::memcpy(pages[index], slot.host_out.data() + i * PAGE_SIZE, PAGE_SIZE);
                }
            });
        if (first_bad) {
            corrupt(*first_bad, "LZ4 block of " + std::to_string(in.pages[*first_bad].size) +
                                    " bytes does not decode to exactly " +
                                    std::to_string(PAGE_SIZE) + " bytes");
        }
    }

    // Compresses the batch on the device into `sink`.  Returns false, the
    // failure logged and counted, when the caller must redo it on the CPU.
    bool compress(std::span<const std::uint8_t* const> pages, const PageSink& sink,
                  BatchResult& out) {
        if (pages.empty())
            return true;
        if (pipeline) {
            try {
                compress_on_device(pages, sink, out);
                return true;
            } catch (const gpu::CudaFailure& failure) {
                recover(failure.code(), failure.what(), "compression");
            } catch (const ImpossibleResult& failure) {
                recover(-1, failure.what(), "compression");
            }
        }
        ++fallback_batches;
        return false;
    }

    // After a failure on the device: log it (once per kind), then keep the
    // GPU if the error was not sticky, else reset the device and rebuild the
    // pipeline, or give the GPU up.  The caller redoes the batch on the CPU.
    void recover(int code, const std::string& what, const char* operation) {
        if (++failures[code] == 1) {
            warn(std::string("GPU ") + operation + " failed: " + what +
                 "; finishing the batch on the CPU");
        }
        if (!pipeline)
            return;
        pipeline->abandon();
        cudaGetLastError();  // clears an error that was not sticky
        if (cudaDeviceSynchronize() == cudaSuccess)
            return;

        pipeline.reset();
        if (++device_resets <= MAX_DEVICE_RESETS) {
            warn("the GPU error is sticky: resetting CUDA device " +
                 std::to_string(config.device_index));
            try {
                select_device();
                gpu::cuda_check(cudaDeviceReset(), "cudaDeviceReset");
                select_device();
                pipeline.emplace(config.batch_size, config.ring_buffer_slots, config.async_dma);
                register_regions_again();
                return;
            } catch (const gpu::CudaFailure& again) {
                pipeline.reset();
                warn(std::string("CUDA device reset failed: ") + again.what());
            }
        }
        warn("GPU backend disabled; compressing on the CPU from now on");
    }
};

std::unique_ptr<GpuBatchCompressor> GpuBatchCompressor::create(const GpuBatchConfig& config) {
    if (config.batch_size == 0 || config.batch_size > MAX_BATCH_PAGES) {
        throw Error(EINVAL, "GPU batch_size must be 1.." + std::to_string(MAX_BATCH_PAGES) +
                                " pages, not " + std::to_string(config.batch_size));
    }
    if (config.ring_buffer_slots == 0 || config.ring_buffer_slots > MAX_SLOTS) {
        throw Error(EINVAL, "GPU ring_buffer_slots must be 1.." + std::to_string(MAX_SLOTS) +
                                ", not " + std::to_string(config.ring_buffer_slots));
    }
    if (!gpu_available())
        throw Error(ENODEV, "no usable CUDA device");
    GpuDeviceInfo device = GpuDeviceInfo::query(config.device_index);
    if (!device.is_supported()) {
        throw Error(ENODEV, device.name + ": compute capability " +
                                std::to_string(device.compute_capability.first) + "." +
                                std::to_string(device.compute_capability.second) + " is below 9.0");
    }
    try {
        return std::unique_ptr<GpuBatchCompressor>(
            new GpuBatchCompressor(std::make_unique<Impl>(config, std::move(device))));
    } catch (const gpu::CudaFailure& failure) {
        throw Error(failure.code() == cudaErrorMemoryAllocation ? ENOMEM : ENODEV,
                    std::string("GPU backend: ") + failure.what());
    }
}

GpuBatchCompressor::GpuBatchCompressor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuBatchCompressor::~GpuBatchCompressor() = default;

void GpuBatchCompressor::compress(std::span<const std::uint8_t* const> pages, BatchResult& out) {
    const auto start = Clock::now();
    check_batch_fits_offsets(pages.size());
    out.reset(pages.size());
    if (!impl_->compress(pages, PageSink::payload(out), out))
        impl_->cpu_compressor().compress(pages, out);
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
    if (!impl_->compress(pages, PageSink::buffers(outputs), out))
        impl_->cpu_compressor().compress_into(pages, outputs, out);
    out.total_time_ns = ns_since(start);
}

void GpuBatchCompressor::decompress(const BatchResult& in, std::span<std::uint8_t* const> pages) {
    if (pages.size() != in.pages.size()) {
        throw Error(EINVAL, "decompress: " + std::to_string(in.pages.size()) + " pages into " +
                                std::to_string(pages.size()) + " buffers");
    }
    check_compressed_batch(in);
    if (impl_->pipeline && !pages.empty()) {
        try {
            impl_->decompress_on_device(in, pages);
            return;
        } catch (const gpu::CudaFailure& failure) {
            impl_->recover(failure.code(), failure.what(), "decompression");
        }
    }
    if (!pages.empty()) {
        ++impl_->fallback_batches;
        impl_->cpu_compressor().decompress(in, pages);
    }
}

const GpuDeviceInfo& GpuBatchCompressor::device() const {
    return impl_->device;
}
std::uint64_t GpuBatchCompressor::fallback_batches() const {
    return impl_->fallback_batches;
}

bool GpuBatchCompressor::register_host_region(std::span<const std::uint8_t> region) {
    impl_->host_regions.check_can_add(region.data(), region.size());
    if (!impl_->pipeline)
        return false;  // the GPU was given up: nothing reads the region
    std::string why;
    const auto address = impl_->pin_and_map(region, why);
    if (!address) {
        warn("the GPU cannot read a host region of " + std::to_string(region.size()) +
             " bytes in place: the driver cannot register it: " + why + "; its pages are copied");
        return false;
    }
    impl_->host_regions.add({region.data(), region.size(), *address});
    return true;
}

bool GpuBatchCompressor::unregister_host_region(const std::uint8_t* base) {
    if (!impl_->host_regions.remove(base))
        return false;
    cudaHostUnregister(const_cast<std::uint8_t*>(base));
    cudaGetLastError();  // after a failed device reset this fails too, harmlessly
    return true;
}

std::uint64_t GpuBatchCompressor::pages_read_in_place() const {
    return impl_->pages_in_place;
}
std::uint64_t GpuBatchCompressor::pages_copied() const {
    return impl_->pages_copied;
}

}  // namespace ozram
