#include "emulated_device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "kernels/lz4_compress.cuh"
#include "kernels/lz4_decompress.cuh"
#include "kernels/page_copy.cuh"

namespace ozram::gpu::test {
namespace {

constexpr int OPERATIONS = static_cast<int>(Operation::Count);
constexpr int STICKY_CODE = 700;  // what CUDA calls cudaErrorIllegalAddress

std::uint8_t* at(std::uint64_t address) {
    return reinterpret_cast<std::uint8_t*>(address);
}

template <kernels::CompressKernel Kernel>
void compress_one(const std::uint8_t* page, std::uint8_t* slot, kernels::PageDescriptor& descriptor,
                  std::uint32_t threshold) {
    auto scratch = std::make_unique<kernels::CompressScratch<Kernel>>();
    kernels::compress_page<Kernel>(kernels::Warp{}, *scratch, page, slot, descriptor, threshold);
}

void compress_one(kernels::CompressKernel kernel, const std::uint8_t* page, std::uint8_t* slot,
                  kernels::PageDescriptor& descriptor, std::uint32_t threshold) {
    switch (kernel) {
        case kernels::CompressKernel::Window12:
            return compress_one<kernels::CompressKernel::Window12>(page, slot, descriptor,
                                                                   threshold);
        case kernels::CompressKernel::Window11:
            return compress_one<kernels::CompressKernel::Window11>(page, slot, descriptor,
                                                                   threshold);
        case kernels::CompressKernel::Window10:
            return compress_one<kernels::CompressKernel::Window10>(page, slot, descriptor,
                                                                   threshold);
        case kernels::CompressKernel::Reprobe:
            return compress_one<kernels::CompressKernel::Reprobe>(page, slot, descriptor,
                                                                  threshold);
    }
}

}  // namespace

EmulatedDevice::EmulatedDevice()
    : planted_(OPERATIONS), ran_(OPERATIONS, 0), seen_(OPERATIONS, 0) {}

EmulatedDevice::~EmulatedDevice() {
    for (const Range& range : ranges_) {
        if (range.kind == Memory::Device || range.kind == Memory::Mapped)
            std::free(at(range.begin));
    }
}

void EmulatedDevice::fail(Operation kind, std::uint64_t nth, int code, bool sticky) {
    planted_[static_cast<int>(kind)].push_back({seen_[static_cast<int>(kind)] + nth, code, sticky});
}

std::size_t EmulatedDevice::registered_regions() const {
    return static_cast<std::size_t>(
        std::count_if(ranges_.begin(), ranges_.end(), [](const Range& r) {
            return r.kind == Memory::Registered || r.kind == Memory::RegisteredWritable;
        }));
}

void EmulatedDevice::check_alive() const {
    if (dead_)
        throw DeviceFailure(STICKY_CODE, true, "emulated device: the context is lost");
}

DeviceAddress EmulatedDevice::allocate(std::size_t bytes) {
    check_alive();
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (p == nullptr)
        throw DeviceFailure(2, false, "emulated device: out of memory");
    ranges_.push_back({reinterpret_cast<std::uint64_t>(p), bytes, Memory::Device});
    return reinterpret_cast<std::uint64_t>(p);
}

void EmulatedDevice::release(DeviceAddress address) noexcept {
    const auto it = std::find_if(ranges_.begin(), ranges_.end(), [&](const Range& r) {
        return r.begin == address && r.kind == Memory::Device;
    });
    if (it != ranges_.end()) {
        std::free(at(it->begin));
        ranges_.erase(it);
    }
}

std::uint8_t* EmulatedDevice::allocate_mapped(std::size_t bytes) {
    check_alive();
    void* p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (p == nullptr)
        throw DeviceFailure(2, false, "emulated device: out of pinned memory");
    ranges_.push_back({reinterpret_cast<std::uint64_t>(p), bytes, Memory::Mapped});
    return static_cast<std::uint8_t*>(p);
}

void EmulatedDevice::release_mapped(std::uint8_t* host) noexcept {
    const auto it = std::find_if(ranges_.begin(), ranges_.end(), [&](const Range& r) {
        return r.begin == reinterpret_cast<std::uint64_t>(host) && r.kind == Memory::Mapped;
    });
    if (it != ranges_.end()) {
        std::free(host);
        ranges_.erase(it);
    }
}

DeviceAddress EmulatedDevice::mapped_address(const std::uint8_t* host) {
    check_alive();
    const Range& range = find(reinterpret_cast<std::uint64_t>(host), 1, "mapped_address");
    if (range.kind != Memory::Mapped)
        throw DeviceFailure(1, false, "emulated device: not mapped memory");
    return reinterpret_cast<std::uint64_t>(host);
}

std::optional<DeviceAddress> EmulatedDevice::register_host(std::span<const std::uint8_t> region,
                                                           bool device_writes, std::string& why) {
    if (dead_ || refuse_registration_) {
        why = "cudaErrorNotPermitted (the emulated device refuses)";
        return std::nullopt;
    }
    ranges_.push_back({reinterpret_cast<std::uint64_t>(region.data()), region.size(),
                       device_writes ? Memory::RegisteredWritable : Memory::Registered});
    return reinterpret_cast<std::uint64_t>(region.data());
}

void EmulatedDevice::unregister_host(const std::uint8_t* base) noexcept {
    const auto it = std::find_if(ranges_.begin(), ranges_.end(), [&](const Range& r) {
        return r.begin == reinterpret_cast<std::uint64_t>(base) &&
               (r.kind == Memory::Registered || r.kind == Memory::RegisteredWritable);
    });
    if (it != ranges_.end())
        ranges_.erase(it);
}

Stream EmulatedDevice::create_stream() {
    check_alive();
    if (refuse_streams_ > 0) {
        --refuse_streams_;
        throw DeviceFailure(2, false, "emulated device: no stream (out of memory)");
    }
    auto state = std::make_unique<StreamState>();
    auto* tag = reinterpret_cast<StreamTag*>(state.get());
    streams_.emplace(tag, std::move(state));
    return tag;
}

void EmulatedDevice::destroy_stream(Stream stream) noexcept {
    const auto it = streams_.find(stream);
    if (it == streams_.end())
        return;
    for (auto& [tag, event] : events_) {
        if (event->stream == it->second.get()) {
            event->stream = nullptr;
            event->completed = true;
        }
    }
    streams_.erase(it);
}

void EmulatedDevice::drain(Stream stream) noexcept {
    const auto it = streams_.find(stream);
    if (it == streams_.end())
        return;
    // What is queued runs, as on a device; its failure is nobody's to see.
    for (auto& [tag, event] : events_) {
        if (event->stream == it->second.get() && !event->completed) {
            try {
                run_until(*event);
            } catch (const DeviceFailure&) {
            }
        }
    }
    it->second->queue.clear();
}

Event EmulatedDevice::create_event() {
    check_alive();
    auto state = std::make_unique<EventState>();
    auto* tag = reinterpret_cast<EventTag*>(state.get());
    events_.emplace(tag, std::move(state));
    return tag;
}

void EmulatedDevice::destroy_event(Event event) noexcept {
    for (auto& [tag, stream] : streams_) {
        for (Queued& queued : stream->queue) {
            if (queued.marks == event)
                queued.marks = nullptr;
        }
    }
    events_.erase(event);
}

void EmulatedDevice::record(Event event, Stream stream) {
    check_alive();
    EventState& state = *events_.at(event);
    StreamState& queue = *streams_.at(stream);
    state.stream = &queue;
    state.completed = false;
    state.asked = false;
    queue.queue.push_back({Operation::Count, {}, event});
}

void EmulatedDevice::run_until(EventState& event) {
    StreamState* stream = event.stream;
    while (!event.completed && stream != nullptr && !stream->queue.empty()) {
        Queued next = std::move(stream->queue.front());
        stream->queue.pop_front();
        if (!next.run) {
            if (next.marks != nullptr) {
                EventState& marked = *events_.at(next.marks);
                marked.completed = true;
                marked.time = ++clock_;
            }
            continue;
        }
        const int kind = static_cast<int>(next.kind);
        ++seen_[kind];
        auto& planted = planted_[kind];
        const auto failure = std::find_if(planted.begin(), planted.end(),
                                          [&](const auto& p) { return p.nth == seen_[kind]; });
        try {
            check_alive();
            if (failure != planted.end()) {
                const PlantedFailure what = *failure;
                planted.erase(failure);
                dead_ = dead_ || what.sticky;
                throw DeviceFailure(what.code, what.sticky, "emulated device: planted failure");
            }
            next.run();
            ++ran_[kind];
        } catch (const DeviceFailure&) {
            // The stream is spoilt: what was queued behind the failure never runs.
            for (Queued& rest : stream->queue) {
                if (rest.marks != nullptr)
                    events_.at(rest.marks)->completed = true;
            }
            stream->queue.clear();
            throw;
        }
    }
}

bool EmulatedDevice::done(Event event) {
    check_alive();
    EventState& state = *events_.at(event);
    if (state.completed)
        return true;
    if (!state.asked) {
        state.asked = true;  // the device is still busy: ask again later
        return false;
    }
    run_until(state);
    return true;
}

void EmulatedDevice::wait(Event event) {
    check_alive();
    if (std::exchange(exhaust_at_wait_, false))
        throw std::bad_alloc();
    run_until(*events_.at(event));
}

std::uint64_t EmulatedDevice::elapsed_ns(Event from, Event to) {
    const EventState& a = *events_.at(from);
    const EventState& b = *events_.at(to);
    return b.time > a.time ? (b.time - a.time) * 1000 : 0;
}

void EmulatedDevice::enqueue(Operation kind, Stream stream, std::function<void()> run) {
    check_alive();
    if (refuse_next_ == kind) {
        refuse_next_.reset();
        throw DeviceFailure(2, false, "emulated device: launch refused");
    }
    if (exhaust_at_enqueue_ == kind) {
        exhaust_at_enqueue_.reset();
        throw std::bad_alloc();
    }
    streams_.at(stream)->queue.push_back({kind, std::move(run), nullptr});
}

const EmulatedDevice::Range& EmulatedDevice::find(std::uint64_t address, std::size_t bytes,
                                                  const char* what) const {
    for (const Range& range : ranges_) {
        if (address >= range.begin && address - range.begin <= range.bytes &&
            bytes <= range.bytes - (address - range.begin))
            return range;
    }
    throw DeviceFailure(
        STICKY_CODE, true,
        std::string("emulated device: ") + what + " touches memory the device does not know");
}

void EmulatedDevice::expect_device(std::uint64_t address, std::size_t bytes,
                                   const char* what) const {
    if (find(address, bytes, what).kind != Memory::Device)
        throw DeviceFailure(STICKY_CODE, true,
                            std::string("emulated device: ") + what + " expects device memory");
}

void EmulatedDevice::expect_host(std::uint64_t address, std::size_t bytes, bool writes,
                                 const char* what) {
    const Range& range = find(address, bytes, what);
    const bool ok = range.kind == Memory::Mapped || range.kind == Memory::RegisteredWritable ||
                    (!writes && range.kind == Memory::Registered);
    if (!ok)
        throw DeviceFailure(STICKY_CODE, true,
                            std::string("emulated device: ") + what +
                                (writes ? " writes" : " reads") + " host memory it may not");
    (writes ? bytes_written_to_host_ : bytes_read_from_host_) += bytes;
}

void EmulatedDevice::expect_reachable(std::uint64_t address, std::size_t bytes, bool writes,
                                      const char* what) {
    if (find(address, bytes, what).kind == Memory::Device)
        return;
    expect_host(address, bytes, writes, what);
}

void EmulatedDevice::upload(DeviceAddress to, const void* from, std::size_t bytes, Stream stream) {
    enqueue(Operation::Upload, stream, [this, to, from, bytes] {
        expect_device(to, bytes, "upload");
        find(reinterpret_cast<std::uint64_t>(from), bytes, "upload");  // pinned or registered
        std::memcpy(at(to), from, bytes);
        bytes_uploaded_ += bytes;
    });
}

void EmulatedDevice::download(void* to, DeviceAddress from, std::size_t bytes, Stream stream) {
    enqueue(Operation::Download, stream, [this, to, from, bytes] {
        expect_device(from, bytes, "download");
        find(reinterpret_cast<std::uint64_t>(to), bytes, "download");
        std::memcpy(to, at(from), bytes);
        bytes_downloaded_ += bytes;
    });
}

void EmulatedDevice::gather_pages(const GatherLaunch& launch, Stream stream) {
    enqueue(Operation::Gather, stream, [this, launch] {
        expect_device(launch.sources, launch.count * sizeof(std::uint64_t), "gather");
        expect_device(launch.pages, std::size_t{launch.count} * PAGE_SIZE, "gather");
        const auto* sources = reinterpret_cast<const std::uint64_t*>(launch.sources);
        for (std::uint32_t i = 0; i < launch.count; ++i) {
            expect_reachable(sources[i], PAGE_SIZE, false, "gather");
            kernels::gather_page(kernels::Warp{}, at(sources[i]), at(launch.pages) + i * PAGE_SIZE);
        }
    });
}

void EmulatedDevice::compress_pages(const CompressLaunch& launch, Stream stream) {
    enqueue(Operation::Compress, stream, [this, launch] {
        const std::size_t bytes = std::size_t{launch.count} * PAGE_SIZE;
        expect_device(launch.pages, bytes, "compression kernel");
        expect_device(launch.slots, bytes, "compression kernel");
        expect_device(launch.descriptors, launch.count * sizeof(kernels::PageDescriptor),
                      "compression kernel");
        auto* descriptors = reinterpret_cast<kernels::PageDescriptor*>(launch.descriptors);
        const auto* destinations = reinterpret_cast<const std::uint64_t*>(launch.destinations);
        if (destinations != nullptr)
            expect_device(launch.destinations, launch.count * sizeof(std::uint64_t),
                          "compression kernel");
        for (std::uint32_t i = 0; i < launch.count; ++i) {
            std::uint8_t* const slot = at(launch.slots) + i * PAGE_SIZE;
            compress_one(launch.kernel, at(launch.pages) + i * PAGE_SIZE, slot, descriptors[i],
                         launch.huge_threshold);
            const std::uint32_t bytes = kernels::stored_bytes(descriptors[i], launch.raw_kept);
            if (destinations == nullptr || bytes == 0)
                continue;
            expect_reachable(destinations[i], kernels::vector_bytes(bytes), true,
                             "compression kernel");
            kernels::copy_block(kernels::Warp{}, slot, at(destinations[i]), bytes);
        }
        if (garble_) {
            garble_ = false;
            descriptors[0].encoding = PageEncoding::Lz4;
            descriptors[0].size = PAGE_SIZE + 1;
        }
    });
}

void EmulatedDevice::pack_offsets(const PackLaunch& launch, Stream stream) {
    enqueue(Operation::PackOffsets, stream, [this, launch] {
        expect_device(launch.descriptors, launch.count * sizeof(kernels::PageDescriptor),
                      "offsets kernel");
        expect_device(launch.offsets, launch.count * sizeof(std::uint32_t), "offsets kernel");
        expect_device(launch.total, sizeof(std::uint32_t), "offsets kernel");
        const auto* descriptors =
            reinterpret_cast<const kernels::PageDescriptor*>(launch.descriptors);
        auto* offsets = reinterpret_cast<std::uint32_t*>(launch.offsets);
        std::uint32_t sum = 0;
        for (std::uint32_t i = 0; i < launch.count; ++i) {
            offsets[i] = sum;
            sum += kernels::stored_bytes(descriptors[i], launch.raw_kept);
        }
        *reinterpret_cast<std::uint32_t*>(launch.total) = sum;
    });
}

void EmulatedDevice::copy_out(const CopyOutLaunch& launch, Stream stream) {
    enqueue(Operation::CopyOut, stream, [this, launch] {
        expect_device(launch.slots, std::size_t{launch.count} * PAGE_SIZE + kernels::BUFFER_PAD,
                      "copy-out kernel");
        const auto* descriptors =
            reinterpret_cast<const kernels::PageDescriptor*>(launch.descriptors);
        const auto* offsets = reinterpret_cast<const std::uint32_t*>(launch.offsets);
        for (std::uint32_t i = 0; i < launch.count; ++i) {
            const std::uint32_t bytes = kernels::stored_bytes(descriptors[i], launch.raw_kept);
            if (bytes == 0)
                continue;
            const std::uint8_t* const slot = at(launch.slots) + i * PAGE_SIZE;
            const std::uint64_t to = launch.packed + offsets[i];
            expect_reachable(to, bytes, true, "copy-out kernel");
            kernels::copy_to_unaligned(kernels::Warp{}, slot, at(to), bytes);
        }
    });
}

void EmulatedDevice::decompress_pages(const DecompressLaunch& launch, Stream stream) {
    enqueue(Operation::Decompress, stream, [this, launch] {
        auto* descriptors = reinterpret_cast<kernels::PageDescriptor*>(launch.descriptors);
        const auto* destinations = reinterpret_cast<const std::uint64_t*>(launch.destinations);
        const auto* offsets = reinterpret_cast<const std::uint32_t*>(launch.offsets);
        auto scratch = std::make_unique<kernels::DecompressScratch>();
        for (std::uint32_t i = 0; i < launch.count; ++i) {
            const std::uint64_t block = launch.blocks + offsets[i];
            expect_reachable(block, std::min<std::uint32_t>(descriptors[i].size, PAGE_SIZE), false,
                             "decompression kernel");
            expect_reachable(destinations[i], PAGE_SIZE, true, "decompression kernel");
            kernels::decompress_page(kernels::Warp{}, *scratch, at(block), descriptors[i],
                                     at(destinations[i]));
        }
        if (garble_decompression_ && launch.count > 0) {
            descriptors[0].status = *garble_decompression_;
            garble_decompression_.reset();
        }
    });
}

}  // namespace ozram::gpu::test
