/*
 * The zip message: a fixed header, then either the data itself (RAW) or a zip frame (FRAME).
 * Every float/double application message on an enabled communicator carries the header, small
 * or incompressible ones too: that is how the sender's decision travels with the message,
 * because the receiver only knows an upper bound of the count.
 */
#include "ompi_config.h"

#include <limits.h>
#include <string.h>

#include "opal/util/output.h"

#include "pml_zip.h"

/* Start of the data of count x dtype when it is one contiguous block. */
static bool contiguous_base(const void *buf, size_t count, ompi_datatype_t *dtype,
                            const char **base)
{
    if (!ompi_datatype_is_contiguous_memory_layout(dtype, (int32_t)count)) {
        return false;
    }
    *base = (const char *)buf + dtype->super.true_lb;
    return true;
}

/*
 * Incompressible data would cost a full compression pass for nothing (several percent of the
 * transfer on a 1 Gbit/s link), so a message is first tried on one sample block, a quarter of
 * it up to 64 KiB: if that does not shrink by a tenth, the message goes raw. dst is scratch.
 */
#define ZIP_SAMPLE_MAX_BYTES 65536
#define ZIP_SAMPLE_MIN_BYTES 4096
static bool worth_compressing(zip_ctx_t *ctx, int elem, const char *src, size_t bytes, void *dst,
                              size_t dst_cap)
{
    const size_t esize = zip_elem_size((zip_elem_type_t)elem);
    size_t sample = bytes / 4 < ZIP_SAMPLE_MAX_BYTES ? bytes / 4 : ZIP_SAMPLE_MAX_BYTES;
    sample = sample / esize * esize;
    if (sample < ZIP_SAMPLE_MIN_BYTES) {
        return true;
    }
    /* From the middle of the message: its start is often a boundary or padding. */
    const size_t start = (bytes / 2 - sample / 2) / esize * esize;
    size_t frame_len = 0;
    zip_status_t st = zip_compress(ctx, 0, (zip_elem_type_t)elem, src + start, sample / esize, dst,
                                   dst_cap, &frame_len);
    return ZIP_OK == st && frame_len * 10 < sample * 9;
}

/*
 * Below this a copy is cheaper than building a datatype, and the wrapped PML sends small
 * messages through a copy anyway.
 */
#define ZIP_DIRECT_MIN_BYTES 32768

/* A struct type: `first` bytes at a, then `second` bytes at b, addressed from MPI_BOTTOM. */
static int split_type(void *a, size_t first, void *b, size_t second, ompi_datatype_t **type)
{
    const int lens[2] = {(int)first, (int)second};
    const ptrdiff_t disps[2] = {(ptrdiff_t)a, (ptrdiff_t)b};
    ompi_datatype_t *const types[2] = {MPI_BYTE, MPI_BYTE};
    int rc = ompi_datatype_create_struct(2, lens, disps, types, type);
    if (OMPI_SUCCESS == rc) {
        rc = ompi_datatype_commit(type);
        if (OMPI_SUCCESS != rc) {
            ompi_datatype_destroy(type);
        }
    }
    return rc;
}

static void count_sent(const mca_pml_zip_hdr_t *hdr)
{
    mca_pml_zip_stats_t *s = &mca_pml_zip_component.counters;
    opal_atomic_add_fetch_64((volatile int64_t *)&s->msgs_sent, 1);
    if (MCA_PML_ZIP_KIND_FRAME == hdr->kind) {
        opal_atomic_add_fetch_64((volatile int64_t *)&s->msgs_compressed, 1);
    }
    opal_atomic_add_fetch_64((volatile int64_t *)&s->bytes_raw, (int64_t)hdr->raw_bytes);
    opal_atomic_add_fetch_64((volatile int64_t *)&s->bytes_wire,
                             (int64_t)(MCA_PML_ZIP_HDR_BYTES + hdr->wire_bytes));
}

int mca_pml_zip_encode(const void *buf, size_t count, ompi_datatype_t *dtype, int elem,
                       bool may_compress, bool may_reference, mca_pml_zip_wire_t *w)
{
    const size_t bytes = dtype->super.size * count;
    const char *src = NULL;
    void *packed = NULL;

    w->buf = NULL;
    w->len = 0;
    w->type = NULL;
    const bool contiguous = contiguous_base(buf, count, dtype, &src);
    if (!contiguous) {
        packed = mca_pml_zip_buf_get(bytes);
        if (NULL == packed) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        (void)ompi_datatype_sndrcv(buf, (int32_t)count, dtype, packed, (int32_t)bytes, MPI_PACKED);
        src = packed;
    }

    mca_pml_zip_hdr_t hdr = {.magic = MCA_PML_ZIP_MAGIC,
                             .kind = MCA_PML_ZIP_KIND_RAW,
                             .elem = (uint32_t)elem,
                             .raw_bytes = bytes,
                             .wire_bytes = bytes};
    char *out = NULL;
    if (may_compress && bytes >= mca_pml_zip_component.threshold && bytes > 0) {
        const size_t cap = zip_compress_bound(bytes);
        out = mca_pml_zip_buf_get(MCA_PML_ZIP_HDR_BYTES + cap);
        zip_ctx_t *ctx = (NULL != out) ? mca_pml_zip_ctx_get() : NULL;
        if (NULL != ctx &&
            worth_compressing(ctx, elem, src, bytes, out + MCA_PML_ZIP_HDR_BYTES, cap)) {
            size_t frame_len = 0;
            zip_status_t st = zip_compress(ctx, 0, (zip_elem_type_t)elem, src,
                                           bytes / zip_elem_size((zip_elem_type_t)elem),
                                           out + MCA_PML_ZIP_HDR_BYTES, cap, &frame_len);
            /* A frame that does not shrink the data is not worth the receiver's decode. */
            if (ZIP_OK == st && frame_len < bytes) {
                hdr.kind = MCA_PML_ZIP_KIND_FRAME;
                hdr.wire_bytes = frame_len;
            }
        }
        mca_pml_zip_ctx_put(ctx);
    }
    w->hdr = hdr;
    if (MCA_PML_ZIP_KIND_RAW == hdr.kind && contiguous && may_reference &&
        bytes >= ZIP_DIRECT_MIN_BYTES && bytes <= INT_MAX &&
        OMPI_SUCCESS == split_type(&w->hdr, MCA_PML_ZIP_HDR_BYTES, (void *)src, bytes, &w->type)) {
        /* Raw and large: header + the application's data, no copy. */
        mca_pml_zip_buf_put(out);
        count_sent(&hdr);
        return OMPI_SUCCESS;
    }
    if (MCA_PML_ZIP_KIND_RAW == hdr.kind) {
        if (NULL == out) {
            out = mca_pml_zip_buf_get(MCA_PML_ZIP_HDR_BYTES + bytes);
        }
        if (NULL != out && bytes > 0) {
            memcpy(out + MCA_PML_ZIP_HDR_BYTES, src, bytes);
        }
    }
    mca_pml_zip_buf_put(packed);
    if (NULL == out) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    memcpy(out, &hdr, sizeof(hdr));
    w->buf = out;
    w->len = MCA_PML_ZIP_HDR_BYTES + hdr.wire_bytes;
    count_sent(&hdr);
    return OMPI_SUCCESS;
}

void mca_pml_zip_wire_args(mca_pml_zip_wire_t *w, void **buf, size_t *count, ompi_datatype_t **type)
{
    if (NULL != w->type) {
        *buf = MPI_BOTTOM;
        *count = 1;
        *type = w->type;
    } else {
        *buf = w->buf;
        *count = w->len;
        *type = MPI_BYTE;
    }
}

void mca_pml_zip_wire_release(mca_pml_zip_wire_t *w)
{
    mca_pml_zip_buf_put(w->buf);
    w->buf = NULL;
    if (NULL != w->type) {
        ompi_datatype_destroy(&w->type);
        w->type = NULL;
    }
}

int mca_pml_zip_landing_prepare(mca_pml_zip_landing_t *l, void *buf, size_t count,
                                ompi_datatype_t *dtype, void **rbuf, size_t *rcount,
                                ompi_datatype_t **rtype)
{
    const size_t bytes = dtype->super.size * count;
    const char *base = NULL;

    l->stage = NULL;
    l->stage_cap = 0;
    l->type = NULL;
    if (bytes >= ZIP_DIRECT_MIN_BYTES && bytes <= INT_MAX &&
        contiguous_base(buf, count, dtype, &base) &&
        OMPI_SUCCESS == split_type(&l->hdr, MCA_PML_ZIP_HDR_BYTES, (void *)base, bytes, &l->type)) {
        *rbuf = MPI_BOTTOM;
        *rcount = 1;
        *rtype = l->type;
        return OMPI_SUCCESS;
    }
    l->stage_cap = MCA_PML_ZIP_HDR_BYTES + bytes;
    l->stage = mca_pml_zip_buf_get(l->stage_cap);
    if (NULL == l->stage) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *rbuf = l->stage;
    *rcount = l->stage_cap;
    *rtype = MPI_BYTE;
    return OMPI_SUCCESS;
}

/* Direct landing: the header arrived in l->hdr and the rest at the application's buffer. */
static int landing_decode_direct(mca_pml_zip_landing_t *l, size_t received, char *base, size_t cap,
                                 size_t *raw)
{
    const mca_pml_zip_hdr_t *h = &l->hdr;
    const size_t payload = received >= MCA_PML_ZIP_HDR_BYTES ? received - MCA_PML_ZIP_HDR_BYTES : 0;

    if (received < MCA_PML_ZIP_HDR_BYTES || MCA_PML_ZIP_MAGIC != h->magic ||
        h->wire_bytes != payload ||
        !((MCA_PML_ZIP_KIND_RAW == h->kind && h->raw_bytes == h->wire_bytes) ||
          (MCA_PML_ZIP_KIND_FRAME == h->kind && h->wire_bytes < h->raw_bytes))) {
        /* No header: the message's first bytes are in l->hdr. Put them back in front. */
        opal_output_verbose(1, mca_pml_zip_component.output,
                            "pml:zip: a %zu-byte message for a float/double receive has no zip "
                            "header (is zip on for this communicator on every rank?)",
                            received);
        const size_t head = received < MCA_PML_ZIP_HDR_BYTES ? received : MCA_PML_ZIP_HDR_BYTES;
        *raw = received;
        if (received > cap) {
            return MPI_ERR_TRUNCATE;
        }
        memmove(base + head, base, payload);
        memcpy(base, &l->hdr, head);
        return MPI_SUCCESS;
    }
    *raw = h->raw_bytes;
    opal_atomic_add_fetch_64((volatile int64_t *)&mca_pml_zip_component.counters.msgs_received, 1);
    if (MCA_PML_ZIP_KIND_RAW == h->kind) {
        return MPI_SUCCESS; /* already in place */
    }
    if (h->raw_bytes > cap) {
        return MPI_ERR_TRUNCATE;
    }
    /* The frame sits at the start of the buffer it decodes into: move it out first. */
    void *frame = mca_pml_zip_buf_get(payload);
    zip_ctx_t *ctx = (NULL != frame) ? mca_pml_zip_ctx_get() : NULL;
    if (NULL == ctx) {
        mca_pml_zip_buf_put(frame);
        return MPI_ERR_NO_MEM;
    }
    memcpy(frame, base, payload);
    size_t got = 0;
    zip_status_t st = zip_decompress(ctx, 0, frame, payload, base, h->raw_bytes, &got);
    if (ZIP_OK != st) {
        opal_output(0, "pml:zip: a %zu-byte frame did not decode: %s (%s)", payload,
                    zip_status_str(st), zip_ctx_last_error(ctx));
    }
    mca_pml_zip_ctx_put(ctx);
    mca_pml_zip_buf_put(frame);
    return (ZIP_OK == st && got == h->raw_bytes) ? MPI_SUCCESS : MPI_ERR_OTHER;
}

int mca_pml_zip_landing_decode(mca_pml_zip_landing_t *l, size_t received, void *buf, size_t count,
                               ompi_datatype_t *dtype, size_t *raw)
{
    if (NULL != l->type) {
        const char *base = NULL;
        (void)contiguous_base(buf, count, dtype, &base);
        return landing_decode_direct(l, received, (char *)base, dtype->super.size * count, raw);
    }
    return mca_pml_zip_decode(l->stage, received, buf, count, dtype, raw);
}

void mca_pml_zip_landing_release(mca_pml_zip_landing_t *l)
{
    mca_pml_zip_buf_put(l->stage);
    l->stage = NULL;
    if (NULL != l->type) {
        ompi_datatype_destroy(&l->type);
        l->type = NULL;
    }
}

int mca_pml_zip_parse(const void *wire, size_t wire_len, mca_pml_zip_hdr_t *hdr)
{
    if (wire_len < MCA_PML_ZIP_HDR_BYTES) {
        return 0;
    }
    memcpy(hdr, wire, sizeof(*hdr));
    if (MCA_PML_ZIP_MAGIC != hdr->magic || hdr->wire_bytes != wire_len - MCA_PML_ZIP_HDR_BYTES) {
        return 0;
    }
    if (MCA_PML_ZIP_KIND_RAW == hdr->kind) {
        return hdr->raw_bytes == hdr->wire_bytes;
    }
    return MCA_PML_ZIP_KIND_FRAME == hdr->kind && hdr->wire_bytes < hdr->raw_bytes;
}

int mca_pml_zip_unpack_bytes(const void *bytes, size_t len, void *buf, size_t count,
                             ompi_datatype_t *dtype)
{
    const size_t cap = dtype->super.size * count;
    const size_t n = len < cap ? len : cap;
    const char *base = NULL;

    if (contiguous_base(buf, count, dtype, &base)) {
        if (n > 0) {
            memcpy((char *)base, bytes, n);
        }
    } else if (n > 0) {
        (void)ompi_datatype_sndrcv(bytes, (int32_t)n, MPI_PACKED, buf, (int32_t)count, dtype);
    }
    return len > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

int mca_pml_zip_decode(const void *wire, size_t wire_len, void *buf, size_t count,
                       ompi_datatype_t *dtype, size_t *raw_bytes)
{
    mca_pml_zip_hdr_t hdr;

    if (!mca_pml_zip_parse(wire, wire_len, &hdr)) {
        /* Not a zip message: the sender did not see this communicator as enabled, or sent a
         * different type class. Deliver the bytes as they are. */
        *raw_bytes = wire_len;
        opal_output_verbose(1, mca_pml_zip_component.output,
                            "pml:zip: a %zu-byte message for a float/double receive has no zip "
                            "header (is zip on for this communicator on every rank?)",
                            wire_len);
        return mca_pml_zip_unpack_bytes(wire, wire_len, buf, count, dtype);
    }
    const char *payload = (const char *)wire + MCA_PML_ZIP_HDR_BYTES;
    *raw_bytes = hdr.raw_bytes;
    opal_atomic_add_fetch_64((volatile int64_t *)&mca_pml_zip_component.counters.msgs_received, 1);
    if (MCA_PML_ZIP_KIND_RAW == hdr.kind) {
        return mca_pml_zip_unpack_bytes(payload, hdr.raw_bytes, buf, count, dtype);
    }

    const size_t cap = dtype->super.size * count;
    if (hdr.raw_bytes > cap) {
        return MPI_ERR_TRUNCATE;
    }
    const char *base = NULL;
    const bool direct = contiguous_base(buf, count, dtype, &base);
    void *dst = direct ? (void *)base : mca_pml_zip_buf_get(hdr.raw_bytes);
    if (NULL == dst) {
        return MPI_ERR_NO_MEM;
    }
    zip_ctx_t *ctx = mca_pml_zip_ctx_get();
    size_t got = 0;
    zip_status_t st =
        (NULL == ctx) ? ZIP_E_UNSUPPORTED
                      : zip_decompress(ctx, 0, payload, hdr.wire_bytes, dst, hdr.raw_bytes, &got);
    if (ZIP_OK != st) {
        opal_output(0, "pml:zip: a %" PRIu64 "-byte frame did not decode: %s (%s)", hdr.wire_bytes,
                    zip_status_str(st), ctx ? zip_ctx_last_error(ctx) : "");
    }
    mca_pml_zip_ctx_put(ctx);
    int rc = (ZIP_OK == st && got == hdr.raw_bytes) ? MPI_SUCCESS : MPI_ERR_OTHER;
    if (!direct) {
        if (MPI_SUCCESS == rc) {
            rc = mca_pml_zip_unpack_bytes(dst, hdr.raw_bytes, buf, count, dtype);
        }
        mca_pml_zip_buf_put(dst);
    }
    return rc;
}
