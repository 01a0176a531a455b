/*
 * Temporal streams (pml_zip_temporal auto; docs/p2p.md "Temporal streams"): a sender codes a
 * message as its difference from the previous message of its stream, (communicator, peer, tag,
 * size), where a sample shows that pays (the rule coll/zip's Alltoallv uses,
 * common/temporal_choice.hpp), and the receiver decodes it against its copy of that message.
 *
 * What both ends keep, and when, is common/p2p_streams.h: every stream message carries its
 * number on its channel (communicator, peer, tag) and whether it is kept, in a prefix in front
 * of its payload, and the receiver applies the same rule in that order. MPI matches a channel's
 * messages in send order, but their payloads may arrive in any order (a small eager one after a
 * large rendezvous one), so a message whose predecessors are not yet decoded waits, parked on
 * its channel, and its request completes after theirs.
 *
 * Stream messages are always split (envelope + payload) and always staged: the receiver decodes
 * into a buffer that then becomes the stream's reference, and unpacks from it into the
 * application's buffer, whatever its datatype, size (truncation) or the receive (a matched
 * probe fetches and decodes at once, so that MPI_Mrecv can come any time later).
 *
 * One mutex serialises the streams; MPI_THREAD_MULTIPLE turns stream coding off (two threads
 * sending on one channel would number messages in one order and post them in another).
 */
#include "ompi_config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"
#include "ompi/constants.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"

#include "p2p_streams.h"
#include "pml_zip.h"

static opal_mutex_t temporal_lock = OPAL_MUTEX_STATIC_INIT;
static zip_p2p_streams_t *streams;
/* Whether the codec can code deltas (a lossless one): -1 not known yet. */
static volatile int delta_capable = -1;
static bool told_multiple;

/* Per-process counters of stream messages sent (the streams count the rest). */
static volatile int64_t sent_raw_bytes, sent_wire_bytes;

int mca_pml_zip_temporal_mode_parse(const char *name)
{
    if (NULL == name) {
        return -1;
    }
    if (0 == strcmp(name, "off")) {
        return 0;
    }
    return 0 == strcmp(name, "auto") ? 1 : -1;
}

void mca_pml_zip_temporal_init(void)
{
    delta_capable = -1;
    told_multiple = false;
    sent_raw_bytes = sent_wire_bytes = 0;
}

/* Under the lock: the streams, made on first use (a receiver needs them whatever its own
 * setting: the sender decides). */
static zip_p2p_streams_t *the_streams(void)
{
    if (NULL == streams) {
        streams = zip_p2p_streams_create(mca_pml_zip_component.temporal_memory,
                                         (unsigned)ompi_comm_size(&ompi_mpi_comm_world.comm));
    }
    return streams;
}

/* Whether the codec codes deltas; says once why not (a lossy stage: a receiver's copy of the
 * reference is what it decoded, not what was sent). */
static bool codec_codes_deltas(void)
{
    if (delta_capable >= 0) {
        return 1 == delta_capable;
    }
    zip_ctx_t *ctx = mca_pml_zip_ctx_get();
    const double probe[2] = {1.0, 2.0};
    unsigned char frame[256];
    size_t frame_len = 0;
    const bool ok = NULL != ctx && ZIP_OK == zip_compress_delta(ctx, ZIP_TYPE_F64, probe, 2, probe,
                                                                frame, sizeof(frame), &frame_len);
    if (!ok) {
        opal_output(0, "pml:zip: pml_zip_temporal is off: codec \"%s\" cannot code deltas (%s)",
                    mca_pml_zip_component.codec, NULL != ctx ? zip_ctx_last_error(ctx) : "none");
    }
    mca_pml_zip_ctx_put(ctx);
    delta_capable = ok ? 1 : 0;
    return ok;
}

bool mca_pml_zip_temporal_applies(ompi_communicator_t *comm, int dst, size_t bytes, int elem,
                                  mca_pml_base_send_mode_t mode)
{
    /* Synchronous sends stay out: a matched probe fetches a stream message's payload, which
     * must not complete an MPI_Ssend before its MPI_Mrecv. */
    if (MCA_PML_BASE_SEND_SYNCHRONOUS == mode || ZIP_TYPE_BYTES == elem || 0 == bytes ||
        !mca_pml_zip_comm_temporal(comm)) {
        return false;
    }
    if (ompi_mpi_thread_multiple) {
        if (!told_multiple) {
            told_multiple = true;
            opal_output(0, "pml:zip: pml_zip_temporal is off under MPI_THREAD_MULTIPLE");
        }
        return false;
    }
    const zip_policy_mode_t pm = mca_pml_zip_comm_policy(comm);
    if ((ZIP_POLICY_AUTO != pm && ZIP_POLICY_ALWAYS != pm) ||
        ZIP_PEER_LOCAL == mca_pml_zip_peer_class(comm, dst) || !codec_codes_deltas()) {
        return false;
    }
    /* Where no frame could pay (a link faster than the codec), messages go the plain way. */
    const zip_speeds_t speeds = zip_estimator_speeds(mca_pml_zip_estimator(), ZIP_PEER_REMOTE, 1);
    return ZIP_VERDICT_COMPRESS == zip_policy_decide(pm, &speeds, bytes,
                                                     mca_pml_zip_component.threshold, 0.0,
                                                     ZIP_TRANSFER_ONE_SHOT);
}

typedef struct {
    zip_ctx_t *ctx;
    zip_elem_type_t elem;
    const char *src;
    void *dst;
    size_t cap;
} sample_arg_t;

/* Codes n bytes of the message from offset `at` (whole elements) into a->dst, against ref + at
 * or on its own; the frame's length, 0 if it does not shrink them. */
static size_t code_part(const sample_arg_t *a, const char *ref, size_t at, size_t n)
{
    const size_t esize = zip_elem_size(a->elem);
    const size_t count = n / esize;
    size_t len = 0;
    if (0 == count) {
        return 0;
    }
    const zip_status_t st =
        NULL != ref ? zip_compress_delta(a->ctx, a->elem, a->src + at, count, ref + at, a->dst,
                                         a->cap, &len)
                    : zip_compress(a->ctx, 0, a->elem, a->src + at, count, a->dst, a->cap, &len);
    return (ZIP_OK == st && len < count * esize) ? len : 0;
}

/* The shared choice's sample: the message's first n bytes. */
static size_t sample_code(void *arg, const char *ref, size_t n)
{
    return code_part(arg, ref, 0, n);
}

/* The cost model's sample, as pml_zip_wire.c takes it (a quarter of the message, at most 64
 * KiB, from its middle), coded the way the message will be: raw / frame, 0 if too small. */
static double policy_sample(const sample_arg_t *a, const char *ref, size_t bytes)
{
    const size_t esize = zip_elem_size(a->elem);
    size_t n = bytes / 4 < 65536 ? bytes / 4 : 65536;
    n = n / esize * esize;
    if (n < 4096) {
        return 0.0;
    }
    const size_t at = (bytes / 2 - n / 2) / esize * esize;
    const size_t len = code_part(a, ref, at, n);
    return len > 0 ? (double)n / (double)len : 1.0;
}

int mca_pml_zip_temporal_encode(const void *buf, size_t count, ompi_datatype_t *dtype, size_t bytes,
                                int elem, ompi_communicator_t *comm, int dst, int tag,
                                mca_pml_zip_out_t *out)
{
    void *packed;
    const char *src = mca_pml_zip_flat_bytes(buf, count, dtype, bytes, &packed);
    if (NULL == src) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    size_t cap = zip_compress_bound(bytes);
    cap = cap > bytes ? cap : bytes;
    char *wire = mca_pml_zip_buf_get(MCA_PML_ZIP_STREAM_PREFIX_BYTES + cap);
    zip_ctx_t *ctx = NULL != wire ? mca_pml_zip_ctx_get() : NULL;
    if (NULL == ctx) {
        mca_pml_zip_buf_put(wire);
        mca_pml_zip_buf_put(packed);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    char *payload = wire + MCA_PML_ZIP_STREAM_PREFIX_BYTES;
    const sample_arg_t sa = {ctx, (zip_elem_type_t)elem, src, payload, cap};
    const zip_p2p_key_t key = {comm->c_contextid, dst, tag};
    const uint64_t pair = (uint64_t)(uintptr_t)ompi_comm_peer_lookup(comm, dst);

    OPAL_THREAD_LOCK(&temporal_lock);
    zip_p2p_streams_t *s = the_streams();
    const char *ref = NULL;
    const uint32_t cseq =
        NULL != s ? zip_p2p_send_begin(s, key, pair, bytes, sample_code, (void *)&sa, &ref)
                  : ZIP_P2P_ABANDONED;
    if (ZIP_P2P_ABANDONED == cseq) {
        OPAL_THREAD_UNLOCK(&temporal_lock);
        mca_pml_zip_ctx_put(ctx);
        mca_pml_zip_buf_put(wire);
        mca_pml_zip_buf_put(packed);
        return OMPI_ERR_OUT_OF_RESOURCE; /* the plain way */
    }
    const zip_policy_mode_t pm = mca_pml_zip_comm_policy(comm);
    const zip_speeds_t speeds = zip_estimator_speeds(mca_pml_zip_estimator(), ZIP_PEER_REMOTE, 1);
    const double ratio = policy_sample(&sa, ref, bytes);
    zip_verdict_t v = ratio > 0.0
                          ? zip_policy_decide(pm, &speeds, bytes, mca_pml_zip_component.threshold,
                                              ratio, ZIP_TRANSFER_ONE_SHOT)
                          : ZIP_VERDICT_COMPRESS; /* too small to sample: the frame */
    size_t frame_len = 0;
    bool framed = false;
    if (ZIP_VERDICT_COMPRESS == v) {
        const double t0 = mca_pml_zip_now();
        frame_len = code_part(&sa, ref, 0, bytes);
        zip_estimator_observe_codec(mca_pml_zip_estimator(), 0, bytes, mca_pml_zip_now() - t0);
        framed = frame_len > 0 && frame_len <= INT_MAX;
        if (!framed) {
            v = ZIP_VERDICT_INCOMPRESSIBLE;
        }
    }
    if (!framed) {
        memcpy(payload, src, bytes); /* raw, and still the stream's next reference */
    }
    const bool as_delta = framed && NULL != ref;
    const int keep = zip_p2p_send_end(s, key, pair, src, bytes, as_delta,
                                      framed ? (double)bytes / (double)frame_len : 1.0);
    OPAL_THREAD_UNLOCK(&temporal_lock);
    mca_pml_zip_ctx_put(ctx);
    mca_pml_zip_buf_put(packed);

    opal_atomic_add_fetch_64((volatile int64_t *)&mca_pml_zip_component.counters.verdicts[v], 1);
    mca_pml_zip_stream_prefix_write(wire, cseq, keep);
    out->split = true;
    out->temporal = true;
    out->peer_class = ZIP_PEER_REMOTE;
    out->buf = wire;
    out->len = MCA_PML_ZIP_STREAM_PREFIX_BYTES + (framed ? frame_len : bytes);
    mca_pml_zip_envelope_out(
        out, comm, MCA_PML_ZIP_ENV_TEMPORAL | (framed ? MCA_PML_ZIP_ENV_FRAME : 0), bytes);
    if (mca_pml_zip_component.stats) {
        opal_atomic_add_fetch_64(&sent_raw_bytes, (int64_t)bytes);
        opal_atomic_add_fetch_64(&sent_wire_bytes,
                                 (int64_t)(MCA_PML_ZIP_ENVELOPE_BYTES + out->len));
    }
    return OMPI_SUCCESS;
}

void mca_pml_zip_temporal_abandon(ompi_communicator_t *comm, int dst, int tag)
{
    const zip_p2p_key_t key = {comm->c_contextid, dst, tag};
    OPAL_THREAD_LOCK(&temporal_lock);
    if (NULL != streams) {
        zip_p2p_send_abandon(streams, key);
    }
    OPAL_THREAD_UNLOCK(&temporal_lock);
}

/* Under the lock, in its channel's turn: decodes req's message against the stream's reference,
 * delivers it (into the application's buffer, or req->held for a matched probe), and applies
 * the keep rule. Returns the request's error. */
static int decode_in_turn(zip_p2p_streams_t *s, const zip_p2p_key_t *key,
                          mca_pml_zip_request_t *req, int keep)
{
    const size_t raw = req->head.raw_bytes;
    const char *payload = (const char *)req->stage + MCA_PML_ZIP_STREAM_PREFIX_BYTES;
    const size_t plen = req->tlen - MCA_PML_ZIP_STREAM_PREFIX_BYTES;
    char *dec = malloc(raw);
    int rc = MPI_SUCCESS;
    if (NULL == dec) {
        rc = MPI_ERR_NO_MEM;
    } else if (req->head.flags & MCA_PML_ZIP_ENV_FRAME) {
        const char *ref = zip_p2p_recv_ref(s, *key, raw);
        zip_ctx_t *ctx = mca_pml_zip_ctx_get();
        size_t got = 0;
        const zip_status_t st = NULL == ctx
                                    ? ZIP_E_UNSUPPORTED
                                    : zip_decompress_ref(ctx, payload, plen, ref,
                                                         NULL != ref ? raw : 0, dec, raw, &got);
        if (ZIP_OK != st || got != raw) {
            opal_output(0,
                        "pml:zip: a %zu-byte stream frame from rank %d (tag %d) did not decode: "
                        "%s (%s)",
                        plen, req->msg_source, req->msg_tag, zip_status_str(st),
                        NULL != ctx ? zip_ctx_last_error(ctx) : "");
            rc = MPI_ERR_OTHER;
        }
        mca_pml_zip_ctx_put(ctx);
    } else if (plen != raw) {
        opal_output(0, "pml:zip: a stream payload of %zu bytes where its envelope announced %zu",
                    plen, raw);
        rc = MPI_ERR_INTERN;
    } else {
        memcpy(dec, payload, raw);
    }
    if (MPI_SUCCESS != rc) {
        free(dec);
        zip_p2p_recv_done(s, *key, raw, keep, NULL); /* the stream is gone at this end */
        return rc;
    }
    if (req->hold) {
        req->held = keep ? malloc(raw) : dec;
        if (NULL == req->held) {
            rc = MPI_ERR_NO_MEM;
        } else if (keep) {
            memcpy(req->held, dec, raw);
        } else {
            dec = NULL; /* the fetch owns it now; the stream drops its reference */
        }
    } else {
        /* A receive buffer too small gives MPI_ERR_TRUNCATE; the stream goes on alike. */
        rc = zip_ompi_unpack(dec, raw, req->rbuf, req->count, req->dtype);
    }
    zip_p2p_recv_done(s, *key, raw, keep, dec);
    return rc;
}

void mca_pml_zip_temporal_arrived(mca_pml_zip_request_t *req, size_t n)
{
    uint32_t cseq;
    int keep;
    req->tlen = n;
    if (!mca_pml_zip_stream_prefix_parse(req->stage, n, &cseq, &keep)) {
        opal_output(0, "pml:zip: a stream payload from rank %d without its prefix",
                    req->msg_source);
        mca_pml_zip_recv_finish(req, MPI_ERR_INTERN);
        return;
    }
    const zip_p2p_key_t key = {req->comm->c_contextid, req->msg_source, req->msg_tag};
    mca_pml_zip_request_t *done = NULL, **tail = &done, *failed = NULL;
    int early_error = MPI_SUCCESS;

    OPAL_THREAD_LOCK(&temporal_lock);
    zip_p2p_streams_t *s = the_streams();
    if (NULL == s) {
        early_error = MPI_ERR_NO_MEM;
        failed = req;
    } else if (cseq != zip_p2p_recv_next(s, key)) {
        /* Its predecessors are not decoded yet: it waits for them. A number already passed
         * (or taken) cannot happen between two zip processes. */
        if ((int32_t)(cseq - zip_p2p_recv_next(s, key)) < 0 ||
            0 != zip_p2p_recv_park(s, key, cseq, req)) {
            early_error = MPI_ERR_INTERN;
            failed = req;
        }
    } else {
        for (mca_pml_zip_request_t *r = req; NULL != r;
             r = (mca_pml_zip_request_t *)zip_p2p_recv_unpark(s, key)) {
            uint32_t rseq;
            int rkeep = 0;
            (void)mca_pml_zip_stream_prefix_parse(r->stage, r->tlen, &rseq, &rkeep);
            r->terror = decode_in_turn(s, &key, r, rkeep);
            r->tnext = NULL;
            *tail = r;
            tail = &r->tnext;
        }
    }
    OPAL_THREAD_UNLOCK(&temporal_lock);

    if (NULL != failed) {
        opal_output(0, "pml:zip: stream message %u from rank %d (tag %d) cannot be decoded in turn",
                    cseq, key.peer, key.tag);
        mca_pml_zip_recv_finish(failed, early_error);
    }
    /* Completions run callbacks: outside the lock. */
    while (NULL != done) {
        mca_pml_zip_request_t *next = done->tnext;
        mca_pml_zip_recv_finish(done, done->terror);
        done = next;
    }
}

int mca_pml_zip_temporal_fetch(mca_pml_zip_stash_entry_t *e, ompi_communicator_t *comm)
{
    mca_pml_zip_request_t *req =
        mca_pml_zip_recv_request(NULL, 0, &ompi_mpi_byte.dt, e->source, e->tag, comm, false);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->hold = true;
    OBJ_RETAIN(req); /* the wait releases the request; its data are read after */
    mca_pml_zip_recv_first(req, e->source, e->tag, &e->head, NULL);
    ompi_request_t *r = &req->super;
    ompi_status_public_t st;
    int rc = ompi_request_wait(&r, &st);
    if (OMPI_SUCCESS == rc && NULL != req->held) {
        mca_pml_zip_buf_put(e->buf);
        e->buf = NULL;
        e->held = req->held;
        req->held = NULL;
        e->data = e->held;
        e->head.shape = ZIP_SHAPE_HELD; /* delivered by MPI_Mrecv from e->data */
        e->head.flags = 0;
    } else {
        e->error = OMPI_SUCCESS != rc ? rc : MPI_ERR_INTERN;
    }
    mca_pml_zip_request_unref(req);
    return OMPI_SUCCESS;
}

void mca_pml_zip_temporal_drop_comm(ompi_communicator_t *comm)
{
    OPAL_THREAD_LOCK(&temporal_lock);
    if (NULL != streams) {
        zip_p2p_streams_drop_cid(streams, comm->c_contextid);
    }
    OPAL_THREAD_UNLOCK(&temporal_lock);
}

void mca_pml_zip_temporal_report(int rank)
{
    zip_p2p_counts_t c;
    memset(&c, 0, sizeof(c));
    OPAL_THREAD_LOCK(&temporal_lock);
    if (NULL != streams) {
        zip_p2p_streams_counts(streams, &c);
    }
    OPAL_THREAD_UNLOCK(&temporal_lock);
    opal_output(0,
                "pml:zip temporal (rank %d): sent %" PRIu64 " stream messages (%" PRIu64
                " delta frames saving about %" PRIu64 " bytes against plain ones, %" PRIu64
                " kept, %" PRIu64 " samples), stream bytes %" PRId64 " -> wire %" PRId64
                "; received %" PRIu64 "; references sent %" PRIu64 " (peak %" PRIu64
                ") received %" PRIu64 " (peak %" PRIu64 ")",
                rank, c.temporal_sent, c.delta_frames, c.delta_saved, c.kept_sent, c.probes,
                sent_raw_bytes, sent_wire_bytes, c.temporal_recvd, c.bytes_sent_refs,
                c.peak_sent_refs, c.bytes_recv_refs, c.peak_recv_refs);
}

void mca_pml_zip_temporal_fini(void)
{
    OPAL_THREAD_LOCK(&temporal_lock);
    zip_p2p_streams_destroy(streams);
    streams = NULL;
    OPAL_THREAD_UNLOCK(&temporal_lock);
}
