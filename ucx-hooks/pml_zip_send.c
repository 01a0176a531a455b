/*
 * Send side: float/double application messages on an enabled communicator go out as MPI_BYTE
 * with the zip header (pml_zip_wire.c), in the application's send mode, with its tag; anything
 * else goes to the wrapped PML untouched, keeping its zero-copy path.
 */
#include "ompi_config.h"

#include "ompi/constants.h"

#include "pml_zip.h"

static bool zip_send_applies(ompi_datatype_t *dtype, int dst, int tag, ompi_communicator_t *comm)
{
    return MPI_PROC_NULL != dst && tag >= 0 && mca_pml_zip_elem_class(dtype) >= 0 &&
           mca_pml_zip_comm_enabled(comm, tag);
}

/*
 * Buffered mode: the encoded message is our own copy (never a reference to the application's
 * buffer), so it is sent in standard mode and released when the wrapped send completes. Open
 * MPI's attached buffer is not used (a header makes a small message larger than what the
 * application sized that buffer for).
 */
static int zip_send_detached(const void *buf, size_t count, ompi_datatype_t *dtype, int dst,
                             int tag, ompi_communicator_t *comm)
{
    mca_pml_zip_request_t *tracker = mca_pml_zip_request_new(ZIP_REQ_SEND, false, comm);
    if (NULL == tracker) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    tracker->free_called = true; /* nobody waits for it: completion releases it */
    int rc = mca_pml_zip_encode(buf, count, dtype, mca_pml_zip_elem_class(dtype),
                                mca_pml_zip_may_compress(comm, dst), false, &tracker->out);
    if (OMPI_SUCCESS == rc) {
        void *wbuf;
        size_t wcount;
        ompi_datatype_t *wtype;
        mca_pml_zip_wire_args(&tracker->out, &wbuf, &wcount, &wtype);
        rc = mca_pml_zip_wrapped.pml_isend(wbuf, wcount, wtype, dst, tag,
                                           MCA_PML_BASE_SEND_STANDARD, comm, &tracker->inner);
    }
    if (OMPI_SUCCESS != rc) {
        tracker->super.req_state = OMPI_REQUEST_INACTIVE;
        OBJ_RELEASE(tracker);
        return rc;
    }
    mca_pml_zip_request_track(tracker);
    return OMPI_SUCCESS;
}

int mca_pml_zip_send(const void *buf, size_t count, ompi_datatype_t *dtype, int dst, int tag,
                     mca_pml_base_send_mode_t mode, ompi_communicator_t *comm)
{
    if (!zip_send_applies(dtype, dst, tag, comm)) {
        return mca_pml_zip_wrapped.pml_send(buf, count, dtype, dst, tag, mode, comm);
    }
    if (MCA_PML_BASE_SEND_BUFFERED == mode) {
        return zip_send_detached(buf, count, dtype, dst, tag, comm);
    }
    mca_pml_zip_wire_t w;
    int rc = mca_pml_zip_encode(buf, count, dtype, mca_pml_zip_elem_class(dtype),
                                mca_pml_zip_may_compress(comm, dst), true, &w);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    void *wbuf;
    size_t wcount;
    ompi_datatype_t *wtype;
    mca_pml_zip_wire_args(&w, &wbuf, &wcount, &wtype);
    rc = mca_pml_zip_wrapped.pml_send(wbuf, wcount, wtype, dst, tag, mode, comm);
    mca_pml_zip_wire_release(&w);
    return rc;
}

int mca_pml_zip_post_send(mca_pml_zip_request_t *req)
{
    int rc;

    if (MCA_PML_BASE_SEND_BUFFERED == req->mode) {
        rc = zip_send_detached(req->sbuf, req->count, req->dtype, req->peer, req->tag, req->comm);
        if (OMPI_SUCCESS == rc) {
            ompi_status_public_t st = {
                .MPI_SOURCE = req->peer, .MPI_TAG = req->tag, .MPI_ERROR = MPI_SUCCESS};
            mca_pml_zip_request_complete(req, &st);
        }
        return rc;
    }
    rc = mca_pml_zip_encode(req->sbuf, req->count, req->dtype, mca_pml_zip_elem_class(req->dtype),
                            mca_pml_zip_may_compress(req->comm, req->peer), true, &req->out);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    void *wbuf;
    size_t wcount;
    ompi_datatype_t *wtype;
    mca_pml_zip_wire_args(&req->out, &wbuf, &wcount, &wtype);
    rc = mca_pml_zip_wrapped.pml_isend(wbuf, wcount, wtype, req->peer, req->tag, req->mode,
                                       req->comm, &req->inner);
    if (OMPI_SUCCESS != rc) {
        mca_pml_zip_wire_release(&req->out);
        return rc;
    }
    mca_pml_zip_request_track(req);
    return OMPI_SUCCESS;
}

static mca_pml_zip_request_t *zip_send_request(const void *buf, size_t count,
                                               ompi_datatype_t *dtype, int dst, int tag,
                                               mca_pml_base_send_mode_t mode,
                                               ompi_communicator_t *comm, bool persistent)
{
    mca_pml_zip_request_t *req = mca_pml_zip_request_new(ZIP_REQ_SEND, persistent, comm);
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
    if (!zip_send_applies(dtype, dst, tag, comm)) {
        return mca_pml_zip_wrapped.pml_isend(buf, count, dtype, dst, tag, mode, comm, request);
    }
    mca_pml_zip_request_t *req = zip_send_request(buf, count, dtype, dst, tag, mode, comm, false);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc = mca_pml_zip_post_send(req);
    if (OMPI_SUCCESS != rc) {
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        OBJ_RELEASE(req);
        return rc;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}

int mca_pml_zip_isend_init(const void *buf, size_t count, ompi_datatype_t *dtype, int dst, int tag,
                           mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                           ompi_request_t **request)
{
    if (!zip_send_applies(dtype, dst, tag, comm)) {
        return mca_pml_zip_wrapped.pml_isend_init(buf, count, dtype, dst, tag, mode, comm, request);
    }
    mca_pml_zip_request_t *req = zip_send_request(buf, count, dtype, dst, tag, mode, comm, true);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *request = &req->super;
    return OMPI_SUCCESS;
}
