// The extern "C" surface: argument checks, exceptions turned into status codes, nothing else.
#include <new>
#include <string>

#include "context.hpp"
#include "frame_format.hpp"
#include "simd_state.hpp"

namespace
{

thread_local std::string spec_error;

} // namespace

extern "C" {

size_t zip_elem_size(zip_elem_type_t type)
{
    switch (type) {
    case ZIP_TYPE_F32:
    case ZIP_TYPE_I32:
        return 4;
    case ZIP_TYPE_F64:
    case ZIP_TYPE_I64:
        return 8;
    default:
        return 1;
    }
}

const char *zip_status_str(zip_status_t status)
{
    switch (status) {
    case ZIP_OK:
        return "success";
    case ZIP_E_ARG:
        return "invalid argument";
    case ZIP_E_NOMEM:
        return "out of memory";
    case ZIP_E_CAPACITY:
        return "destination buffer too small";
    case ZIP_E_TRUNCATED:
        return "truncated frame";
    case ZIP_E_CORRUPT:
        return "corrupt frame";
    case ZIP_E_CHECKSUM:
        return "frame integrity check failed";
    case ZIP_E_VERSION:
        return "unsupported frame version";
    case ZIP_E_UNSUPPORTED:
        return "codec not supported by this build";
    case ZIP_E_STATE:
        return "temporal reference missing";
    }
    return "unknown status";
}

zip_ctx_t *zip_ctx_create(const char *spec, zip_status_t *err)
{
    zip_status_t status = ZIP_OK;
    zip_ctx_t *ctx = nullptr;
    try {
        if (spec == nullptr || *spec == '\0')
            throw zip::SpecError{"empty codec spec"};
        ctx = new zip_ctx;
        zip::configure_context(*ctx, spec);
        ctx->refs.set_cap(ctx->memory_cap);
    } catch (const zip::SpecError &e) {
        spec_error = e.message;
        status = ZIP_E_ARG;
    } catch (const std::bad_alloc &) {
        spec_error = "out of memory";
        status = ZIP_E_NOMEM;
    }
    if (status != ZIP_OK) {
        delete ctx;
        ctx = nullptr;
    }
    if (err)
        *err = status;
    return ctx;
}

const char *zip_spec_error(void)
{
    return spec_error.c_str();
}

void zip_ctx_destroy(zip_ctx_t *ctx)
{
    delete ctx;
}

const char *zip_ctx_last_error(const zip_ctx_t *ctx)
{
    return ctx ? ctx->last_error.c_str() : "NULL context";
}

const char *zip_ctx_spec(const zip_ctx_t *ctx)
{
    return ctx ? ctx->spec.c_str() : "";
}

zip_status_t zip_ctx_set_block_size(zip_ctx_t *ctx, size_t block_bytes)
{
    if (!ctx)
        return ZIP_E_ARG;
    if (block_bytes == 0)
        block_bytes = 65536;
    if (block_bytes < 1024 || block_bytes > zip::kMaxBlockBytes)
        return ZIP_E_ARG;
    ctx->block_bytes = block_bytes;
    return ZIP_OK;
}

zip_status_t zip_ctx_set_threads(zip_ctx_t *ctx, unsigned threads)
{
    if (!ctx)
        return ZIP_E_ARG;
    return zip::set_threads(*ctx, threads);
}

zip_status_t zip_ctx_set_block_checks(zip_ctx_t *ctx, int enabled)
{
    if (!ctx)
        return ZIP_E_ARG;
    ctx->block_checks = enabled != 0;
    return ZIP_OK;
}

zip_status_t zip_ctx_set_memory_cap(zip_ctx_t *ctx, size_t cap_bytes)
{
    if (!ctx)
        return ZIP_E_ARG;
    ctx->memory_cap = cap_bytes;
    ctx->refs.set_cap(cap_bytes);
    return ZIP_OK;
}

size_t zip_ctx_memory_used(const zip_ctx_t *ctx)
{
    return ctx ? zip::context_memory(*ctx) : 0;
}

size_t zip_compress_bound(size_t raw_bytes)
{
    // Smallest block is 1 KiB: one table entry per KiB (rounded up) plus the header.
    return raw_bytes + zip::kFrameHeaderBytes + zip::kBlockEntryBytes * (raw_bytes / 1024 + 1);
}

zip_status_t zip_compress(zip_ctx_t *ctx, uint64_t stream, zip_elem_type_t type, const void *src,
                          size_t count, void *dst, size_t dst_cap, size_t *frame_len)
{
    const zip::UpperStateGuard clean; // simd_state.hpp
    if (!ctx)
        return ZIP_E_ARG;
    try {
        return zip::compress_frame(*ctx, stream, type, static_cast<const uint8_t *>(src), count,
                                   static_cast<uint8_t *>(dst), dst_cap, frame_len);
    } catch (const std::bad_alloc &) {
        ctx->last_error = "out of memory while compressing";
        return ZIP_E_NOMEM;
    }
}

zip_status_t zip_decompress(zip_ctx_t *ctx, uint64_t stream, const void *frame, size_t frame_len,
                            void *dst, size_t dst_cap, size_t *raw_len)
{
    const zip::UpperStateGuard clean; // simd_state.hpp
    if (!ctx)
        return ZIP_E_ARG;
    try {
        return zip::decompress_frame(*ctx, stream, static_cast<const uint8_t *>(frame), frame_len,
                                     static_cast<uint8_t *>(dst), dst_cap, raw_len);
    } catch (const std::bad_alloc &) {
        ctx->last_error = "out of memory while decompressing";
        return ZIP_E_NOMEM;
    }
}

zip_status_t zip_compress_delta(zip_ctx_t *ctx, zip_elem_type_t type, const void *src, size_t count,
                                const void *ref, void *dst, size_t dst_cap, size_t *frame_len)
{
    const zip::UpperStateGuard clean; // simd_state.hpp
    if (!ctx)
        return ZIP_E_ARG;
    const zip::GivenReference given{static_cast<const uint8_t *>(ref), count * zip_elem_size(type)};
    try {
        return zip::compress_frame(*ctx, 0, type, static_cast<const uint8_t *>(src), count,
                                   static_cast<uint8_t *>(dst), dst_cap, frame_len, &given);
    } catch (const std::bad_alloc &) {
        ctx->last_error = "out of memory while compressing";
        return ZIP_E_NOMEM;
    }
}

zip_status_t zip_decompress_ref(zip_ctx_t *ctx, const void *frame, size_t frame_len,
                                const void *ref, size_t ref_bytes, void *dst, size_t dst_cap,
                                size_t *raw_len)
{
    const zip::UpperStateGuard clean; // simd_state.hpp
    if (!ctx)
        return ZIP_E_ARG;
    const zip::GivenReference given{static_cast<const uint8_t *>(ref), ref_bytes};
    try {
        return zip::decompress_frame(*ctx, 0, static_cast<const uint8_t *>(frame), frame_len,
                                     static_cast<uint8_t *>(dst), dst_cap, raw_len, &given);
    } catch (const std::bad_alloc &) {
        ctx->last_error = "out of memory while decompressing";
        return ZIP_E_NOMEM;
    }
}

zip_status_t zip_frame_inspect(const void *frame, size_t frame_len, zip_frame_info_t *info)
{
    const zip::UpperStateGuard clean; // simd_state.hpp
    if (!info)
        return ZIP_E_ARG;
    zip::FrameHeader h;
    uint64_t total = 0;
    const char *why = "";
    zip_status_t s =
        zip::parse_frame_header(static_cast<const uint8_t *>(frame), frame_len, &h, &total, &why);
    if (s != ZIP_OK)
        return s;
    const uint8_t *table = static_cast<const uint8_t *>(frame) + zip::kFrameHeaderBytes;
    int all_raw = 1;
    for (uint32_t i = 0; i < h.block_count; ++i)
        all_raw &= zip::read_block_entry(table, i).raw ? 1 : 0;
    info->version = h.version;
    info->codec_id = h.codec;
    info->type = zip_elem_type_t(h.type);
    info->count = h.count;
    info->raw_bytes = h.raw_bytes;
    info->frame_bytes = total;
    info->block_count = h.block_count;
    info->block_raw_bytes = h.block_raw_bytes;
    info->stored_raw = all_raw;
    info->lossy = h.lossy_kind != 0;
    return ZIP_OK;
}

void zip_ctx_forget_stream(zip_ctx_t *ctx, uint64_t stream)
{
    if (ctx)
        ctx->refs.forget(stream);
}

void zip_ctx_forget_all(zip_ctx_t *ctx)
{
    if (ctx)
        ctx->refs.clear();
}

const char *zip_codec_list(void)
{
    return "fast, fpc, dfcm, xorlz, lz4, zstd, temporal, raw; lossy stages: trunc:N, f32, abs:E, "
           "rel:R";
}

} // extern "C"
