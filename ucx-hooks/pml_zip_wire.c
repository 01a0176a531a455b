/*
 * Payloads: the sender's choice between bare, split raw and split compressed (pml_zip.h
 * describes the shapes), and the receiver's decoding of whatever arrived into the
 * application's buffer, whatever its datatype: the bytes delivered are exactly those the
 * sender's data would have had without zip.
 */
#include "ompi_config.h"

#include <limits.h>
#include <string.h>

#include "opal/threads/thread_usage.h"
#include "opal/util/output.h"

#include "payload_tags.h"
#include "pml_zip.h"

/*
 * The sample: a quarter of the message, up to 64 KiB, from its middle (the start is often a
 * boundary or padding). Its ratio feeds the cost model; it also keeps incompressible data from
 * costing a full compression pass. Returns raw / compressed, or 0 if the message is too small
 * to sample. dst is scratch.
 */
#define ZIP_SAMPLE_MAX_BYTES 65536
#define ZIP_SAMPLE_MIN_BYTES 4096
static double sample_ratio(zip_ctx_t *ctx, int elem, const char *src, size_t bytes, void *dst,
                           size_t dst_cap)
{
    const size_t esize = zip_elem_size((zip_elem_type_t)elem);
    size_t sample = bytes / 4 < ZIP_SAMPLE_MAX_BYTES ? bytes / 4 : ZIP_SAMPLE_MAX_BYTES;
    sample = sample / esize * esize;
    if (sample < ZIP_SAMPLE_MIN_BYTES) {
        return 0.0;
    }
    const size_t start = (bytes / 2 - sample / 2) / esize * esize;
    size_t frame_len = 0;
    const double t0 = mca_pml_zip_now();
    zip_status_t st = zip_compress(ctx, 0, (zip_elem_type_t)elem, src + start, sample / esize, dst,
                                   dst_cap, &frame_len);
    zip_estimator_observe_codec(mca_pml_zip_estimator(), 0, sample, mca_pml_zip_now() - t0);
    return (ZIP_OK == st && frame_len > 0) ? (double)sample / (double)frame_len : 1.0;
}

/*
 * Asks the cost model (zip.h) about a message it already found worth a sample: samples it and,
 * if compressing pays, puts a frame of it in out->buf. Under "observe" nothing is compressed:
 * *saving is what the model predicts compression would have saved.
 */
static zip_verdict_t compress_if_it_pays(const void *buf, size_t count, ompi_datatype_t *dtype,
                                         size_t bytes, int elem, zip_policy_mode_t mode,
                                         const zip_speeds_t *speeds, mca_pml_zip_out_t *out,
                                         double *saving)
{
    void *packed;
    const char *src = mca_pml_zip_flat_bytes(buf, count, dtype, bytes, &packed);
    if (NULL == src) {
        return ZIP_VERDICT_INCOMPRESSIBLE;
    }
    const size_t cap = zip_compress_bound(bytes);
    void *frame = mca_pml_zip_buf_get(cap);
    zip_ctx_t *ctx = (NULL != frame) ? mca_pml_zip_ctx_get() : NULL;
    zip_verdict_t v = ZIP_VERDICT_INCOMPRESSIBLE;
    size_t frame_len = 0;
    if (NULL != ctx) {
        double ratio = sample_ratio(ctx, elem, src, bytes, frame, cap);
        const size_t threshold = mca_pml_zip_component.threshold;
        v = (ratio > 0.0)
                ? zip_policy_decide(mode, speeds, bytes, threshold, ratio, ZIP_TRANSFER_ONE_SHOT)
                : ZIP_VERDICT_COMPRESS; /* too small to sample: the frame decides */
        if (ZIP_VERDICT_COMPRESS == v && (ZIP_POLICY_OBSERVE != mode || 0.0 == ratio)) {
            const double t0 = mca_pml_zip_now();
            zip_status_t st =
                zip_compress(ctx, 0, (zip_elem_type_t)elem, src,
                             bytes / zip_elem_size((zip_elem_type_t)elem), frame, cap, &frame_len);
            zip_estimator_observe_codec(mca_pml_zip_estimator(), 0, bytes, mca_pml_zip_now() - t0);
            /* A frame that does not shrink the data is not worth the receiver's decode. */
            if (ZIP_OK != st || frame_len >= bytes || frame_len > INT_MAX) {
                v = ZIP_VERDICT_INCOMPRESSIBLE;
            } else if (0.0 == ratio) {
                /* Too small to sample: the frame is the sample, and the model judges its ratio
                 * as it would a sample's (a frame 12 % shorter went out over a 1 Gbit/s link,
                 * where coding and decoding it cost more than the bytes it saved). */
                ratio = (double)bytes / (double)frame_len;
                v = zip_policy_decide(mode, speeds, bytes, threshold, ratio, ZIP_TRANSFER_ONE_SHOT);
            }
        }
        if (ZIP_VERDICT_COMPRESS == v && ZIP_POLICY_OBSERVE == mode) {
            *saving = zip_policy_time_raw(speeds, bytes) -
                      zip_policy_time_compressed(speeds, bytes, ratio, ZIP_TRANSFER_ONE_SHOT);
        }
    }
    mca_pml_zip_ctx_put(ctx);
    mca_pml_zip_buf_put(packed);
    if (ZIP_VERDICT_COMPRESS != v || ZIP_POLICY_OBSERVE == mode) {
        mca_pml_zip_buf_put(frame);
        return v;
    }
    out->buf = frame;
    out->len = frame_len;
    return v;
}

/* What the policy says for a message; a frame in out->buf when it is to be compressed. */
static bool policy_compresses(const void *buf, size_t count, ompi_datatype_t *dtype, size_t bytes,
                              int elem, ompi_communicator_t *comm, int dst, mca_pml_zip_out_t *out)
{
    mca_pml_zip_stats_t *s = &mca_pml_zip_component.counters;
    const zip_policy_mode_t mode = mca_pml_zip_comm_policy(comm);
    out->peer_class = mca_pml_zip_peer_class(comm, dst);
    zip_speeds_t speeds = zip_estimator_speeds(mca_pml_zip_estimator(), out->peer_class, 1);
    if (ZIP_PEER_REMOTE == out->peer_class && speeds.link_Bps <= 0.0 && ZIP_POLICY_ALWAYS != mode &&
        ZIP_POLICY_NEVER != mode && mca_pml_zip_adopt_coll_link()) {
        speeds = zip_estimator_speeds(mca_pml_zip_estimator(), out->peer_class, 1);
    }
    double saving = 0.0;
    /* Shared memory moves data at least as fast as a codec reads it, so a peer on this node
     * never gets a frame (as in coll/zip), whatever a link rate measured under load says. */
    zip_verdict_t v = ZIP_PEER_LOCAL == out->peer_class
                          ? ZIP_VERDICT_LINK_FASTER
                          : zip_policy_decide(mode, &speeds, bytes, mca_pml_zip_component.threshold,
                                              0.0, ZIP_TRANSFER_ONE_SHOT);
    if (ZIP_VERDICT_COMPRESS == v) {
        v = compress_if_it_pays(buf, count, dtype, bytes, elem, mode, &speeds, out, &saving);
    }
    if (mca_pml_zip_component.stats) { /* read only by the summary: an atomic add is ~20 ns */
        /* An untimed link is not a fast one: a user reading the counts must tell them apart. */
        const bool unknown = ZIP_VERDICT_LINK_FASTER == v && ZIP_PEER_REMOTE == out->peer_class &&
                             speeds.link_Bps <= 0.0;
        opal_atomic_add_fetch_64((volatile int64_t *)(unknown ? &s->link_unknown : &s->verdicts[v]),
                                 1);
    }
    if (ZIP_POLICY_OBSERVE == mode && ZIP_VERDICT_COMPRESS == v) {
        const int64_t ns = (int64_t)(saving > 0.0 ? saving * 1e9 : 0.0);
        const int c = zip_ompi_size_class(bytes);
        opal_atomic_add_fetch_64((volatile int64_t *)&s->observed_compressible, 1);
        opal_atomic_add_fetch_64((volatile int64_t *)&s->observed_saving_ns, ns);
        opal_atomic_add_fetch_64((volatile int64_t *)&s->observed_compressible_by_size[c], 1);
        opal_atomic_add_fetch_64((volatile int64_t *)&s->observed_saving_ns_by_size[c], ns);
        return false;
    }
    return ZIP_VERDICT_COMPRESS == v;
}

static void count_sent(uint64_t raw, uint64_t wire, bool compressed)
{
    mca_pml_zip_stats_t *s = &mca_pml_zip_component.counters;
    if (!mca_pml_zip_component.stats) {
        return; /* four atomics are a fifth of an 8-byte ping-pong on shared memory */
    }
    opal_atomic_add_fetch_64((volatile int64_t *)&s->msgs_sent, 1);
    if (compressed) {
        opal_atomic_add_fetch_64((volatile int64_t *)&s->msgs_compressed, 1);
    }
    opal_atomic_add_fetch_64((volatile int64_t *)&s->bytes_raw, (int64_t)raw);
    opal_atomic_add_fetch_64((volatile int64_t *)&s->bytes_wire, (int64_t)wire);
}

void mca_pml_zip_envelope_out(mca_pml_zip_out_t *out, const ompi_communicator_t *comm,
                              uint32_t flags, uint64_t raw_bytes)
{
    /* Another thread may start a non-blocking collective meanwhile: any recent value will do. */
    const int32_t nbc_tag = __atomic_load_n(&comm->c_nbc_tag, __ATOMIC_RELAXED);
    if (zip_payload_window(nbc_tag)) {
        flags |= MCA_PML_ZIP_ENV_WINDOW;
    }
    mca_pml_zip_envelope_write(out->env, out->seq, flags, raw_bytes, mca_pml_zip_link_hint());
}

static volatile int32_t next_seq;

uint32_t mca_pml_zip_next_seq(void)
{
    return (uint32_t)OPAL_THREAD_FETCH_ADD32(&next_seq, 1); /* atomic only with threads */
}

/* Raw payloads above bare_max to a peer of a class whose link rate this process knows: about
 * one in 2^ZIP_TIMED_ONE_IN_LOG2 (16) carries an envelope, enough for receivers to go on timing
 * the link (and to follow a link that got slower); the others go bare, at stock's cost (an
 * envelope costs a message and a match, 3-6 % of a 128-256 KiB payload's time on shared
 * memory). The
 * counter is stepped by the golden ratio so that the envelopes fall on every phase of a
 * periodic pattern (alternating sizes: the fit of arrival time against size needs both). */
#define ZIP_TIMED_ONE_IN_LOG2 4
static volatile int32_t large_raw_sent;

/* Without a rate, the first ZIP_TIMED_WHILE_UNKNOWN such messages all carry one, so that a
 * rate comes soon; after that one in 16 as above. A receiver that computes between its halo
 * exchanges never times an arrival (pml_zip_arrival_clock.c keeps only periods it polled
 * throughout), and an envelope in front of every large message cost such a code its time:
 * the payload's receive is posted only once the envelope is in (perftest/halo_late_post.c:
 * 0.1 ms an exchange at 1 Gbit/s; CloverLeaf on 2 ranks, two 92,640-byte halos a step, ran at
 * 0.93x of stock). The count stops at the limit (read first), so it never wraps. */
#define ZIP_TIMED_WHILE_UNKNOWN 32
static volatile int32_t large_raw_sent_unknown;

static bool carries_envelope_for_timing(int peer_class)
{
    if (!mca_pml_zip_link_known(peer_class) &&
        __atomic_load_n(&large_raw_sent_unknown, __ATOMIC_RELAXED) < ZIP_TIMED_WHILE_UNKNOWN &&
        OPAL_THREAD_FETCH_ADD32(&large_raw_sent_unknown, 1) < ZIP_TIMED_WHILE_UNKNOWN) {
        return true;
    }
    const uint32_t n = (uint32_t)OPAL_THREAD_FETCH_ADD32(&large_raw_sent, 1);
    return 0 == (n * UINT32_C(2654435769)) >> (32 - ZIP_TIMED_ONE_IN_LOG2);
}

/* Whether a raw payload of `bytes` goes bare. tell: if the link hint is due it is sent now (the
 * message goes as an envelope), so the peer counts as told. peer_class: the destination's, or
 * -1 if not looked up yet. */
static bool goes_bare(size_t bytes, mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                      int dst, int peer_class, bool tell)
{
    const size_t most = mca_pml_zip_component.bare_max;
    if (MCA_PML_BASE_SEND_SYNCHRONOUS == mode || MCA_PML_ZIP_ENVELOPE_BYTES == bytes) {
        return false;
    }
    if (bytes <= most) {
        return !mca_pml_zip_hint_due(comm, dst, tell);
    }
    if (0 == most) {
        return false; /* envelopes for all */
    }
    /* A node mate never gets a frame (nor a link hint), so its link rate is never asked: any
     * size goes bare to it. To others, an envelope now and then lets the receiver time the
     * link; not on a communicator that never compresses, which asks no rate either (pml/zip
     * disabled, or policy never: zip loaded and idle, stock's messages and no more). */
    const int pc = peer_class >= 0 ? peer_class : mca_pml_zip_peer_class(comm, dst);
    if (ZIP_PEER_LOCAL == pc) {
        return true;
    }
    if (mca_pml_zip_hint_due(comm, dst, tell)) {
        return false;
    }
    const bool compresses =
        mca_pml_zip_comm_enabled(comm) && ZIP_POLICY_NEVER != mca_pml_zip_comm_policy(comm);
    return !compresses || !carries_envelope_for_timing(pc);
}

bool mca_pml_zip_sends_small_bare(size_t count, ompi_datatype_t *dtype,
                                  mca_pml_base_send_mode_t mode, ompi_communicator_t *comm, int dst)
{
    const size_t bytes = dtype->super.size * count;
    /* Below the threshold nothing is asked of the policy or the streams (mca_pml_zip_encode). A
     * due hint is only looked at: the encoder sends it. */
    if (bytes >= mca_pml_zip_component.threshold || MCA_PML_BASE_SEND_BUFFERED == mode ||
        !goes_bare(bytes, mode, comm, dst, -1, false)) {
        return false;
    }
    count_sent(bytes, bytes, false);
    return true;
}

int mca_pml_zip_encode(const void *buf, size_t count, ompi_datatype_t *dtype,
                       mca_pml_base_send_mode_t mode, ompi_communicator_t *comm, int dst, int tag,
                       bool own_copy, mca_pml_zip_out_t *out)
{
    const size_t bytes = dtype->super.size * count;
    /* Below the threshold the element type is never asked (it walks the type's signature). */
    const int elem =
        bytes >= mca_pml_zip_component.threshold ? zip_ompi_elem_type(dtype) : ZIP_TYPE_BYTES;

    memset(out, 0, sizeof(*out));
    out->peer_class = -1;
    /* Cheapest tests first: most messages are below the threshold. Any datatype: what is not
     * float, double or integer data goes through the codec's byte path (records sent as
     * MPI_BYTE, mixed structs), as in coll/zip; the sample keeps what does not shrink raw. */
    const bool candidate =
        bytes > 0 && bytes >= mca_pml_zip_component.threshold && mca_pml_zip_comm_enabled(comm);
    /* seq names a split message's payload tag; a bare message needs none. */
    if (candidate) {
        out->seq = mca_pml_zip_next_seq();
    }
    /* A stream message (pml_zip_temporal.c); if its streams cannot take it, the plain way. */
    if (candidate && mca_pml_zip_temporal_applies(comm, dst, bytes, elem, mode) &&
        OMPI_SUCCESS ==
            mca_pml_zip_temporal_encode(buf, count, dtype, bytes, elem, comm, dst, tag, out)) {
        count_sent(bytes, MCA_PML_ZIP_ENVELOPE_BYTES + out->len,
                   0 != (out->env[1] & MCA_PML_ZIP_ENV_FRAME));
        return OMPI_SUCCESS;
    }
    if (candidate && policy_compresses(buf, count, dtype, bytes, elem, comm, dst, out)) {
        out->split = true;
        mca_pml_zip_envelope_out(out, comm, MCA_PML_ZIP_ENV_FRAME, bytes);
        count_sent(bytes, MCA_PML_ZIP_ENVELOPE_BYTES + out->len, true);
        return OMPI_SUCCESS;
    }
    /* A bare message: its count (anything but an envelope's 14) says what it is, no header
     * needed. */
    out->bare = goes_bare(bytes, mode, comm, dst, out->peer_class, true);
    out->split = !out->bare;
    if (out->split) {
        if (!candidate) {
            out->seq = mca_pml_zip_next_seq();
        }
        mca_pml_zip_envelope_out(out, comm, 0, bytes);
    }
    if (own_copy) {
        out->buf = mca_pml_zip_buf_get(bytes > 0 ? bytes : 1);
        if (NULL == out->buf) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        (void)zip_ompi_pack(out->buf, buf, count, dtype);
        out->len = bytes;
    } else {
        /* The application's own data, in its own datatype: no copy, the wrapped PML's
         * zero-copy paths stay in use. */
        out->pbuf = buf;
        out->pcount = count;
        out->ptype = dtype;
    }
    count_sent(bytes, (out->bare ? 0 : MCA_PML_ZIP_ENVELOPE_BYTES) + bytes, false);
    return OMPI_SUCCESS;
}

void mca_pml_zip_out_release(mca_pml_zip_out_t *out)
{
    mca_pml_zip_buf_put(out->buf);
    out->buf = NULL;
}

int mca_pml_zip_decode_frame(const void *frame, size_t frame_len, size_t raw_bytes, void *buf,
                             size_t count, ompi_datatype_t *dtype)
{
    const size_t cap = dtype->super.size * count;
    char *base = zip_ompi_contiguous_base(buf, count, dtype);
    const bool direct = NULL != base && raw_bytes <= cap;
    void *dst = direct ? (void *)base : mca_pml_zip_buf_get(raw_bytes);
    if (NULL == dst) {
        return MPI_ERR_NO_MEM;
    }
    zip_ctx_t *ctx = mca_pml_zip_ctx_get();
    size_t got = 0;
    const double t0 = mca_pml_zip_now();
    zip_status_t st = (NULL == ctx)
                          ? ZIP_E_UNSUPPORTED
                          : zip_decompress(ctx, 0, frame, frame_len, dst, raw_bytes, &got);
    if (ZIP_OK == st) {
        zip_estimator_observe_codec(mca_pml_zip_estimator(), 1, raw_bytes, mca_pml_zip_now() - t0);
    }
    if (ZIP_OK != st) {
        opal_output(0, "pml:zip: a %zu-byte frame did not decode: %s (%s)", frame_len,
                    zip_status_str(st), ctx ? zip_ctx_last_error(ctx) : "");
    }
    mca_pml_zip_ctx_put(ctx);
    int rc = (ZIP_OK == st && got == raw_bytes) ? MPI_SUCCESS : MPI_ERR_OTHER;
    if (!direct) {
        if (MPI_SUCCESS == rc) {
            rc = zip_ompi_unpack(dst, raw_bytes, buf, count, dtype);
        }
        mca_pml_zip_buf_put(dst);
    }
    return rc;
}
