/*
 * Receive side. A float/double receive on an enabled communicator expects a zip message, so it
 * receives into a staging buffer of header + the application's buffer size (a zip message is
 * never longer: the sender sends raw when a frame would not be shorter) and decodes into the
 * application's buffer. Other receives go to the wrapped PML directly, after a look at the
 * stash of messages a probe already pulled out.
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/constants.h"

#include "pml_zip.h"

static bool zip_recv_applies(ompi_datatype_t *dtype, int src, int tag, ompi_communicator_t *comm)
{
    return MPI_PROC_NULL != src && mca_pml_zip_elem_class(dtype) >= 0 &&
           mca_pml_zip_comm_enabled(comm, tag);
}

/* A message a probe pulled out earlier, if one matches: it precedes anything still queued. */
static mca_pml_zip_stash_entry_t *zip_stashed(int src, int tag, ompi_communicator_t *comm)
{
    if (MPI_PROC_NULL == src || mca_pml_zip_stash_empty() || !mca_pml_zip_comm_enabled(comm, tag)) {
        return NULL;
    }
    return mca_pml_zip_stash_take(comm, src, tag);
}

int mca_pml_zip_recv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                     ompi_communicator_t *comm, ompi_status_public_t *status)
{
    mca_pml_zip_stash_entry_t *e = zip_stashed(src, tag, comm);
    if (NULL != e) {
        return mca_pml_zip_stash_deliver(e, buf, count, dtype, status);
    }
    if (!zip_recv_applies(dtype, src, tag, comm)) {
        return mca_pml_zip_wrapped.pml_recv(buf, count, dtype, src, tag, comm, status);
    }
    mca_pml_zip_landing_t land;
    void *rbuf;
    size_t rcount;
    ompi_datatype_t *rtype;
    int rc = mca_pml_zip_landing_prepare(&land, buf, count, dtype, &rbuf, &rcount, &rtype);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    ompi_status_public_t st;
    memset(&st, 0, sizeof(st));
    rc = mca_pml_zip_wrapped.pml_recv(rbuf, rcount, rtype, src, tag, comm, &st);
    if (OMPI_SUCCESS == rc) {
        size_t raw = 0;
        rc = mca_pml_zip_landing_decode(&land, st._ucount, buf, count, dtype, &raw);
        st._ucount = raw;
        st.MPI_ERROR = rc;
    }
    mca_pml_zip_landing_release(&land);
    if (MPI_STATUS_IGNORE != status) {
        *status = st;
    }
    return rc;
}

int mca_pml_zip_post_staged_recv(mca_pml_zip_request_t *req)
{
    int rc;

    if (req->staged) {
        void *rbuf;
        size_t rcount;
        ompi_datatype_t *rtype;
        rc = mca_pml_zip_landing_prepare(&req->in, req->rbuf, req->count, req->dtype, &rbuf,
                                         &rcount, &rtype);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        rc = mca_pml_zip_wrapped.pml_irecv(rbuf, rcount, rtype, req->peer, req->tag, req->comm,
                                           &req->inner);
    } else {
        rc = mca_pml_zip_wrapped.pml_irecv(req->rbuf, req->count, req->dtype, req->peer, req->tag,
                                           req->comm, &req->inner);
    }
    if (OMPI_SUCCESS != rc) {
        mca_pml_zip_landing_release(&req->in);
        return rc;
    }
    mca_pml_zip_request_track(req);
    return OMPI_SUCCESS;
}

void mca_pml_zip_finish_recv(mca_pml_zip_request_t *req)
{
    ompi_status_public_t st = req->inner->req_status;
    ompi_request_free(&req->inner);
    req->inner = NULL;
    if (req->staged && MPI_SUCCESS == st.MPI_ERROR && !st._cancelled) {
        size_t raw = 0;
        st.MPI_ERROR = mca_pml_zip_landing_decode(&req->in, st._ucount, req->rbuf, req->count,
                                                  req->dtype, &raw);
        st._ucount = raw;
    }
    mca_pml_zip_landing_release(&req->in);
    mca_pml_zip_request_complete(req, &st);
}

static mca_pml_zip_request_t *zip_recv_request(void *buf, size_t count, ompi_datatype_t *dtype,
                                               int src, int tag, ompi_communicator_t *comm,
                                               bool persistent)
{
    mca_pml_zip_request_t *req = mca_pml_zip_request_new(ZIP_REQ_RECV, persistent, comm);
    if (NULL == req) {
        return NULL;
    }
    req->rbuf = buf;
    req->count = count;
    OBJ_RETAIN(dtype);
    req->dtype = dtype;
    req->peer = src;
    req->tag = tag;
    req->staged = zip_recv_applies(dtype, src, tag, comm);
    return req;
}

int mca_pml_zip_irecv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                      ompi_communicator_t *comm, ompi_request_t **request)
{
    mca_pml_zip_stash_entry_t *e = zip_stashed(src, tag, comm);
    if (NULL == e && !zip_recv_applies(dtype, src, tag, comm)) {
        return mca_pml_zip_wrapped.pml_irecv(buf, count, dtype, src, tag, comm, request);
    }
    mca_pml_zip_request_t *req = zip_recv_request(buf, count, dtype, src, tag, comm, false);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc = OMPI_SUCCESS;
    if (NULL != e) {
        ompi_status_public_t st;
        memset(&st, 0, sizeof(st));
        (void)mca_pml_zip_stash_deliver(e, buf, count, dtype, &st);
        mca_pml_zip_request_complete(req, &st);
    } else {
        rc = mca_pml_zip_post_staged_recv(req);
    }
    if (OMPI_SUCCESS != rc) {
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        OBJ_RELEASE(req);
        return rc;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}

int mca_pml_zip_irecv_init(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                           ompi_communicator_t *comm, ompi_request_t **request)
{
    /* Every persistent receive on an enabled communicator is ours, float or not: at each
     * start it must look at the stash before the wrapped PML's queue. */
    if (MPI_PROC_NULL == src || !mca_pml_zip_comm_enabled(comm, tag)) {
        return mca_pml_zip_wrapped.pml_irecv_init(buf, count, dtype, src, tag, comm, request);
    }
    mca_pml_zip_request_t *req = zip_recv_request(buf, count, dtype, src, tag, comm, true);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}
