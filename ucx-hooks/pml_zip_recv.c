/*
 * Receive side. A receive with an application tag posts its first message's receive into the
 * application's buffer where that is contiguous with room for an envelope (pml_zip_landing.c),
 * else into a landing buffer. A bare message is then delivered as it came; an envelope makes
 * it post the payload
 * receive it announces: straight into the application's buffer for raw data (the wrapped
 * PML's zero-copy paths stay in use), into a staging buffer for a frame or a payload too large
 * for the buffer. Whatever the receive datatype, the bytes delivered are the sender's.
 */
#include "ompi_config.h"

#include <string.h>

#include "opal/util/output.h"
#include "ompi/constants.h"

#include "pml_zip.h"

static bool zip_recv_applies(const ompi_communicator_t *comm, int src, int tag)
{
    return MPI_PROC_NULL != src && mca_pml_zip_app_tag(tag) && !mca_pml_zip_comm_untouched(comm);
}

static size_t recv_capacity(const mca_pml_zip_request_t *req)
{
    return req->dtype->super.size * req->count;
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
    const int ptag = mca_pml_zip_payload_tag(h->seq, h->flags);
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
                            const mca_pml_zip_head_t *head, const void *held_data)
{
    req->msg_source = source;
    req->msg_tag = tag;
    req->head = *head;
    mca_pml_zip_count_received();
    if (ZIP_SHAPE_ENVELOPE != head->shape) {
        /* bare or held; held_data NULL: it landed in the application's buffer */
        mca_pml_zip_recv_finish(req, NULL == held_data
                                         ? MPI_SUCCESS
                                         : zip_ompi_unpack(held_data, head->raw_bytes, req->rbuf,
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

/* The first message arrived, n bytes (in place: in the application's buffer): parse and go
 * on. */
static void landing_arrived(mca_pml_zip_request_t *req, const ompi_status_public_t *st,
                            bool in_place)
{
    mca_pml_zip_head_t head;
    const size_t n = st->_ucount;
    bool framed;
    char *base = in_place ? mca_pml_zip_landing_base(req->rbuf, req->count, req->dtype) : NULL;
    const unsigned char *copy = in_place ? mca_pml_zip_first_copy_get(&req->first) : NULL;
    const char *data =
        mca_pml_zip_first_arrived(base, req->stage, req->stage_bytes, copy, n, &head, &framed);
    if (framed) {
        mca_pml_zip_observe_hint(req->comm, st->MPI_SOURCE, head.link_hint);
        mca_pml_zip_recv_first(req, st->MPI_SOURCE, st->MPI_TAG, &head, data);
        return;
    }
    /* Not from a zip sender: deliver its bytes as they are. */
    opal_output_verbose(1, mca_pml_zip_component.output,
                        "pml:zip: a %zu-byte message without zip framing (is pml/zip loaded on "
                        "every rank?)",
                        n);
    req->msg_source = st->MPI_SOURCE;
    req->msg_tag = st->MPI_TAG;
    req->head = head;
    mca_pml_zip_recv_finish(req, NULL == data
                                     ? MPI_SUCCESS
                                     : zip_ompi_unpack(data, n, req->rbuf, req->count, req->dtype));
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
    const bool in_place = req->in_place;
    if (in_place) {
        mca_pml_zip_first_copy_settle(inner, &req->first);
    }
    ompi_request_free(&inner);
    req->in_place = false;
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
            /* Only a bare message can be longer than what was posted for it. */
            req->head.raw_bytes = st._ucount;
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
    char *base = mca_pml_zip_landing_base(req->rbuf, req->count, req->dtype);
    /* In place, the landing buffer keeps what the first message may cover; else it takes any
     * first message that fits the application's buffer. */
    const size_t cap = recv_capacity(req);
    const size_t stage_bytes =
        NULL == base ? mca_pml_zip_landing_stage_bytes(cap) : MCA_PML_ZIP_LANDING_BYTES;
    mca_pml_zip_buf_put(req->stage);
    req->stage = mca_pml_zip_buf_get(mca_pml_zip_stage_alloc_bytes(stage_bytes));
    req->stage_bytes = stage_bytes;
    if (NULL == req->stage) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc;
    if (NULL != base) {
        memcpy(req->stage, base, MCA_PML_ZIP_LANDING_BYTES);
        req->in_place = true;
        rc = mca_pml_zip_wrapped.pml_irecv(req->rbuf, req->count, req->dtype, req->peer, req->tag,
                                           req->comm, &req->inner);
        if (OMPI_SUCCESS == rc) {
            /* Parsed later, from zip's progress: by then another receive sharing the buffer
             * may have written there. */
            mca_pml_zip_first_copy_attach(req->inner, &req->first, base);
        }
    } else {
        rc = mca_pml_zip_stage_irecv(req->stage, stage_bytes, req->peer, req->tag, req->comm,
                                     &req->inner);
    }
    if (OMPI_SUCCESS != rc) {
        req->in_place = false;
        return rc;
    }
    if (REQUEST_COMPLETED == req->inner->req_complete) {
        /* The message was there already (the receiver is behind): taken now rather than at
         * zip's next poll, so that the application's wait finds its request complete. Only
         * an application's receive or start gets here, and nobody else holds req yet. */
        opal_atomic_rmb();
        ompi_request_t *inner = req->inner;
        req->inner = NULL;
        req->ops->inner_done(req, inner, NULL);
        return OMPI_SUCCESS;
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
        /* A bare message still in the wrapped PML: received as the payload it is, straight
         * into the application's buffer (an envelope's raw payload without the envelope). */
        req->msg_source = e->source;
        req->msg_tag = e->tag;
        req->head = e->head;
        req->phase = ZIP_RECV_PAYLOAD;
        req->drain = false;
        req->arrival_class = -1;
        int rc = mca_pml_zip_wrapped.pml_imrecv(req->rbuf, req->count, req->dtype, &e->wmsg,
                                                &req->inner);
        if (OMPI_SUCCESS == rc) {
            mca_pml_zip_request_track(req);
        } else {
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
    if (!zip_recv_applies(comm, src, tag)) {
        return mca_pml_zip_wrapped.pml_irecv(buf, count, dtype, src, tag, comm, request);
    }
    const int direct = mca_pml_zip_direct_irecv(buf, count, dtype, src, tag, comm, request);
    if (OMPI_ERR_NOT_SUPPORTED != direct) {
        return direct;
    }
    mca_pml_zip_request_t *req = mca_pml_zip_recv_request(buf, count, dtype, src, tag, comm, false);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc = mca_pml_zip_recv_start(req);
    if (OMPI_SUCCESS != rc) {
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        mca_pml_zip_request_unref(req);
        return rc;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}

int mca_pml_zip_recv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                     ompi_communicator_t *comm, ompi_status_public_t *status)
{
    if (!zip_recv_applies(comm, src, tag)) {
        return mca_pml_zip_wrapped.pml_recv(buf, count, dtype, src, tag, comm, status);
    }
    char *base = mca_pml_zip_landing_base(buf, count, dtype);
    const size_t cap = dtype->super.size * count;
    if (mca_pml_zip_stash_empty() && (NULL != base || cap <= MCA_PML_ZIP_SMALL_STAGE_BYTES)) {
        /* The common case, without a request and on the stack: into the application's buffer
         * (stage keeps what a short first message covers) or into stage. */
        char stage[MCA_PML_ZIP_SMALL_STAGE_BYTES + MCA_PML_ZIP_STAGE_GAP];
        const size_t stage_bytes = mca_pml_zip_landing_stage_bytes(cap);
        ompi_status_public_t st;
        memset(&st, 0, sizeof(st));
        int rc;
        mca_pml_zip_first_copy_t first;
        first.taken = 0;
        if (NULL != base) {
            memcpy(stage, base, MCA_PML_ZIP_LANDING_BYTES);
        }
        if (NULL == base) {
            rc = mca_pml_zip_stage_recv(stage, stage_bytes, src, tag, comm, &st);
        } else if (opal_using_threads()) {
            /* Another thread's receive into the same buffer could overwrite an envelope
             * before it is read: the bytes are copied as they arrive. */
            ompi_request_t *inner = NULL;
            rc = mca_pml_zip_wrapped.pml_irecv(buf, count, dtype, src, tag, comm, &inner);
            if (OMPI_SUCCESS == rc) {
                mca_pml_zip_first_copy_attach(inner, &first, base);
                ompi_request_wait_completion(inner);
                mca_pml_zip_first_copy_settle(inner, &first);
                rc = ompi_request_wait(&inner, &st); /* complete: its status, and freed */
            }
        } else {
            rc = mca_pml_zip_wrapped.pml_recv(buf, count, dtype, src, tag, comm, &st);
        }
        if (OMPI_SUCCESS != rc) {
            mca_pml_zip_status_out(status, st.MPI_SOURCE, st.MPI_TAG,
                                   st._ucount < cap ? st._ucount : cap, 0);
            return rc;
        }
        mca_pml_zip_head_t head;
        bool framed;
        const unsigned char *copy = mca_pml_zip_first_copy_get(&first);
        const char *data =
            mca_pml_zip_first_arrived(base, stage, stage_bytes, copy, st._ucount, &head, &framed);
        if (framed) {
            mca_pml_zip_observe_hint(comm, st.MPI_SOURCE, head.link_hint);
        }
        if (!framed || ZIP_SHAPE_ENVELOPE != head.shape) {
            if (framed) {
                mca_pml_zip_count_received();
            }
            /* Bare, or not from a zip sender (bytes as they came). */
            if (NULL != data) {
                rc = zip_ompi_unpack(data, head.raw_bytes, buf, count, dtype);
            }
            mca_pml_zip_status_out(status, st.MPI_SOURCE, st.MPI_TAG,
                                   head.raw_bytes < cap ? head.raw_bytes : cap, 0);
            return rc;
        }
        /* A raw payload that fits: received straight into the application's buffer, with no
         * request and no trip through zip's progress (the common large message). */
        if (0 == (head.flags & (MCA_PML_ZIP_ENV_FRAME | MCA_PML_ZIP_ENV_TEMPORAL)) &&
            head.raw_bytes <= cap) {
            mca_pml_zip_count_received();
            ompi_status_public_t pst;
            memset(&pst, 0, sizeof(pst));
            const double t0 = mca_pml_zip_now();
            rc = mca_pml_zip_wrapped.pml_recv(buf, count, dtype, st.MPI_SOURCE,
                                              mca_pml_zip_payload_tag(head.seq, head.flags), comm,
                                              &pst);
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
        /* A frame, or a payload too large for the buffer: through a request. */
        mca_pml_zip_request_t *req =
            mca_pml_zip_recv_request(buf, count, dtype, src, tag, comm, false);
        if (NULL == req) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        mca_pml_zip_recv_first(req, st.MPI_SOURCE, st.MPI_TAG, &head, NULL);
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
    if (!zip_recv_applies(comm, src, tag)) {
        return mca_pml_zip_wrapped.pml_irecv_init(buf, count, dtype, src, tag, comm, request);
    }
    const int direct = mca_pml_zip_direct_irecv_init(buf, count, dtype, src, tag, comm, request);
    if (OMPI_ERR_NOT_SUPPORTED != direct) {
        return direct;
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
