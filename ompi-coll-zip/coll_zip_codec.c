/*
 * Binds the algorithms' codec seam to libzipcodec, timing every call for the statistics.
 */
#include "ompi_config.h"

#include <time.h>

#include "mpi.h"
#include "ompi/constants.h"

#include "coll_zip.h"
#include "algo/transport.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* coll_zip_inject_corruption (testing only): flips a byte in the middle of every Nth frame. */
static void maybe_corrupt(void *frame, size_t len)
{
    static uint64_t frames = 0;
    const int every = mca_coll_zip_component.inject_corruption;
    if (every <= 0 || 0 == len) {
        return;
    }
    if (0 == (__atomic_add_fetch(&frames, 1, __ATOMIC_RELAXED) % (uint64_t)every)) {
        ((unsigned char *)frame)[len / 2] ^= 0x5a;
    }
}

/* The algorithms' element types are the engine's (mca_coll_zip_elem_type in coll_zip.h). */
_Static_assert(ZIP_ALGO_BYTES == (int)ZIP_TYPE_BYTES && ZIP_ALGO_F32 == (int)ZIP_TYPE_F32 &&
                   ZIP_ALGO_F64 == (int)ZIP_TYPE_F64,
               "ZIP_ALGO_* element types must equal zip_elem_type_t");

static int timed_compress(void *ctx, int elem_type, const void *src, size_t bytes, void *dst,
                          size_t dst_cap, size_t *frame_len)
{
    mca_coll_zip_codec_binding_t *b = (mca_coll_zip_codec_binding_t *)ctx;
    const size_t elem = zip_elem_size((zip_elem_type_t)elem_type);
    /* A length that is not a whole number of elements goes through the byte codec. */
    zip_elem_type_t type = (0 == bytes % elem) ? (zip_elem_type_t)elem_type : ZIP_TYPE_BYTES;
    const size_t count = bytes / zip_elem_size(type);
    const uint64_t t0 = now_ns();
    zip_status_t st = zip_compress(b->codec, 0, type, src, count, dst, dst_cap, frame_len);
    b->codec_ns += now_ns() - t0;
    if (ZIP_OK == st) {
        maybe_corrupt(dst, *frame_len);
    }
    return (int)st;
}

static int timed_decompress(void *ctx, const void *frame, size_t frame_len, void *dst,
                            size_t dst_cap, size_t *raw_len)
{
    mca_coll_zip_codec_binding_t *b = (mca_coll_zip_codec_binding_t *)ctx;
    const uint64_t t0 = now_ns();
    zip_status_t st = zip_decompress(b->codec, 0, frame, frame_len, dst, dst_cap, raw_len);
    b->codec_ns += now_ns() - t0;
    if (ZIP_OK != st) {
        opal_output_verbose(1, mca_coll_zip_component.output,
                            "coll:zip: frame of %zu bytes did not decode: %s (%s)", frame_len,
                            zip_status_str(st), zip_ctx_last_error(b->codec));
    }
    return (int)st;
}

void mca_coll_zip_codec_init(struct zip_codec_ops *ops, mca_coll_zip_codec_binding_t *binding,
                             mca_coll_zip_module_t *module)
{
    binding->module = module;
    binding->codec = module->codec;
    binding->codec_ns = 0;
    ops->ctx = binding;
    ops->compress = timed_compress;
    ops->decompress = timed_decompress;
}
