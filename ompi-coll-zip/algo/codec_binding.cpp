// The algorithms' codec seam on libzipcodec (zip_algo_codec_bind in zip_algo.h), timed.
#include <atomic>

#include "codec_meter.h"
#include "steady_ns.hpp"
#include "zip_algo.h"

static_assert(ZIP_ALGO_BYTES == int(ZIP_TYPE_BYTES) && ZIP_ALGO_F32 == int(ZIP_TYPE_F32) &&
                  ZIP_ALGO_F64 == int(ZIP_TYPE_F64) && ZIP_ALGO_I32 == int(ZIP_TYPE_I32) &&
                  ZIP_ALGO_I64 == int(ZIP_TYPE_I64),
              "ZIP_ALGO_* element types must equal zip_elem_type_t");

namespace
{

// Frames of this process, for corrupt_every: counted over every binding.
std::atomic<uint64_t> frames_sent{0};

void maybe_corrupt(int every, void *frame, size_t len)
{
    if (every > 0 && len > 0 && (frames_sent.fetch_add(1) + 1) % uint64_t(every) == 0)
        static_cast<unsigned char *>(frame)[len / 2] ^= 0x5a;
}

// A length that is not a whole number of elements goes through the byte codec.
zip_elem_type_t type_of(int elem_type, size_t bytes)
{
    const size_t elem = zip_elem_size(zip_elem_type_t(elem_type));
    return bytes % elem == 0 ? zip_elem_type_t(elem_type) : ZIP_TYPE_BYTES;
}

// Compresses `bytes` bytes at src against ref (nullptr: on their own), timed.
int timed_code(void *ctx, int elem_type, const void *src, size_t bytes, const void *ref, void *dst,
               size_t dst_cap, size_t *frame_len)
{
    auto *b = static_cast<zip_algo_codec_binding_t *>(ctx);
    const zip_elem_type_t type = type_of(elem_type, bytes);
    const size_t count = bytes / zip_elem_size(type);
    const uint64_t faults = zip_codec_meter_faults_before(b->meter, 0, bytes);
    const uint64_t t0 = zipcoll::steady_ns();
    const zip_status_t st =
        ref != nullptr
            ? zip_compress_delta(b->codec, type, src, count, ref, dst, dst_cap, frame_len)
            : zip_compress(b->codec, 0, type, src, count, dst, dst_cap, frame_len);
    const uint64_t ns = zipcoll::steady_ns() - t0;
    b->codec_ns += ns;
    if (b->meter != nullptr)
        zip_codec_meter_time_unfaulted(b->meter, 0, bytes, ns, faults);
    if (st == ZIP_OK)
        maybe_corrupt(b->corrupt_every, dst, *frame_len);
    return int(st);
}

int timed_compress(void *ctx, int elem_type, const void *src, size_t bytes, void *dst,
                   size_t dst_cap, size_t *frame_len)
{
    return timed_code(ctx, elem_type, src, bytes, nullptr, dst, dst_cap, frame_len);
}

int timed_compress_delta(void *ctx, int elem_type, const void *src, size_t bytes, const void *ref,
                         void *dst, size_t dst_cap, size_t *frame_len)
{
    if (ref == nullptr)
        return int(ZIP_E_ARG);
    return timed_code(ctx, elem_type, src, bytes, ref, dst, dst_cap, frame_len);
}

int timed_decompress_ref(void *ctx, const void *frame, size_t frame_len, const void *ref,
                         size_t ref_bytes, void *dst, size_t dst_cap, size_t *raw_len)
{
    auto *b = static_cast<zip_algo_codec_binding_t *>(ctx);
    // The raw length is known only afterwards; the destination's room stands for it.
    const uint64_t faults = zip_codec_meter_faults_before(b->meter, 1, dst_cap);
    const uint64_t t0 = zipcoll::steady_ns();
    const zip_status_t st =
        zip_decompress_ref(b->codec, frame, frame_len, ref, ref_bytes, dst, dst_cap, raw_len);
    const uint64_t ns = zipcoll::steady_ns() - t0;
    b->codec_ns += ns;
    if (st != ZIP_OK)
        b->failed = st;
    else if (b->meter != nullptr)
        zip_codec_meter_time_unfaulted(b->meter, 1, *raw_len, ns, faults);
    return int(st);
}

// Without a reference a delta frame finds none: ZIP_E_STATE, as from any receiver that holds
// none (the binding's context keeps no temporal streams of its own).
int timed_decompress(void *ctx, const void *frame, size_t frame_len, void *dst, size_t dst_cap,
                     size_t *raw_len)
{
    return timed_decompress_ref(ctx, frame, frame_len, nullptr, 0, dst, dst_cap, raw_len);
}

} // namespace

extern "C" void zip_algo_codec_bind(zip_codec_ops_t *ops, zip_algo_codec_binding_t *binding)
{
    binding->codec_ns = 0;
    binding->failed = ZIP_OK;
    ops->ctx = binding;
    ops->compress = timed_compress;
    ops->decompress = timed_decompress;
    ops->compress_delta = timed_compress_delta;
    ops->decompress_ref = timed_decompress_ref;
}
