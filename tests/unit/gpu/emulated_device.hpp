// A Device that runs on the host: the kernels' own source through the
// emulated warp, copies as memcpy.  Work waits in its stream's queue until an
// event after it is asked about: done() answers "not yet" the first time it
// is asked about an event, and runs the stream up to it the second time, so
// a pipeline that reads results before their event is done reads nothing.
// Every host address a kernel or a copy touches is checked against the
// memory the device was given (mapped, registered, allocated), and failures
// can be planted: the n-th operation of a kind fails, stickily or not.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu/device.hpp"

namespace ozram::gpu::test {

enum class Operation {
    Upload,
    Download,
    Gather,
    Compress,
    PackOffsets,
    CopyOut,
    Decompress,
    Count,
};

class EmulatedDevice final : public Device {
  public:
    EmulatedDevice();
    ~EmulatedDevice() override;

    // The n-th (from 1) operation of `kind` from now fails with `code` when
    // it runs; a sticky failure makes every later call fail too.
    void fail(Operation kind, std::uint64_t nth, int code, bool sticky);
    // The next compression kernel to run writes a descriptor no correct
    // kernel writes (an LZ4 block longer than a page) for its first page.
    void garble_next_compression() { garble_ = true; }
    // The next decompression kernel to run leaves its first page with
    // `status`, as a faulty device would after the host checked the batch.
    void garble_next_decompression(std::uint8_t status) { garble_decompression_ = status; }
    // The next `count` streams are refused, not stickily (as when the
    // driver is out of memory).
    void refuse_streams(int count) { refuse_streams_ = count; }
    // The next operation of `kind` is refused when it is enqueued, not
    // stickily, as CUDA reports a launch it cannot make at the launch.
    void refuse_next(Operation kind) { refuse_next_ = kind; }
    // The next operation of `kind` throws std::bad_alloc when it is
    // enqueued, and the next wait() does before it runs anything: the host
    // out of memory while the pipeline prepares or finishes a batch, a
    // failure that is not the device's.
    void exhaust_host_at_next(Operation kind) { exhaust_at_enqueue_ = kind; }
    void exhaust_host_at_next_wait() { exhaust_at_wait_ = true; }
    // Registration is refused from now on (as for memory the driver cannot pin).
    void refuse_registration(bool refuse) { refuse_registration_ = refuse; }

    // Operations of each kind that ran, and the bytes the copies moved.
    [[nodiscard]] std::uint64_t ran(Operation kind) const { return ran_[static_cast<int>(kind)]; }
    [[nodiscard]] std::uint64_t bytes_uploaded() const { return bytes_uploaded_; }
    [[nodiscard]] std::uint64_t bytes_downloaded() const { return bytes_downloaded_; }
    // Bytes kernels wrote to host memory (mapped or registered), and read from it.
    [[nodiscard]] std::uint64_t bytes_written_to_host() const { return bytes_written_to_host_; }
    [[nodiscard]] std::uint64_t bytes_read_from_host() const { return bytes_read_from_host_; }
    // Streams and events that exist now.
    [[nodiscard]] std::size_t streams() const { return streams_.size(); }
    [[nodiscard]] std::size_t events() const { return events_.size(); }
    [[nodiscard]] std::size_t registered_regions() const;

    void make_current() override { check_alive(); }
    DeviceAddress allocate(std::size_t bytes) override;
    void release(DeviceAddress address) noexcept override;
    std::uint8_t* allocate_mapped(std::size_t bytes) override;
    void release_mapped(std::uint8_t* host) noexcept override;
    DeviceAddress mapped_address(const std::uint8_t* host) override;
    std::optional<DeviceAddress> register_host(std::span<const std::uint8_t> region,
                                               bool device_writes, std::string& why) override;
    void unregister_host(const std::uint8_t* base) noexcept override;
    Stream create_stream() override;
    void destroy_stream(Stream stream) noexcept override;
    void drain(Stream stream) noexcept override;
    Event create_event() override;
    void destroy_event(Event event) noexcept override;
    void record(Event event, Stream stream) override;
    bool done(Event event) override;
    void wait(Event event) override;
    std::uint64_t elapsed_ns(Event from, Event to) override;
    void upload(DeviceAddress to, const void* from, std::size_t bytes, Stream stream) override;
    void download(void* to, DeviceAddress from, std::size_t bytes, Stream stream) override;
    void gather_pages(const GatherLaunch& launch, Stream stream) override;
    void compress_pages(const CompressLaunch& launch, Stream stream) override;
    void pack_offsets(const PackLaunch& launch, Stream stream) override;
    void copy_out(const CopyOutLaunch& launch, Stream stream) override;
    void decompress_pages(const DecompressLaunch& launch, Stream stream) override;

  private:
    enum class Memory { Device, Mapped, Registered, RegisteredWritable };
    struct Range {
        std::uint64_t begin;
        std::size_t bytes;
        Memory kind;
    };
    struct Queued {
        Operation kind;
        std::function<void()> run;  // empty for an event's mark
        EventTag* marks = nullptr;
    };
    struct StreamState {
        std::deque<Queued> queue;
    };
    struct EventState {
        StreamState* stream = nullptr;
        bool completed = true;  // an event never recorded is done
        bool asked = false;
        std::uint64_t time = 0;
    };
    struct PlantedFailure {
        std::uint64_t nth;
        int code;
        bool sticky;
    };

    void enqueue(Operation kind, Stream stream, std::function<void()> run);
    void run_until(EventState& event);
    void check_alive() const;
    // Throws unless [address, +bytes) lies in memory of the given kinds.
    const Range& find(std::uint64_t address, std::size_t bytes, const char* what) const;
    void expect_device(std::uint64_t address, std::size_t bytes, const char* what) const;
    // Host memory a kernel reads or writes: mapped, or registered (for writing, writably).
    void expect_host(std::uint64_t address, std::size_t bytes, bool writes, const char* what);
    // Memory a kernel reads or writes: any that is the device's to use.
    void expect_reachable(std::uint64_t address, std::size_t bytes, bool writes, const char* what);

    std::vector<Range> ranges_;
    std::map<StreamTag*, std::unique_ptr<StreamState>> streams_;
    std::map<EventTag*, std::unique_ptr<EventState>> events_;
    std::vector<std::vector<PlantedFailure>> planted_;
    std::vector<std::uint64_t> ran_;
    std::vector<std::uint64_t> seen_;  // operations of each kind run or failed
    bool dead_ = false;
    bool refuse_registration_ = false;
    bool garble_ = false;
    std::optional<std::uint8_t> garble_decompression_;
    int refuse_streams_ = 0;
    std::optional<Operation> refuse_next_;
    std::optional<Operation> exhaust_at_enqueue_;
    bool exhaust_at_wait_ = false;
    std::uint64_t clock_ = 0;
    std::uint64_t bytes_uploaded_ = 0;
    std::uint64_t bytes_downloaded_ = 0;
    std::uint64_t bytes_written_to_host_ = 0;
    std::uint64_t bytes_read_from_host_ = 0;
};

}  // namespace ozram::gpu::test
