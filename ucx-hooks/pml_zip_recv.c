/*
 * Receive side. A receive with an application tag first posts a landing buffer that holds any
 * short first message (an inline message or an envelope), followed by the application's own
 * buffer when that has room for more than a short inline message: a long inline message then
 * lands in place, its prefix in the landing buffer. Then it either delivers the inline bytes
 * or posts the payload receive the envelope announces: straight into the application's buffer
 * for raw data (the wrapped PML's zero-copy paths stay in use), into a staging buffer for a
 * frame or a payload too large for the buffer. Whatever the receive datatype, the bytes
 * delivered are the sender's.
 */
#include "ompi_config.h"

#include <string.h>

#include "opal/util/output.h"
#include "ompi/constants.h"

#include "pml_zip.h"

static bool zip_recv_applies(int src, int tag)
{
    return MPI_PROC_NULL != src && mca_pml_zip_app_tag(tag);
}

static size_t recv_capacity(const mca_pml_zip_request_t *req)
{
    return req->dtype->super.size * req->count;
}

/* The type a first message is received in: the landing buffer and, behind it, the
 * application's buffer when that can hold more than a short inline message and senders send
 * long ones (pml_zip_inline_max is the same on every rank); the caller releases it. NULL: the
 * landing buffer alone (a two-part type costs pml/ucx a generic datatype). */
static ompi_datatype_t *landing_type(void *stage, void *buf, size_t count, ompi_datatype_t *dtype)
{
    ompi_datatype_t *type = NULL;
    if (mca_pml_zip_component.inline_max > MCA_PML_ZIP_INLINE_MAX &&
        dtype->super.size * count > MCA_PML_ZIP_INLINE_MAX) {
        (void)mca_pml_zip_prefixed_type(stage, buf, count, dtype, &type);
    }
    return type;
}

/*
 * A message without zip framing (a sender without pml/zip) received through a landing type:
 * its first 16 bytes are in the landing buffer, the rest at the start of the application's
 * buffer. Puts them in order where the buffer is contiguous.
 */
static int join_unframed(const void *stage, size_t n, void *buf, size_t count,
                         ompi_datatype_t *dtype)
{
    if (n <= MCA_PML_ZIP_PREFIX_BYTES) {
        return zip_ompi_unpack(stage, n, buf, count, dtype);
    }
    char *base = zip_ompi_contiguous_base(buf, count, dtype);
    if (NULL == base) {
        opal_output(0, "pml:zip: a %zu-byte message without zip framing into a non-contiguous "
                       "buffer cannot be delivered (is pml/zip loaded on every rank?)",
                    n);
        return MPI_ERR_INTERN;
    }
    const size_t cap = dtype->super.size * count;
    const size_t keep = n < cap ? n : cap;
    memmove(base + MCA_PML_ZIP_PREFIX_BYTES, base, keep - MCA_PML_ZIP_PREFIX_BYTES);
    memcpy(base, stage, MCA_PML_ZIP_PREFIX_BYTES);
    return n > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
}

void mca_pml_zip_recv_finish(mca_pml_zip_request_t *req, int error)
{
    const size_t cap = recv_capacity(req);
    const size_t raw = req->head.raw_bytes;
    mca_pml_zip_buf_put(req->stage);
    req->stage = NULL;
    mca_pml_zip_request_complete(req, req->msg_source, req->msg_tag, raw < cap ? raw : cap, error,
                                 0);
}

/* A timed payload that will not arrive: its busy period is not timed. */
static void arrival_failed(mca_pml_zip_request_t *req)
{
    if (req->arrival_class >= 0) {
        mca_pml_zip_arrival_end(req->arrival_class, 0, 0.0, true);
        req->arrival_class = -1;
    }
}

/* The payload of an envelope, on its private tag from the envelope's sender. */
static int post_payload(mca_pml_zip_request_t *req)
{
    const mca_pml_zip_head_t *h = &req->head;
    const int ptag = mca_pml_zip_payload_tag(h->seq);
    const bool frame = 0 != (h->flags & MCA_PML_ZIP_ENV_FRAME);
    /* A stream message is staged whatever it is: its prefix, then a frame or the raw bytes. */
    const size_t extra =
        (h->flags & MCA_PML_ZIP_ENV_TEMPORAL) ? MCA_PML_ZIP_STREAM_PREFIX_BYTES : 0;

    req->phase = ZIP_RECV_PAYLOAD;
    req->drain = h->raw_bytes > recv_capacity(req);
    mca_pml_zip_buf_put(req->stage);
    req->stage = NULL;
    /* From here to its completion the payload is timed (pml_zip_arrival_clock.c). */
    req->arrival_class = mca_pml_zip_peer_class(req->comm, req->msg_source);
    mca_pml_zip_arrival_begin(req->arrival_class);
    int rc;
    if (frame || req->drain || extra > 0) {
        /* A frame is shorter than its data; a payload too large for the application's buffer
         * is received whole (so its sender completes) and truncated on delivery. */
        req->stage = mca_pml_zip_buf_get(h->raw_bytes + extra);
        if (NULL == req->stage) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        rc = mca_pml_zip_wrapped.pml_irecv(req->stage, h->raw_bytes + extra, MPI_BYTE,
                                           req->msg_source, ptag, req->comm, &req->inner);
    } else {
        rc = mca_pml_zip_wrapped.pml_irecv(req->rbuf, req->count, req->dtype, req->msg_source, ptag,
                                           req->comm, &req->inner);
    }
    if (OMPI_SUCCESS == rc) {
        mca_pml_zip_request_track(req);
    } else {
        arrival_failed(req);
    }
    return rc;
}

void mca_pml_zip_recv_first(mca_pml_zip_request_t *req, int source, int tag,
                            const mca_pml_zip_head_t *head, const void *inline_data)
{
    req->msg_source = source;
    req->msg_tag = tag;
    req->head = *head;
    mca_pml_zip_count_received();
    if (ZIP_SHAPE_INLINE == head->shape) {
        /* inline_data NULL: it landed in the application's buffer */
        mca_pml_zip_recv_finish(req, NULL == inline_data
                                         ? MPI_SUCCESS
                                         : zip_ompi_unpack(inline_data, head->raw_bytes, req->rbuf,
                                                           req->count, req->dtype));
        return;
    }
    int rc = post_payload(req);
    if (OMPI_SUCCESS != rc) {
        opal_output(0,
                    "pml:zip: could not post the %" PRIu64 "-byte payload of a message from "
                    "rank %d: %d",
                    head->raw_bytes, source, rc);
        mca_pml_zip_recv_finish(req, MPI_ERR_INTERN);
    }
}

/* The first message arrived, n bytes (in place: through a landing type): parse and go on. */
static void landing_arrived(mca_pml_zip_request_t *req, const ompi_status_public_t *st,
                            bool in_place)
{
    mca_pml_zip_head_t head;
    const size_t n = st->_ucount;
    if (mca_pml_zip_head_parse(req->stage, n, &head)) {
        mca_pml_zip_observe_hint(req->comm, st->MPI_SOURCE, head.link_hint);
        mca_pml_zip_recv_first(req, st->MPI_SOURCE, st->MPI_TAG, &head,
                               in_place ? NULL
                                        : (const char *)req->stage + MCA_PML_ZIP_PREFIX_BYTES);
        return;
    }
    /* Not from a zip sender: deliver its bytes as they are. */
    opal_output_verbose(1, mca_pml_zip_component.output,
                        "pml:zip: a %zu-byte message without zip framing (is pml/zip loaded on "
                        "every rank?)",
                        n);
    head.shape = ZIP_SHAPE_INLINE;
    head.raw_bytes = n;
    req->msg_source = st->MPI_SOURCE;
    req->msg_tag = st->MPI_TAG;
    req->head = head;
    mca_pml_zip_recv_finish(req, in_place
                                     ? join_unframed(req->stage, n, req->rbuf, req->count,
                                                     req->dtype)
                                     : zip_ompi_unpack(req->stage, n, req->rbuf, req->count,
                                                       req->dtype));
}

static void payload_arrived(mca_pml_zip_request_t *req, const ompi_status_public_t *st)
{
    const mca_pml_zip_head_t *h = &req->head;
    const size_t n = st->_ucount;
    int rc;
    if (req->arrival_class >= 0) {
        /* The bytes that travelled: a frame's, not the data's. */
        mca_pml_zip_arrival_end(req->arrival_class, n, req->arrival_seen, false);
        req->arrival_class = -1;
    }
    if (h->flags & MCA_PML_ZIP_ENV_TEMPORAL) {
        mca_pml_zip_temporal_arrived(req, n); /* completes req, now or in its stream's turn */
        return;
    }
    if (h->flags & MCA_PML_ZIP_ENV_FRAME) {
        rc = mca_pml_zip_decode_frame(req->stage, n, h->raw_bytes, req->rbuf, req->count,
                                      req->dtype);
    } else if (n != h->raw_bytes) {
        opal_output(0, "pml:zip: a payload of %zu bytes where its envelope announced %" PRIu64, n,
                    h->raw_bytes);
        rc = MPI_ERR_INTERN;
    } else if (req->drain) {
        rc = zip_ompi_unpack(req->stage, n, req->rbuf, req->count, req->dtype);
    } else {
        rc = MPI_SUCCESS; /* already in the application's buffer */
    }
    mca_pml_zip_recv_finish(req, rc);
}

/* The wrapped request of req's current phase completed. */
static void recv_inner_done(mca_pml_zip_request_t *req, ompi_request_t *inner,
                            ompi_request_t *unused)
{
    (void)unused;
    const ompi_status_public_t st = inner->req_status;
    ompi_request_free(&inner);
    const bool in_place = NULL != req->landing_type;
    mca_pml_zip_prefixed_type_release(&req->landing_type);
    if (st._cancelled || MPI_SUCCESS != st.MPI_ERROR) {
        arrival_failed(req);
    }
    if (st._cancelled) {
        mca_pml_zip_buf_put(req->stage);
        req->stage = NULL;
        mca_pml_zip_request_complete(req, st.MPI_SOURCE, st.MPI_TAG, 0, MPI_SUCCESS, 1);
        return;
    }
    if (MPI_SUCCESS != st.MPI_ERROR) {
        if (ZIP_RECV_LANDING == req->phase) {
            req->msg_source = st.MPI_SOURCE;
            req->msg_tag = st.MPI_TAG;
            req->head.raw_bytes = (in_place && st._ucount > MCA_PML_ZIP_PREFIX_BYTES)
                                      ? st._ucount - MCA_PML_ZIP_PREFIX_BYTES
                                      : st._ucount;
        }
        mca_pml_zip_recv_finish(req, st.MPI_ERROR);
        return;
    }
    if (ZIP_RECV_LANDING == req->phase) {
        landing_arrived(req, &st, in_place);
    } else {
        payload_arrived(req, &st);
    }
}

int mca_pml_zip_post_landing(mca_pml_zip_request_t *req)
{
    req->phase = ZIP_RECV_LANDING;
    if (NULL == req->stage) {
        req->stage = mca_pml_zip_buf_get(MCA_PML_ZIP_LANDING_BYTES);
        if (NULL == req->stage) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    req->landing_type = landing_type(req->stage, req->rbuf, req->count, req->dtype);
    int rc = (NULL != req->landing_type)
                 ? mca_pml_zip_wrapped.pml_irecv(MPI_BOTTOM, 1, req->landing_type, req->peer,
                                                 req->tag, req->comm, &req->inner)
                 : mca_pml_zip_wrapped.pml_irecv(req->stage, MCA_PML_ZIP_LANDING_BYTES, MPI_BYTE,
                                                 req->peer, req->tag, req->comm, &req->inner);
    if (OMPI_SUCCESS != rc) {
        mca_pml_zip_prefixed_type_release(&req->landing_type);
        return rc;
    }
    mca_pml_zip_request_track(req);
    return OMPI_SUCCESS;
}

/* Hands a pulled message to a receive request. */
static void deliver_entry(mca_pml_zip_request_t *req, mca_pml_zip_stash_entry_t *e)
{
    if (MPI_SUCCESS != e->error) {
        /* A stream message a matched probe could not fetch or decode. */
        req->msg_source = e->source;
        req->msg_tag = e->tag;
        req->head = e->head;
        mca_pml_zip_recv_finish(req, e->error);
        OBJ_RELEASE(e);
        return;
    }
    if (NULL != e->wmsg) {
        /* A long inline message still in the wrapped PML: received whole into a staging
         * buffer (only probes leave messages there; their order matters, not their speed). */
        const size_t n = MCA_PML_ZIP_PREFIX_BYTES + e->head.raw_bytes;
        req->phase = ZIP_RECV_LANDING;
        req->stage = mca_pml_zip_buf_get(n);
        int rc = (NULL == req->stage) ? OMPI_ERR_OUT_OF_RESOURCE
                                      : mca_pml_zip_wrapped.pml_imrecv(req->stage, n, MPI_BYTE,
                                                                       &e->wmsg, &req->inner);
        if (OMPI_SUCCESS == rc) {
            mca_pml_zip_request_track(req);
        } else {
            req->msg_source = e->source;
            req->msg_tag = e->tag;
            req->head = e->head;
            mca_pml_zip_recv_finish(req, rc);
        }
        OBJ_RELEASE(e);
        return;
    }
    mca_pml_zip_recv_first(req, e->source, e->tag, &e->head, e->data);
    OBJ_RELEASE(e);
}

int mca_pml_zip_recv_start(mca_pml_zip_request_t *req)
{
    req->phase = ZIP_RECV_LANDING;
    if (!mca_pml_zip_stash_empty()) {
        mca_pml_zip_stash_entry_t *e = NULL;
        int source, tag;
        size_t count;
        int rc = mca_pml_zip_stash_match(req->comm, req->peer, req->tag, true, &e, &source, &tag,
                                         &count);
        if (rc < 0) {
            return rc;
        }
        if (1 == rc) {
            deliver_entry(req, e);
            return OMPI_SUCCESS;
        }
    }
    return mca_pml_zip_post_landing(req);
}

mca_pml_zip_request_t *mca_pml_zip_recv_request(void *buf, size_t count, ompi_datatype_t *dtype,
                                                int src, int tag, ompi_communicator_t *comm,
                                                bool persistent)
{
    static const mca_pml_zip_request_ops_t recv_ops = {
        .start = mca_pml_zip_recv_start,
        .inner_done = recv_inner_done,
    };
    mca_pml_zip_request_t *req = mca_pml_zip_request_new(ZIP_REQ_RECV, &recv_ops, persistent, comm);
    if (NULL == req) {
        return NULL;
    }
    req->rbuf = buf;
    req->count = count;
    OBJ_RETAIN(dtype);
    req->dtype = dtype;
    req->peer = src;
    req->tag = tag;
    return req;
}

int mca_pml_zip_irecv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                      ompi_communicator_t *comm, ompi_request_t **request)
{
    if (!zip_recv_applies(src, tag)) {
        return mca_pml_zip_wrapped.pml_irecv(buf, count, dtype, src, tag, comm, request);
    }
    mca_pml_zip_request_t *req = mca_pml_zip_recv_request(buf, count, dtype, src, tag, comm, false);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc = mca_pml_zip_recv_start(req);
    if (OMPI_SUCCESS != rc) {
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        OBJ_RELEASE(req);
        return rc;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}

int mca_pml_zip_recv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                     ompi_communicator_t *comm, ompi_status_public_t *status)
{
    if (!zip_recv_applies(src, tag)) {
        return mca_pml_zip_wrapped.pml_recv(buf, count, dtype, src, tag, comm, status);
    }
    if (mca_pml_zip_stash_empty()) {
        /* The common case, without a request and on the stack: an inline message is
         * delivered here, a raw payload received straight into the buffer. */
        char stage[MCA_PML_ZIP_LANDING_BYTES];
        ompi_status_public_t st;
        memset(&st, 0, sizeof(st));
        ompi_datatype_t *ltype = landing_type(stage, buf, count, dtype);
        int rc = (NULL != ltype)
                     ? mca_pml_zip_wrapped.pml_recv(MPI_BOTTOM, 1, ltype, src, tag, comm, &st)
                     : mca_pml_zip_wrapped.pml_recv(stage, MCA_PML_ZIP_LANDING_BYTES, MPI_BYTE, src,
                                                    tag, comm, &st);
        const bool in_place = NULL != ltype;
        mca_pml_zip_prefixed_type_release(&ltype);
        mca_pml_zip_head_t head;
        const bool framed = OMPI_SUCCESS == rc && mca_pml_zip_head_parse(stage, st._ucount, &head);
        if (framed) {
            mca_pml_zip_observe_hint(comm, st.MPI_SOURCE, head.link_hint);
        }
        const size_t cap = dtype->super.size * count;
        if (framed && ZIP_SHAPE_INLINE == head.shape) {
            mca_pml_zip_count_received();
            rc = in_place ? MPI_SUCCESS
                          : zip_ompi_unpack((char *)stage + MCA_PML_ZIP_PREFIX_BYTES,
                                            head.raw_bytes, buf, count, dtype);
            mca_pml_zip_status_out(status, st.MPI_SOURCE, st.MPI_TAG,
                                   head.raw_bytes < cap ? head.raw_bytes : cap, 0);
            return rc;
        }
        if (OMPI_SUCCESS != rc) {
            size_t got = st._ucount;
            if (in_place && got > MCA_PML_ZIP_PREFIX_BYTES) {
                got -= MCA_PML_ZIP_PREFIX_BYTES;
            }
            mca_pml_zip_status_out(status, st.MPI_SOURCE, st.MPI_TAG, got < cap ? got : cap, 0);
            return rc;
        }
        if (in_place && !framed) {
            rc = join_unframed(stage, st._ucount, buf, count, dtype);
            mca_pml_zip_status_out(status, st.MPI_SOURCE, st.MPI_TAG,
                                   st._ucount < cap ? st._ucount : cap, 0);
            return rc;
        }
        /* A raw payload that fits: received straight into the application's buffer, with no
         * request and no trip through zip's progress (the common large message). */
        if (framed && ZIP_SHAPE_ENVELOPE == head.shape &&
            0 == (head.flags & (MCA_PML_ZIP_ENV_FRAME | MCA_PML_ZIP_ENV_TEMPORAL)) &&
            head.raw_bytes <= dtype->super.size * count) {
            mca_pml_zip_count_received();
            ompi_status_public_t pst;
            memset(&pst, 0, sizeof(pst));
            const double t0 = mca_pml_zip_now();
            rc = mca_pml_zip_wrapped.pml_recv(buf, count, dtype, st.MPI_SOURCE,
                                              mca_pml_zip_payload_tag(head.seq), comm, &pst);
            if (OMPI_SUCCESS == rc && pst._ucount != head.raw_bytes) {
                rc = MPI_ERR_INTERN; /* the payload must be what its envelope announced */
            }
            /* Blocked in the receive from the envelope on: the time the payload took. */
            if (OMPI_SUCCESS == rc) {
                mca_pml_zip_observe_arrival(mca_pml_zip_peer_class(comm, st.MPI_SOURCE),
                                            head.raw_bytes, mca_pml_zip_now() - t0);
            }
            mca_pml_zip_status_out(status, st.MPI_SOURCE, st.MPI_TAG, head.raw_bytes, 0);
            return rc;
        }
        /* A frame, a payload too large for the buffer, or a foreign message: through a
         * request. */
        mca_pml_zip_request_t *req =
            mca_pml_zip_recv_request(buf, count, dtype, src, tag, comm, false);
        if (NULL == req) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        req->stage = mca_pml_zip_buf_get(MCA_PML_ZIP_LANDING_BYTES);
        if (NULL == req->stage) {
            OBJ_RELEASE(req);
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        memcpy(req->stage, stage, st._ucount < sizeof(stage) ? st._ucount : sizeof(stage));
        req->phase = ZIP_RECV_LANDING;
        landing_arrived(req, &st, false); /* an envelope, or unframed bytes in stage */
        ompi_request_t *r = &req->super;
        return ompi_request_wait(&r, status);
    }
    ompi_request_t *r = NULL;
    int rc = mca_pml_zip_irecv(buf, count, dtype, src, tag, comm, &r);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return ompi_request_wait(&r, status);
}

int mca_pml_zip_irecv_init(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                           ompi_communicator_t *comm, ompi_request_t **request)
{
    if (!zip_recv_applies(src, tag)) {
        return mca_pml_zip_wrapped.pml_irecv_init(buf, count, dtype, src, tag, comm, request);
    }
    mca_pml_zip_request_t *req = mca_pml_zip_recv_request(buf, count, dtype, src, tag, comm, true);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}

int mca_pml_zip_deliver_message(mca_pml_zip_stash_entry_t *e, void *buf, size_t count,
                                ompi_datatype_t *dtype, ompi_communicator_t *comm,
                                ompi_request_t **request)
{
    mca_pml_zip_request_t *req =
        mca_pml_zip_recv_request(buf, count, dtype, e->source, e->tag, comm, false);
    if (NULL == req) {
        OBJ_RELEASE(e);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    deliver_entry(req, e);
    *request = &req->super;
    return OMPI_SUCCESS;
}
