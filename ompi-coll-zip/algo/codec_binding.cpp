// The algorithms' codec seam on libzipcodec (zip_algo_codec_bind in zip_algo.h), timed.
#include <atomic>
#include <chrono>

#include "zip_algo.h"

static_assert(ZIP_ALGO_BYTES == int(ZIP_TYPE_BYTES) && ZIP_ALGO_F32 == int(ZIP_TYPE_F32) &&
                  ZIP_ALGO_F64 == int(ZIP_TYPE_F64) && ZIP_ALGO_I32 == int(ZIP_TYPE_I32) &&
                  ZIP_ALGO_I64 == int(ZIP_TYPE_I64),
              "ZIP_ALGO_* element types must equal zip_elem_type_t");

namespace
{

uint64_t now_ns()
{
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

// Frames of this process, for corrupt_every: counted over every binding.
std::atomic<uint64_t> frames_sent{0};

void maybe_corrupt(int every, void *frame, size_t len)
{
    if (every > 0 && len > 0 && (frames_sent.fetch_add(1) + 1) % uint64_t(every) == 0)
        static_cast<unsigned char *>(frame)[len / 2] ^= 0x5a;
}

int timed_compress(void *ctx, int elem_type, const void *src, size_t bytes, void *dst,
                   size_t dst_cap, size_t *frame_len)
{
    auto *b = static_cast<zip_algo_codec_binding_t *>(ctx);
    const size_t elem = zip_elem_size(zip_elem_type_t(elem_type));
    // A length that is not a whole number of elements goes through the byte codec.
    const auto type = bytes % elem == 0 ? zip_elem_type_t(elem_type) : ZIP_TYPE_BYTES;
    const uint64_t t0 = now_ns();
    const zip_status_t st =
        zip_compress(b->codec, 0, type, src, bytes / zip_elem_size(type), dst, dst_cap, frame_len);
    b->codec_ns += now_ns() - t0;
    if (st == ZIP_OK)
        maybe_corrupt(b->corrupt_every, dst, *frame_len);
    return int(st);
}

int timed_decompress(void *ctx, const void *frame, size_t frame_len, void *dst, size_t dst_cap,
                     size_t *raw_len)
{
    auto *b = static_cast<zip_algo_codec_binding_t *>(ctx);
    const uint64_t t0 = now_ns();
    const zip_status_t st = zip_decompress(b->codec, 0, frame, frame_len, dst, dst_cap, raw_len);
    b->codec_ns += now_ns() - t0;
    if (st != ZIP_OK)
        b->failed = st;
    return int(st);
}

} // namespace

extern "C" void zip_algo_codec_bind(zip_codec_ops_t *ops, zip_algo_codec_binding_t *binding)
{
    binding->codec_ns = 0;
    binding->failed = ZIP_OK;
    ops->ctx = binding;
    ops->compress = timed_compress;
    ops->decompress = timed_decompress;
}
