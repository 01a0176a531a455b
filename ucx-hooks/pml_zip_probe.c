/*
 * Probe family. A probe reports the application's source, tag and count without receiving
 * anything the application could notice: a bare message's count is the wrapped PML's; an
 * envelope (14 bytes, always eager, so pulling it is local) is pulled
 * into the stash to read the count it carries. Its payload stays with the sender's PML, so a
 * synchronous send is not completed by a probe. Matched probes take the message out of the
 * wrapped PML and hand out a message handle that points at the stash entry.
 */
#include "ompi_config.h"

#include "opal/runtime/opal_progress.h"
#include "ompi/constants.h"

#include "pml_zip.h"

static bool zip_probe_applies(const ompi_communicator_t *comm, int src, int tag)
{
    return MPI_PROC_NULL != src && mca_pml_zip_app_tag(tag) && !mca_pml_zip_comm_untouched(comm);
}

int mca_pml_zip_iprobe(int src, int tag, ompi_communicator_t *comm, int *matched,
                       ompi_status_public_t *status)
{
    if (!zip_probe_applies(comm, src, tag)) {
        return mca_pml_zip_wrapped.pml_iprobe(src, tag, comm, matched, status);
    }
    int msrc, mtag;
    size_t count;
    int rc = mca_pml_zip_stash_match(comm, src, tag, false, NULL, &msrc, &mtag, &count);
    *matched = (1 == rc);
    if (1 == rc) {
        mca_pml_zip_status_out(status, msrc, mtag, count, 0);
        return OMPI_SUCCESS;
    }
    return rc;
}

int mca_pml_zip_probe(int src, int tag, ompi_communicator_t *comm, ompi_status_public_t *status)
{
    if (!zip_probe_applies(comm, src, tag)) {
        return mca_pml_zip_wrapped.pml_probe(src, tag, comm, status);
    }
    for (;;) {
        int matched = 0;
        int rc = mca_pml_zip_iprobe(src, tag, comm, &matched, status);
        if (OMPI_SUCCESS != rc || matched) {
            return rc;
        }
        opal_progress();
    }
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
    msg->count = e->head.raw_bytes;
    *message = msg;
    mca_pml_zip_status_out(status, e->source, e->tag, e->head.raw_bytes, 0);
    return OMPI_SUCCESS;
}

int mca_pml_zip_improbe(int src, int tag, ompi_communicator_t *comm, int *matched,
                        ompi_message_t **message, ompi_status_public_t *status)
{
    if (!zip_probe_applies(comm, src, tag)) {
        return mca_pml_zip_wrapped.pml_improbe(src, tag, comm, matched, message, status);
    }
    mca_pml_zip_stash_entry_t *e = NULL;
    int msrc, mtag;
    size_t count;
    int rc = mca_pml_zip_stash_match(comm, src, tag, true, &e, &msrc, &mtag, &count);
    *matched = (1 == rc);
    if (1 != rc) {
        return rc;
    }
    /* A stream message is decoded now, in its channel's order: later messages of its stream
     * must not wait for an MPI_Mrecv that may come after their own receives. */
    if (ZIP_SHAPE_ENVELOPE == e->head.shape && (e->head.flags & MCA_PML_ZIP_ENV_TEMPORAL)) {
        rc = mca_pml_zip_temporal_fetch(e, comm);
        if (OMPI_SUCCESS != rc) {
            e->error = rc;
        }
    }
    return zip_message_for(e, comm, message, status);
}

int mca_pml_zip_mprobe(int src, int tag, ompi_communicator_t *comm, ompi_message_t **message,
                       ompi_status_public_t *status)
{
    if (!zip_probe_applies(comm, src, tag)) {
        return mca_pml_zip_wrapped.pml_mprobe(src, tag, comm, message, status);
    }
    for (;;) {
        int matched = 0;
        int rc = mca_pml_zip_improbe(src, tag, comm, &matched, message, status);
        if (OMPI_SUCCESS != rc || matched) {
            return rc;
        }
        opal_progress();
    }
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

int mca_pml_zip_imrecv(void *buf, size_t count, ompi_datatype_t *dtype, ompi_message_t **message,
                       ompi_request_t **request)
{
    mca_pml_zip_stash_entry_t *e = zip_message_entry(*message);
    if (NULL == e) {
        return mca_pml_zip_wrapped.pml_imrecv(buf, count, dtype, message, request);
    }
    ompi_communicator_t *comm = (*message)->comm;
    ompi_message_return(*message);
    *message = MPI_MESSAGE_NULL;
    return mca_pml_zip_deliver_message(e, buf, count, dtype, comm, request);
}

int mca_pml_zip_mrecv(void *buf, size_t count, ompi_datatype_t *dtype, ompi_message_t **message,
                      ompi_status_public_t *status)
{
    if (NULL == zip_message_entry(*message)) {
        return mca_pml_zip_wrapped.pml_mrecv(buf, count, dtype, message, status);
    }
    ompi_request_t *r = NULL;
    int rc = mca_pml_zip_imrecv(buf, count, dtype, message, &r);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return ompi_request_wait(&r, status);
}
