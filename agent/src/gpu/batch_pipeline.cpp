#include "gpu/batch_pipeline.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <utility>

#include "kernels/page_copy.cuh"
#include "ozram/error.hpp"

namespace ozram::gpu {
namespace {

using kernels::PageDescriptor;

// The host half's small per-page arrays, in one mapped block per slot.
struct HostArrays {
    static std::size_t bytes(std::size_t pages) {
        return pages *
                   (sizeof(PageDescriptor) + 2 * sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
               sizeof(std::uint32_t);
    }
};

// A descriptor the compression kernel can have written: anything else is a
// device gone wrong, and the batch is redone elsewhere.
bool plausible(const PageDescriptor& d, std::uint32_t threshold) {
    if (d.status != kernels::PAGE_OK)
        return false;
    switch (d.encoding) {
        case PageEncoding::Lz4:
            return d.size > 0 && d.size <= threshold;
        case PageEncoding::Raw:
            return d.size == PAGE_SIZE;
        case PageEncoding::SameFilled:
            return d.size == 0;
        default:
            return false;
    }
}

bool has_bytes(const CompressedPage& page) {
    return page.encoding == PageEncoding::Lz4 || page.encoding == PageEncoding::Raw;
}

// Runs of pages to compress that lie back to back in host memory come up by
// DMA, one copy a run: the copy engine runs at the bus's speed and leaves
// the SMs to the kernels.  A batch scattered over more runs than this is
// read by the gather kernel instead, a warp a page.
constexpr std::size_t MAX_DMA_RUNS = 32;

// The runs of consecutive pages of a batch, each (first index, page count),
// with no allocation: page_runs() fills one per batch.
struct PageRuns {
    std::array<std::pair<std::size_t, std::size_t>, MAX_DMA_RUNS> runs;
    std::size_t count = 0;
    [[nodiscard]] auto begin() const { return runs.begin(); }
    [[nodiscard]] auto end() const { return runs.begin() + static_cast<std::ptrdiff_t>(count); }
};

// The runs of consecutive pages in `pages`; false when there are more than
// MAX_DMA_RUNS.
template <class Pointer>
bool page_runs(std::span<Pointer const> pages, PageRuns& found) {
    found.count = 0;
    for (std::size_t i = 0; i < pages.size(); ++i) {
        if (found.count != 0 && pages[i] == pages[i - 1] + PAGE_SIZE) {
            ++found.runs[found.count - 1].second;
            continue;
        }
        if (found.count == MAX_DMA_RUNS)
            return false;
        found.runs[found.count++] = {i, 1};
    }
    return true;
}

}  // namespace

struct BatchPipeline::Slot {
    enum class Job { None, Compress, Decompress };

    // Device memory.
    DeviceAddress pages = 0;  // pages in; for decompression, the blocks
    DeviceAddress slots = 0;  // blocks out; for decompression, pages out when staged
    DeviceAddress descriptors = 0;
    DeviceAddress sources = 0;
    DeviceAddress destinations = 0;
    DeviceAddress offsets = 0;
    DeviceAddress total = 0;
    // Mapped host memory: the small arrays always, the page-sized buffers
    // when a batch first needs them.
    std::uint8_t* host_arrays = nullptr;
    PageDescriptor* host_descriptors = nullptr;
    std::uint64_t* host_sources = nullptr;
    std::uint64_t* host_destinations = nullptr;
    std::uint32_t* host_offsets = nullptr;
    std::uint32_t* host_total = nullptr;
    std::uint8_t* host_pages = nullptr;
    std::uint8_t* host_packed = nullptr;

    Stream stream = nullptr;
    Event start = nullptr, uploaded = nullptr, computed = nullptr, end = nullptr;

    Job job = Job::None;
    Ticket ticket = 0;
    std::uint32_t count = 0;
    CompressJob compress;
    DecompressJob decompress;
    bool pages_in_place = false;  // compression: the pages came without a host copy
    PageRuns runs;                // the batch's runs of consecutive pages
    bool direct_output = false;   // the device wrote each page to its own buffer
};

BatchPipeline::BatchPipeline(Device& device, const PipelineConfig& config)
    : device_(device), config_(config) {
    if (config.batch_pages == 0 ||
        config.batch_pages > std::numeric_limits<std::uint32_t>::max() / PAGE_SIZE)
        throw Error(EINVAL, "GPU pipeline: a slot of " + std::to_string(config.batch_pages) +
                                " pages is impossible");
    slots_.resize(config.slots);
    try {
        const std::size_t n = config.batch_pages;
        for (Slot& slot : slots_) {
            slot.pages = device_.allocate(n * PAGE_SIZE + kernels::BUFFER_PAD);
            slot.slots = device_.allocate(n * PAGE_SIZE + kernels::BUFFER_PAD);
            slot.descriptors = device_.allocate(n * sizeof(PageDescriptor));
            slot.sources = device_.allocate(n * sizeof(std::uint64_t));
            slot.destinations = device_.allocate(n * sizeof(std::uint64_t));
            slot.offsets = device_.allocate(n * sizeof(std::uint32_t));
            slot.total = device_.allocate(sizeof(std::uint32_t));
            slot.host_arrays = device_.allocate_mapped(HostArrays::bytes(n));
            std::uint8_t* next = slot.host_arrays;
            slot.host_descriptors = reinterpret_cast<PageDescriptor*>(next);
            next += n * sizeof(PageDescriptor);
            slot.host_sources = reinterpret_cast<std::uint64_t*>(next);
            next += n * sizeof(std::uint64_t);
            slot.host_destinations = reinterpret_cast<std::uint64_t*>(next);
            next += n * sizeof(std::uint64_t);
            slot.host_offsets = reinterpret_cast<std::uint32_t*>(next);
            next += n * sizeof(std::uint32_t);
            slot.host_total = reinterpret_cast<std::uint32_t*>(next);
            make_stream(slot);
        }
    } catch (...) {
        release_all();
        throw;
    }
}

BatchPipeline::~BatchPipeline() {
    release_all();
}

void BatchPipeline::keep_timeline(bool keep) {
    if (keep && origin_ == nullptr) {
        // Batches started before the origin clamp to it (elapsed_ns).
        origin_ = device_.create_event();
        device_.record(origin_, slots_.front().stream);
        device_.wait(origin_);
    }
    keep_timeline_ = keep;
}

std::vector<GpuTimelineEntry> BatchPipeline::take_timeline() {
    return std::exchange(timeline_, {});
}

void BatchPipeline::release_all() noexcept {
    if (origin_ != nullptr)
        device_.destroy_event(origin_);
    origin_ = nullptr;
    for (Slot& slot : slots_) {
        drop_stream(slot);
        for (const DeviceAddress address : {slot.pages, slot.slots, slot.descriptors, slot.sources,
                                            slot.destinations, slot.offsets, slot.total}) {
            if (address != 0)
                device_.release(address);
        }
        for (std::uint8_t* host : {slot.host_arrays, slot.host_pages, slot.host_packed}) {
            if (host != nullptr)
                device_.release_mapped(host);
        }
        slot = Slot{};
    }
    for (const HostRegion& region : regions_.regions())
        device_.unregister_host(region.host);
    regions_ = HostRegions{};
}

void BatchPipeline::make_stream(Slot& slot) {
    slot.stream = device_.create_stream();
    slot.start = device_.create_event();
    slot.uploaded = device_.create_event();
    slot.computed = device_.create_event();
    slot.end = device_.create_event();
}

void BatchPipeline::drop_stream(Slot& slot) noexcept {
    if (slot.stream != nullptr) {
        device_.drain(slot.stream);
        device_.destroy_stream(slot.stream);
    }
    for (Event* event : {&slot.start, &slot.uploaded, &slot.computed, &slot.end}) {
        if (*event != nullptr)
            device_.destroy_event(*event);
        *event = nullptr;
    }
    slot.stream = nullptr;
}

bool BatchPipeline::has_free_slot() const {
    return std::any_of(slots_.begin(), slots_.end(),
                       [](const Slot& slot) { return slot.job == Slot::Job::None; });
}

std::size_t BatchPipeline::in_flight() const {
    return static_cast<std::size_t>(std::count_if(
        slots_.begin(), slots_.end(), [](const Slot& s) { return s.job != Slot::Job::None; }));
}

std::vector<Ticket> BatchPipeline::tickets() const {
    std::vector<Ticket> tickets;
    for (const Slot& slot : slots_) {
        if (slot.job != Slot::Job::None)
            tickets.push_back(slot.ticket);
    }
    std::sort(tickets.begin(), tickets.end());
    return tickets;
}

bool BatchPipeline::add_region(std::span<const std::uint8_t> region, bool device_writes,
                               std::string& why) {
    regions_.check_can_add(region.data(), region.size());
    const auto address = device_.register_host(region, device_writes, why);
    if (!address)
        return false;
    regions_.add({region.data(), region.size(), *address, device_writes});
    return true;
}

bool BatchPipeline::remove_region(const std::uint8_t* base) {
    if (!regions_.remove(base))
        return false;
    device_.unregister_host(base);
    return true;
}

BatchPipeline::Slot& BatchPipeline::free_slot() {
    for (Slot& slot : slots_) {
        if (slot.job == Slot::Job::None)
            return slot;
    }
    throw Error(EBUSY, "GPU pipeline: all " + std::to_string(slots_.size()) +
                           " slots hold batches in flight");
}

BatchPipeline::Slot& BatchPipeline::slot_of(Ticket ticket) {
    for (Slot& slot : slots_) {
        if (slot.job != Slot::Job::None && slot.ticket == ticket)
            return slot;
    }
    throw Error(EINVAL, "GPU pipeline: no batch in flight has ticket " + std::to_string(ticket));
}

const std::uint8_t* BatchPipeline::staging_pages(Slot& slot) {
    if (slot.host_pages == nullptr)
        slot.host_pages = device_.allocate_mapped(config_.batch_pages * PAGE_SIZE);
    return slot.host_pages;
}

std::uint8_t* BatchPipeline::packed_buffer(Slot& slot) {
    if (slot.host_packed == nullptr)
        slot.host_packed = device_.allocate_mapped(config_.batch_pages * PAGE_SIZE);
    return slot.host_packed;
}

void BatchPipeline::copy_on_host(void* to, const void* from, std::size_t bytes) {
    std::memcpy(to, from, bytes);
    host_work_.bytes_copied += bytes;
}

void BatchPipeline::bring_pages_in(Slot& slot, std::span<const std::uint8_t* const> pages) {
    const auto n = static_cast<std::uint32_t>(pages.size());
    slot.pages_in_place = !regions_.empty();
    for (std::uint32_t i = 0; i < n && slot.pages_in_place; ++i) {
        const auto address = regions_.device_address(pages[i], PAGE_SIZE);
        slot.pages_in_place = address.has_value();
        if (address)
            slot.host_sources[i] = *address;
    }
    if (slot.pages_in_place) {
        // A run lies inside one region only if its pages' device addresses
        // follow each other too.
        PageRuns& runs = slot.runs;
        bool one_region_a_run = page_runs(pages, runs);
        for (std::size_t i = 1; i < n && one_region_a_run; ++i) {
            if (pages[i] == pages[i - 1] + PAGE_SIZE)
                one_region_a_run = slot.host_sources[i] == slot.host_sources[i - 1] + PAGE_SIZE;
        }
        if (one_region_a_run) {
            for (const auto& [first, count] : runs) {
                device_.upload(slot.pages + first * PAGE_SIZE, pages[first], count * PAGE_SIZE,
                               slot.stream);
            }
            return;
        }
        device_.upload(slot.sources, slot.host_sources, n * sizeof(std::uint64_t), slot.stream);
        device_.gather_pages({slot.sources, slot.pages, n}, slot.stream);
        return;
    }
    auto* staging = const_cast<std::uint8_t*>(staging_pages(slot));
    for (std::uint32_t i = 0; i < n; ++i)
        copy_on_host(staging + std::size_t{i} * PAGE_SIZE, pages[i], PAGE_SIZE);
    device_.upload(slot.pages, staging, std::size_t{n} * PAGE_SIZE, slot.stream);
}

template <class Enqueue>
Ticket BatchPipeline::start(Slot& slot, int kind, std::uint32_t count, Enqueue&& enqueue) {
    try {
        device_.record(slot.start, slot.stream);
        enqueue();
        device_.download(slot.host_descriptors, slot.descriptors, count * sizeof(PageDescriptor),
                         slot.stream);
        device_.record(slot.end, slot.stream);
    } catch (...) {
        // What the stream holds is abandoned with it.  A slot whose stream
        // cannot be replaced would fail every batch it takes: that ends the
        // GPU's use, as a lost context does.
        drop_stream(slot);
        try {
            make_stream(slot);
        } catch (const DeviceFailure& failure) {
            throw DeviceFailure(failure.code(), true,
                                std::string("cannot replace a spoilt stream: ") + failure.what());
        }
        throw;
    }
    slot.job = static_cast<Slot::Job>(kind);
    slot.count = count;
    slot.ticket = next_ticket_++;
    return slot.ticket;
}

Ticket BatchPipeline::submit(const CompressJob& job) {
    const std::size_t n = job.pages.size();
    if (n == 0 || n > config_.batch_pages || job.result == nullptr ||
        (!job.outputs.empty() && job.outputs.size() != n)) {
        throw Error(EINVAL, "GPU pipeline: a batch of " + std::to_string(n) + " pages (" +
                                std::to_string(job.outputs.size()) + " outputs) for slots of " +
                                std::to_string(config_.batch_pages));
    }
    Slot& slot = free_slot();
    const auto count = static_cast<std::uint32_t>(n);
    slot.compress = job;
    return start(slot, static_cast<int>(Slot::Job::Compress), count, [&] {
        slot.direct_output = !job.outputs.empty() && !regions_.empty();
        for (std::uint32_t i = 0; i < count && slot.direct_output; ++i) {
            const auto address = regions_.device_address(job.outputs[i], PAGE_SIZE, true);
            slot.direct_output = address.has_value();
            if (address)
                slot.host_destinations[i] = *address;
        }
        const bool raw_kept = job.outputs.empty() || job.raw_kept;
        bring_pages_in(slot, job.pages);
        // Bytes written in place go out from the compression kernel itself
        // (kernels/lz4_kernels.hpp): the batch is done when its kernel is.
        if (slot.direct_output) {
            device_.upload(slot.destinations, slot.host_destinations, n * sizeof(std::uint64_t),
                           slot.stream);
        }
        device_.record(slot.uploaded, slot.stream);
        device_.compress_pages(
            {config_.kernel, slot.pages, slot.slots, slot.descriptors, count,
             config_.huge_threshold, slot.direct_output ? slot.destinations : DeviceAddress{0},
             raw_kept},
            slot.stream);
        device_.record(slot.computed, slot.stream);
        if (!slot.direct_output) {
            const DeviceAddress packed = device_.mapped_address(packed_buffer(slot));
            device_.pack_offsets({slot.descriptors, count, raw_kept, slot.offsets, slot.total},
                                 slot.stream);
            device_.copy_out({slot.slots, slot.descriptors, count, raw_kept, packed, slot.offsets},
                             slot.stream);
            device_.download(slot.host_total, slot.total, sizeof(std::uint32_t), slot.stream);
        }
    });
}

Ticket BatchPipeline::submit(const DecompressJob& job) {
    const std::size_t n = job.pages.size();
    if (n == 0 || n > config_.batch_pages || job.input == nullptr ||
        job.first + n > job.input->pages.size()) {
        throw Error(EINVAL, "GPU pipeline: a batch of " + std::to_string(n) +
                                " pages to restore for slots of " +
                                std::to_string(config_.batch_pages));
    }
    Slot& slot = free_slot();
    const auto count = static_cast<std::uint32_t>(n);
    const BatchResult& input = *job.input;
    slot.decompress = job;
    return start(slot, static_cast<int>(Slot::Job::Decompress), count, [&] {
        // The blocks: one DMA straight from the payload when it is registered
        // and the batch's blocks lie back to back in it, else packed by the
        // host into a pinned buffer.  Only compressed bytes go up either way.
        std::optional<std::uint32_t> low;
        bool contiguous = true;
        std::uint64_t end = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const CompressedPage& page = input.pages[job.first + i];
            slot.host_descriptors[i] = {page.fill_word, page.size, page.encoding, 0xff, 0};
            if (!has_bytes(page))
                continue;
            if (low && page.offset != end)
                contiguous = false;
            if (!low)
                low = page.offset;
            end = std::uint64_t{page.offset} + page.size;
        }
        const auto payload_address =
            input.payload.empty()
                ? std::nullopt
                : regions_.device_address(input.payload.data(), input.payload.size());
        std::uint32_t block_bytes = 0;
        if (low && contiguous && payload_address) {
            for (std::size_t i = 0; i < n; ++i) {
                const CompressedPage& page = input.pages[job.first + i];
                slot.host_offsets[i] = has_bytes(page) ? page.offset - *low : 0;
            }
            block_bytes = static_cast<std::uint32_t>(end - *low);
            device_.upload(slot.pages, input.payload.data() + *low, block_bytes, slot.stream);
        } else if (low) {
            std::uint8_t* const packed = packed_buffer(slot);
            for (std::size_t i = 0; i < n; ++i) {
                const CompressedPage& page = input.pages[job.first + i];
                slot.host_offsets[i] = block_bytes;
                if (!has_bytes(page))
                    continue;
                copy_on_host(packed + block_bytes, input.payload.data() + page.offset, page.size);
                block_bytes += page.size;
            }
            device_.upload(slot.pages, packed, block_bytes, slot.stream);
        } else {
            std::fill_n(slot.host_offsets, n, 0u);
        }
        device_.upload(slot.offsets, slot.host_offsets, n * sizeof(std::uint32_t), slot.stream);
        device_.upload(slot.descriptors, slot.host_descriptors, n * sizeof(PageDescriptor),
                       slot.stream);

        // The pages: written by the kernel straight into registered
        // destinations (so the batch is done when its kernel is: downloads
        // of several batches in flight queue on the copy engine), else into
        // device memory and down through a pinned buffer.
        slot.direct_output = !regions_.empty();
        for (std::size_t i = 0; i < n && slot.direct_output; ++i) {
            const auto address = regions_.device_address(job.pages[i], PAGE_SIZE, true);
            slot.direct_output = address.has_value();
            if (address)
                slot.host_destinations[i] = *address;
        }
        if (!slot.direct_output) {
            for (std::size_t i = 0; i < n; ++i)
                slot.host_destinations[i] = slot.slots + i * PAGE_SIZE;
        }
        device_.upload(slot.destinations, slot.host_destinations, n * sizeof(std::uint64_t),
                       slot.stream);
        device_.record(slot.uploaded, slot.stream);
        device_.decompress_pages(
            {slot.pages, slot.offsets, slot.descriptors, slot.destinations, count}, slot.stream);
        device_.record(slot.computed, slot.stream);
        if (!slot.direct_output) {
            device_.download(const_cast<std::uint8_t*>(staging_pages(slot)), slot.slots,
                             n * PAGE_SIZE, slot.stream);
        }
    });
}

bool BatchPipeline::ready(Ticket ticket) {
    return device_.done(slot_of(ticket).end);
}

FinishedBatch BatchPipeline::finish(Ticket ticket) {
    Slot& slot = slot_of(ticket);
    device_.wait(slot.end);
    FinishedBatch finished;
    finished.times.h2d_ns = device_.elapsed_ns(slot.start, slot.uploaded);
    finished.times.kernel_ns = device_.elapsed_ns(slot.uploaded, slot.computed);
    finished.times.d2h_ns = device_.elapsed_ns(slot.computed, slot.end);
    if (keep_timeline_) {
        timeline_.push_back(
            {static_cast<std::uint32_t>(&slot - slots_.data()), slot.count,
             slot.job == Slot::Job::Decompress, device_.elapsed_ns(origin_, slot.start),
             device_.elapsed_ns(origin_, slot.uploaded), device_.elapsed_ns(origin_, slot.computed),
             device_.elapsed_ns(origin_, slot.end)});
    }
    if (slot.job == Slot::Job::Compress)
        finish_compress(slot);
    else
        finished.first_corrupt = finish_decompress(slot);
    slot.job = Slot::Job::None;
    return finished;
}

void BatchPipeline::finish_compress(Slot& slot) {
    const CompressJob& job = slot.compress;
    BatchResult& out = *job.result;
    const std::uint32_t n = slot.count;
    const bool raw_kept = job.outputs.empty() || job.raw_kept;
    std::uint64_t stored = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        const PageDescriptor d = slot.host_descriptors[i];
        host_work_.descriptor_bytes += sizeof(PageDescriptor);
        if (!plausible(d, config_.huge_threshold)) {
            throw ImpossibleResult("compression kernel: impossible descriptor for page " +
                                   std::to_string(job.first + i));
        }
        CompressedPage& page = out.pages[job.first + i];
        page.encoding = d.encoding;
        page.fill_word = d.encoding == PageEncoding::SameFilled ? d.fill_word : 0;
        page.size = d.size;
        page.offset = 0;
        stored += kernels::stored_bytes(d, raw_kept);
    }
    if (slot.direct_output) {
        host_work_.outputs_in_place += n;
    } else {
        if (*slot.host_total != stored) {
            throw ImpossibleResult("offsets kernel: " + std::to_string(*slot.host_total) +
                                   " packed bytes for " + std::to_string(stored));
        }
        const std::uint8_t* const packed = slot.host_packed;
        if (job.outputs.empty()) {
            const std::size_t base = out.payload.size();
            if (base + stored > std::numeric_limits<std::uint32_t>::max())
                throw Error(EINVAL, "GPU pipeline: the payload outgrows 32-bit offsets");
            out.payload.insert(out.payload.end(), packed, packed + stored);
            host_work_.bytes_copied += stored;
            std::uint32_t at = 0;
            for (std::uint32_t i = 0; i < n; ++i) {
                CompressedPage& page = out.pages[job.first + i];
                page.offset = static_cast<std::uint32_t>(base + at);
                at += kernels::stored_bytes(slot.host_descriptors[i], true);
            }
        } else {
            std::uint32_t at = 0;
            for (std::uint32_t i = 0; i < n; ++i) {
                const std::uint32_t bytes =
                    kernels::stored_bytes(slot.host_descriptors[i], raw_kept);
                if (bytes != 0)
                    copy_on_host(job.outputs[i], packed + at, bytes);
                at += bytes;
            }
        }
        host_work_.outputs_copied += n;
    }
    (slot.pages_in_place ? host_work_.pages_in_place : host_work_.pages_copied) += n;
}

std::optional<std::size_t> BatchPipeline::finish_decompress(Slot& slot) {
    const DecompressJob& job = slot.decompress;
    std::optional<std::size_t> first_corrupt;
    for (std::uint32_t i = 0; i < slot.count; ++i) {
        host_work_.descriptor_bytes += sizeof(PageDescriptor);
        const std::uint8_t status = slot.host_descriptors[i].status;
        if (status == kernels::PAGE_CORRUPT) {
            if (!first_corrupt)
                first_corrupt = i;
            continue;
        }
        // The host checked every descriptor before the launch: a correct
        // kernel leaves OK or CORRUPT, and anything else (the host's 0xff
        // included, a page the kernel never wrote) is the device's fault.
        if (status != kernels::PAGE_OK)
            throw ImpossibleResult("decompression kernel: status " + std::to_string(status) +
                                   " for page " + std::to_string(i));
        if (!slot.direct_output)
            copy_on_host(job.pages[i], slot.host_pages + std::size_t{i} * PAGE_SIZE, PAGE_SIZE);
    }
    return first_corrupt;
}

void BatchPipeline::abandon(Ticket ticket) {
    Slot& slot = slot_of(ticket);
    slot.job = Slot::Job::None;
    drop_stream(slot);
    make_stream(slot);
}

}  // namespace ozram::gpu
