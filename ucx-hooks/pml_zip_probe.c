/*
 * Probe family. A probed status must give the application's count, which for a zip message
 * only its header knows, so on an enabled communicator a probe pulls the matched message out
 * of the wrapped PML (its mprobe + mrecv) into the stash and reports from the header. Matched
 * probes (mprobe/improbe) hand out a message handle that points at the stash entry.
 */
#include "ompi_config.h"

#include "ompi/constants.h"

#include "pml_zip.h"

/* The oldest matching stashed message, or the next one in the wrapped PML, pulled out. */
static int zip_probe_entry(int src, int tag, ompi_communicator_t *comm, bool blocking, bool remove,
                           mca_pml_zip_stash_entry_t **out)
{
    *out = remove ? mca_pml_zip_stash_take(comm, src, tag)
                  : mca_pml_zip_stash_peek(comm, src, tag, MPI_STATUS_IGNORE);
    if (NULL != *out) {
        return OMPI_SUCCESS;
    }
    ompi_message_t *inner = NULL;
    ompi_status_public_t st;
    int matched = 0;
    int rc;
    if (blocking) {
        rc = mca_pml_zip_wrapped.pml_mprobe(src, tag, comm, &inner, &st);
        matched = (OMPI_SUCCESS == rc);
    } else {
        rc = mca_pml_zip_wrapped.pml_improbe(src, tag, comm, &matched, &inner, &st);
    }
    if (OMPI_SUCCESS != rc || !matched) {
        return rc;
    }
    rc = mca_pml_zip_stash_pull(&inner, comm, &st, out);
    if (OMPI_SUCCESS == rc && !remove) {
        mca_pml_zip_stash_put(*out);
    }
    return rc;
}

int mca_pml_zip_iprobe(int src, int tag, ompi_communicator_t *comm, int *matched,
                       ompi_status_public_t *status)
{
    if (!mca_pml_zip_comm_enabled(comm, tag)) {
        return mca_pml_zip_wrapped.pml_iprobe(src, tag, comm, matched, status);
    }
    mca_pml_zip_stash_entry_t *e = NULL;
    int rc = zip_probe_entry(src, tag, comm, false, false, &e);
    *matched = (NULL != e);
    if (NULL != e) {
        mca_pml_zip_stash_fill_status(e, status);
    }
    return rc;
}

int mca_pml_zip_probe(int src, int tag, ompi_communicator_t *comm, ompi_status_public_t *status)
{
    if (!mca_pml_zip_comm_enabled(comm, tag)) {
        return mca_pml_zip_wrapped.pml_probe(src, tag, comm, status);
    }
    mca_pml_zip_stash_entry_t *e = NULL;
    int rc = zip_probe_entry(src, tag, comm, true, false, &e);
    if (NULL != e) {
        mca_pml_zip_stash_fill_status(e, status);
    }
    return rc;
}

static int zip_message_for(mca_pml_zip_stash_entry_t *e, ompi_communicator_t *comm,
                           ompi_message_t **message, ompi_status_public_t *status)
{
    ompi_message_t *msg = ompi_message_alloc();
    if (NULL == msg) {
        OBJ_RELEASE(e);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    msg->comm = comm;
    msg->req_ptr = e;
    msg->peer = e->source;
    msg->count = e->app_bytes;
    *message = msg;
    mca_pml_zip_stash_fill_status(e, status);
    return OMPI_SUCCESS;
}

int mca_pml_zip_improbe(int src, int tag, ompi_communicator_t *comm, int *matched,
                        ompi_message_t **message, ompi_status_public_t *status)
{
    if (!mca_pml_zip_comm_enabled(comm, tag)) {
        return mca_pml_zip_wrapped.pml_improbe(src, tag, comm, matched, message, status);
    }
    mca_pml_zip_stash_entry_t *e = NULL;
    int rc = zip_probe_entry(src, tag, comm, false, true, &e);
    *matched = (NULL != e);
    if (NULL == e) {
        return rc;
    }
    return zip_message_for(e, comm, message, status);
}

int mca_pml_zip_mprobe(int src, int tag, ompi_communicator_t *comm, ompi_message_t **message,
                       ompi_status_public_t *status)
{
    if (!mca_pml_zip_comm_enabled(comm, tag)) {
        return mca_pml_zip_wrapped.pml_mprobe(src, tag, comm, message, status);
    }
    mca_pml_zip_stash_entry_t *e = NULL;
    int rc = zip_probe_entry(src, tag, comm, true, true, &e);
    if (NULL == e) {
        return OMPI_SUCCESS == rc ? OMPI_ERROR : rc;
    }
    return zip_message_for(e, comm, message, status);
}

/* Our message handles point at a stash entry; the wrapped PML's at its own objects. */
static mca_pml_zip_stash_entry_t *zip_message_entry(ompi_message_t *msg)
{
    opal_object_t *obj = (opal_object_t *)msg->req_ptr;
    if (NULL != obj && obj->obj_class == OBJ_CLASS(mca_pml_zip_stash_entry_t)) {
        return (mca_pml_zip_stash_entry_t *)obj;
    }
    return NULL;
}

int mca_pml_zip_mrecv(void *buf, size_t count, ompi_datatype_t *dtype, ompi_message_t **message,
                      ompi_status_public_t *status)
{
    mca_pml_zip_stash_entry_t *e = zip_message_entry(*message);
    if (NULL == e) {
        return mca_pml_zip_wrapped.pml_mrecv(buf, count, dtype, message, status);
    }
    int rc = mca_pml_zip_stash_deliver(e, buf, count, dtype, status);
    ompi_message_return(*message);
    *message = MPI_MESSAGE_NULL;
    return rc;
}

int mca_pml_zip_imrecv(void *buf, size_t count, ompi_datatype_t *dtype, ompi_message_t **message,
                       ompi_request_t **request)
{
    mca_pml_zip_stash_entry_t *e = zip_message_entry(*message);
    if (NULL == e) {
        return mca_pml_zip_wrapped.pml_imrecv(buf, count, dtype, message, request);
    }
    mca_pml_zip_request_t *req = mca_pml_zip_request_new(ZIP_REQ_RECV, false, (*message)->comm);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ompi_status_public_t st;
    (void)mca_pml_zip_stash_deliver(e, buf, count, dtype, &st);
    ompi_message_return(*message);
    *message = MPI_MESSAGE_NULL;
    mca_pml_zip_request_complete(req, &st);
    *request = &req->super;
    return OMPI_SUCCESS;
}
