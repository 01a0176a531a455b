// The context behind the C handle zip_ctx_t: one codec configuration, its reusable buffers, the
// decoders met so far and the temporal references. Frame assembly and parsing live here.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "codec.hpp"
#include "lossy.hpp"
#include "temporal.hpp"
#include "worker_pool.hpp"

struct zip_ctx {
    std::string spec;
    zip::LossySpec lossy;
    bool temporal = false;
    uint32_t key_interval = 64;
    std::unique_ptr<zip::BlockCodec> encoder;
    std::string codec_name, codec_options; // the lossless codec's spec, for the workers' copies
    // Decoders by codec id, rebuilt when a frame asks for another parameter.
    std::array<std::unique_ptr<zip::BlockCodec>, 16> decoders;
    size_t block_bytes = 65536;
    bool block_checks = true;
    size_t memory_cap = size_t(64) << 20;
    std::vector<uint8_t> payload_buf; // lossy output, or narrowed payload being decoded
    std::vector<uint8_t> delta_buf;   // payload XOR reference
    zip::ReferenceStore refs;
    std::string last_error;
    // codec_threads > 1: the blocks of a frame of at least kParallelMinBytes are coded on this
    // many threads, each with its own encoder or decoders (codecs keep scratch state).
    unsigned threads = 1;
    std::unique_ptr<zip::WorkerPool> pool;
    std::vector<std::unique_ptr<zip::BlockCodec>> worker_encoders;
    std::vector<std::array<std::unique_ptr<zip::BlockCodec>, 16>> worker_decoders;
    std::vector<std::vector<uint8_t>> block_scratch; // per thread: a block being compressed
    std::vector<size_t> block_offsets; // where each block of the frame being decoded starts
};

namespace zip
{

// Parses a spec ("trunc:20+fpc:bits=12") into ctx; throws SpecError.
void configure_context(zip_ctx &ctx, std::string_view spec);

// The previous message of a stream as its caller keeps it (zip_compress_delta,
// zip_decompress_ref), in place of the context's own references: ptr nullptr means none.
struct GivenReference {
    const uint8_t *ptr = nullptr;
    size_t bytes = 0;
};

// given nullptr: a temporal context codes against its own reference of `stream`. Otherwise the
// frame is a delta against *given (the context must be lossless) and the context's references
// are left alone.
zip_status_t compress_frame(zip_ctx &ctx, uint64_t stream, zip_elem_type_t type, const uint8_t *src,
                            size_t count, uint8_t *dst, size_t dst_cap, size_t *frame_len,
                            const GivenReference *given = nullptr);

// given nullptr: a delta frame is decoded against the context's reference of `stream`, and a
// temporal frame becomes that reference. Otherwise a delta frame is decoded against *given
// (ZIP_E_STATE when it is missing, of another size or not the one the sender used) and the
// context's references are left alone.
zip_status_t decompress_frame(zip_ctx &ctx, uint64_t stream, const uint8_t *frame, size_t frame_len,
                              uint8_t *dst, size_t dst_cap, size_t *raw_len,
                              const GivenReference *given = nullptr);

size_t context_memory(const zip_ctx &ctx);

// Messages from this many payload bytes on are coded on ctx.threads threads, every block tried
// (below, fewer than two whole blocks of 64 KiB)...
constexpr size_t kParallelMinBytes = size_t(128) << 10;
// ...when the workers are still spinning from a call just before (WorkerPool::engage), or from
// this many bytes on: then sleeping workers are woken too. Below, the futex call that wakes one
// and the wait until it runs cost about what a second thread saves: 1 MiB calls 300 us apart ran
// at 0.84-1.28x one thread's speed when they woke the workers, 2 MiB calls at 1.21-1.44x
// (docs/fast-codec.md, "Workers asleep").
constexpr size_t kWakeMinBytes = size_t(2) << 20;

// Sets the number of threads (1..kMaxThreads) that code one frame's blocks.
zip_status_t set_threads(zip_ctx &ctx, unsigned threads);
constexpr unsigned kMaxThreads = 64;

} // namespace zip
