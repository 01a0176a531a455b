/*
 * Send side: every message with an application tag goes in one of zip's shapes (pml_zip.h):
 * bare, or an envelope followed by its payload on a private tag. The envelope goes in standard
 * mode, the payload in the application's mode, so the wrapped PML keeps MPI's completion rules for
 * it. Internal traffic (negative tags) and MPI_PROC_NULL go to the wrapped PML untouched.
 */
#include "ompi_config.h"

#include "ompi/constants.h"

#include "pml_zip.h"

static bool zip_send_applies(const ompi_communicator_t *comm, int dst, int tag)
{
    return MPI_PROC_NULL != dst && tag >= 0 && !mca_pml_zip_comm_untouched(comm);
}

/* What a bare message sends: the application's data, or buffered mode's copy in out->buf. */
static void unsplit_wire(const mca_pml_zip_out_t *out, const void **base, size_t *count,
                         ompi_datatype_t **type)
{
    if (NULL == out->buf) {
        *base = out->pbuf;
        *count = out->pcount;
        *type = out->ptype;
    } else {
        *base = out->buf;
        *count = out->len;
        *type = &ompi_mpi_byte.dt;
    }
}

/* Posts the wrapped sends of an encoded message: *first for the bare message or envelope,
 * *payload for a split message's payload (NULL otherwise). */
static int post_wire(mca_pml_zip_out_t *out, int dst, int tag, mca_pml_base_send_mode_t mode,
                     ompi_communicator_t *comm, ompi_request_t **first, ompi_request_t **payload)
{
    *first = NULL;
    *payload = NULL;
    if (!out->split) {
        const void *base;
        size_t count;
        ompi_datatype_t *type;
        unsplit_wire(out, &base, &count, &type);
        return mca_pml_zip_wrapped.pml_isend(base, count, type, dst, tag,
                                             MCA_PML_BASE_SEND_STANDARD, comm, first);
    }
    int rc = mca_pml_zip_wrapped.pml_isend(out->env, MCA_PML_ZIP_ENVELOPE_BYTES, MPI_BYTE, dst, tag,
                                           MCA_PML_BASE_SEND_STANDARD, comm, first);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    const int ptag = mca_pml_zip_payload_tag(out->seq, out->env[1]);
    if (NULL != out->buf) {
        rc = mca_pml_zip_wrapped.pml_isend(out->buf, out->len, MPI_BYTE, dst, ptag,
                                           mca_pml_zip_wire_mode(mode), comm, payload);
    } else {
        rc = mca_pml_zip_wrapped.pml_isend(out->pbuf, out->pcount, out->ptype, dst, ptag,
                                           mca_pml_zip_wire_mode(mode), comm, payload);
    }
    if (OMPI_SUCCESS != rc) {
        /* The envelope is out; its payload cannot follow. Nothing can undo that. */
        (void)ompi_request_wait(first, MPI_STATUS_IGNORE);
    }
    return rc;
}

/* Both wrapped sends completed: the first error, if any, is the send's. */
static void send_inner_done(mca_pml_zip_request_t *req, ompi_request_t *payload,
                            ompi_request_t *first)
{
    int error = MPI_SUCCESS;
    int cancelled = 0;
    ompi_request_t *parts[2] = {first, payload};
    for (int i = 0; i < 2; ++i) {
        if (NULL == parts[i]) {
            continue;
        }
        if (MPI_SUCCESS == error) {
            error = parts[i]->req_status.MPI_ERROR;
        }
        cancelled |= parts[i]->req_status._cancelled;
        ompi_request_free(&parts[i]);
    }
    mca_pml_zip_out_release(&req->out);
    mca_pml_zip_request_complete(req, req->peer, req->tag, 0, error, cancelled);
}

static int send_start(mca_pml_zip_request_t *req);

static const mca_pml_zip_request_ops_t send_ops = {
    .start = send_start,
    .inner_done = send_inner_done,
};

/*
 * Buffered mode: the encoded message is zip's own copy (never a reference to the
 * application's buffer), sent in standard mode and released when the wrapped sends complete.
 * Open MPI's attached buffer is not used.
 */
static int zip_send_detached(const void *buf, size_t count, ompi_datatype_t *dtype, int dst,
                             int tag, ompi_communicator_t *comm)
{
    mca_pml_zip_request_t *tracker = mca_pml_zip_request_new(ZIP_REQ_SEND, &send_ops, false, comm);
    if (NULL == tracker) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    tracker->free_called = true; /* nobody waits for it: completion releases it */
    int rc = mca_pml_zip_encode(buf, count, dtype, MCA_PML_BASE_SEND_STANDARD, comm, dst, tag, true,
                                &tracker->out);
    if (OMPI_SUCCESS == rc) {
        rc = post_wire(&tracker->out, dst, tag, MCA_PML_BASE_SEND_STANDARD, comm, &tracker->inner2,
                       &tracker->inner);
    }
    if (OMPI_SUCCESS != rc && tracker->out.temporal) {
        mca_pml_zip_temporal_abandon(comm, dst, tag);
    }
    if (OMPI_SUCCESS != rc) {
        tracker->super.req_state = OMPI_REQUEST_INACTIVE;
        mca_pml_zip_request_unref(tracker);
        return rc;
    }
    mca_pml_zip_request_track(tracker);
    return OMPI_SUCCESS;
}

int mca_pml_zip_send(const void *buf, size_t count, ompi_datatype_t *dtype, int dst, int tag,
                     mca_pml_base_send_mode_t mode, ompi_communicator_t *comm)
{
    if (!zip_send_applies(comm, dst, tag)) {
        return mca_pml_zip_wrapped.pml_send(buf, count, dtype, dst, tag, mode, comm);
    }
    if (mca_pml_zip_sends_small_bare(count, dtype, mode, comm, dst)) {
        return mca_pml_zip_wrapped.pml_send(buf, count, dtype, dst, tag, MCA_PML_BASE_SEND_STANDARD,
                                            comm);
    }
    if (MCA_PML_BASE_SEND_BUFFERED == mode) {
        return zip_send_detached(buf, count, dtype, dst, tag, comm);
    }
    mca_pml_zip_out_t out;
    int rc = mca_pml_zip_encode(buf, count, dtype, mode, comm, dst, tag, false, &out);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (!out.split) {
        const void *base;
        size_t n;
        ompi_datatype_t *type;
        unsplit_wire(&out, &base, &n, &type);
        rc =
            mca_pml_zip_wrapped.pml_send(base, n, type, dst, tag, MCA_PML_BASE_SEND_STANDARD, comm);
    } else {
        ompi_request_t *env, *payload;
        rc = post_wire(&out, dst, tag, mode, comm, &env, &payload);
        if (OMPI_SUCCESS == rc) {
            rc = ompi_request_wait(&payload, MPI_STATUS_IGNORE);
            const int rc2 = ompi_request_wait(&env, MPI_STATUS_IGNORE);
            if (OMPI_SUCCESS == rc) {
                rc = rc2;
            }
        }
        if (OMPI_SUCCESS != rc && out.temporal) {
            mca_pml_zip_temporal_abandon(comm, dst, tag);
        }
    }
    mca_pml_zip_out_release(&out);
    return rc;
}

void mca_pml_zip_out_drop(mca_pml_zip_out_t *out, ompi_communicator_t *comm, int dst, int tag)
{
    if (out->temporal) {
        mca_pml_zip_temporal_abandon(comm, dst, tag);
    }
    mca_pml_zip_out_release(out);
}

/* Posts the wrapped sends of the message encoded in req->out and tracks them. */
static int send_post(mca_pml_zip_request_t *req)
{
    int rc =
        post_wire(&req->out, req->peer, req->tag, req->mode, req->comm, &req->inner2, &req->inner);
    if (OMPI_SUCCESS != rc) {
        mca_pml_zip_out_drop(&req->out, req->comm, req->peer, req->tag);
        return rc;
    }
    mca_pml_zip_request_track(req);
    return OMPI_SUCCESS;
}

/* Encodes the application's data and posts the wrapped sends (isend and MPI_Start). */
static int send_start(mca_pml_zip_request_t *req)
{
    int rc;

    if (MCA_PML_BASE_SEND_BUFFERED == req->mode) {
        rc = zip_send_detached(req->sbuf, req->count, req->dtype, req->peer, req->tag, req->comm);
        if (OMPI_SUCCESS == rc) {
            mca_pml_zip_request_complete(req, req->peer, req->tag, 0, MPI_SUCCESS, 0);
        }
        return rc;
    }
    rc = mca_pml_zip_encode(req->sbuf, req->count, req->dtype, req->mode, req->comm, req->peer,
                            req->tag, false, &req->out);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return send_post(req);
}

static mca_pml_zip_request_t *zip_send_request(const void *buf, size_t count,
                                               ompi_datatype_t *dtype, int dst, int tag,
                                               mca_pml_base_send_mode_t mode,
                                               ompi_communicator_t *comm, bool persistent)
{
    mca_pml_zip_request_t *req = mca_pml_zip_request_new(ZIP_REQ_SEND, &send_ops, persistent, comm);
    if (NULL == req) {
        return NULL;
    }
    req->sbuf = buf;
    req->count = count;
    OBJ_RETAIN(dtype);
    req->dtype = dtype;
    req->peer = dst;
    req->tag = tag;
    req->mode = mode;
    return req;
}

int mca_pml_zip_isend(const void *buf, size_t count, ompi_datatype_t *dtype, int dst, int tag,
                      mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                      ompi_request_t **request)
{
    if (!zip_send_applies(comm, dst, tag)) {
        return mca_pml_zip_wrapped.pml_isend(buf, count, dtype, dst, tag, mode, comm, request);
    }
    if (mca_pml_zip_sends_small_bare(count, dtype, mode, comm, dst)) {
        return mca_pml_zip_wrapped.pml_isend(buf, count, dtype, dst, tag,
                                             MCA_PML_BASE_SEND_STANDARD, comm, request);
    }
    mca_pml_zip_out_t out;
    if (MCA_PML_BASE_SEND_BUFFERED != mode) {
        int rc = mca_pml_zip_encode(buf, count, dtype, mode, comm, dst, tag, false, &out);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        if (out.bare) {
            /* Nothing of zip's to finish: the application gets the wrapped PML's own request,
             * as without zip (a zip request around it cost 0.1 us per small message). */
            return mca_pml_zip_wrapped.pml_isend(buf, count, dtype, dst, tag,
                                                 mca_pml_zip_wire_mode(mode), comm, request);
        }
    }
    mca_pml_zip_request_t *req = zip_send_request(buf, count, dtype, dst, tag, mode, comm, false);
    if (NULL == req) {
        if (MCA_PML_BASE_SEND_BUFFERED != mode) {
            mca_pml_zip_out_drop(&out, comm, dst, tag);
        }
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc;
    if (MCA_PML_BASE_SEND_BUFFERED != mode) {
        req->out = out;
        rc = send_post(req);
    } else {
        rc = send_start(req);
    }
    if (OMPI_SUCCESS != rc) {
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        mca_pml_zip_request_unref(req);
        return rc;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}

int mca_pml_zip_send_encoded(mca_pml_zip_out_t *out, const void *buf, size_t count,
                             ompi_datatype_t *dtype, int dst, int tag,
                             mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                             mca_pml_zip_psend_t *psend, mca_pml_zip_request_t **sender)
{
    mca_pml_zip_request_t *req = zip_send_request(buf, count, dtype, dst, tag, mode, comm, false);
    if (NULL == req) {
        mca_pml_zip_out_drop(out, comm, dst, tag);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->out = *out;
    req->psend = psend;
    *sender = req; /* before any completion: send_post only posts and tracks */
    int rc = send_post(req);
    if (OMPI_SUCCESS != rc) {
        req->psend = NULL;
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        mca_pml_zip_request_unref(req);
    }
    return rc;
}

int mca_pml_zip_isend_init(const void *buf, size_t count, ompi_datatype_t *dtype, int dst, int tag,
                           mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                           ompi_request_t **request)
{
    if (!zip_send_applies(comm, dst, tag)) {
        return mca_pml_zip_wrapped.pml_isend_init(buf, count, dtype, dst, tag, mode, comm, request);
    }
    const int direct =
        mca_pml_zip_direct_isend_init(buf, count, dtype, dst, tag, mode, comm, request);
    if (OMPI_ERR_NOT_SUPPORTED != direct) {
        return direct;
    }
    mca_pml_zip_request_t *req = zip_send_request(buf, count, dtype, dst, tag, mode, comm, true);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}
