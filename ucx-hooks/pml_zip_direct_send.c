/*
 * Direct persistent sends: MPI_Send_init and MPI_Rsend_init hand the application
 * the wrapped PML's own persistent request, with zip's start, free and cancel functions, as
 * direct persistent receives do (pml_zip_direct.c). Most starts send a bare message, the
 * application's data as stock would: those start the wrapped request itself, with nothing of
 * zip's to finish, as a bare MPI_Isend returns the wrapped request (pml_zip_send.c). A start
 * whose message goes as an envelope and payload (compressed, a stream message, a link hint due)
 * is sent by a zip request that completes the application's request; that request is then a
 * fresh one from the wrapped PML's isend_init, the handle the application holds moving to it
 * (ob1's start does the same when its request is still busy; Open MPI's Fortran and C
 * bindings take the new handle), and the old one is freed: ob1 may still hold a request whose
 * last start completed for MPI, and would complete a pending one itself once done with it
 * (send_request_pml_complete), which must not happen while zip holds the completion.
 *
 * Not for buffered mode (zip's own copy, pml_zip_send.c), synchronous mode and messages of an
 * envelope's size (never bare), nor under MPI_THREAD_MULTIPLE (as direct persistent receives):
 * zip requests there.
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "ompi/constants.h"
#include "opal/threads/thread_usage.h"

#include "pml_zip.h"

struct mca_pml_zip_psend_t {
    ompi_request_t *inner; /* the wrapped PML's persistent request the application holds */
    ompi_request_start_fn_t inner_start;
    ompi_request_free_fn_t inner_free;
    ompi_request_cancel_fn_t inner_cancel;
    const void *buf;
    size_t count;
    ompi_datatype_t *dtype;
    int dst, tag;
    mca_pml_base_send_mode_t mode;
    ompi_communicator_t *comm;
    mca_pml_zip_request_t *via; /* the zip request sending this start's message, or NULL */
    bool app_freed;             /* MPI_Request_free while via was at work */
};

static int psend_free(ompi_request_t **request);
static int psend_cancel(ompi_request_t *request, int complete);

/* zip's functions on r, the wrapped PML's kept in p (the same for every request of a PML). */
static void psend_hook(mca_pml_zip_psend_t *p, ompi_request_t *r)
{
    p->inner_start = r->req_start;
    p->inner_free = r->req_free;
    p->inner_cancel = r->req_cancel;
    r->req_start = mca_pml_zip_psend_start;
    r->req_free = psend_free;
    r->req_cancel = psend_cancel;
}

static void psend_unhook(const mca_pml_zip_psend_t *p, ompi_request_t *r)
{
    r->req_start = p->inner_start;
    r->req_free = p->inner_free;
    r->req_cancel = p->inner_cancel;
}

static void psend_release(mca_pml_zip_psend_t *p)
{
    mca_pml_zip_persistent_forget(p->inner);
    OBJ_RELEASE(p->dtype);
    OBJ_RELEASE(p->comm);
    free(p);
}

/* Back to the wrapped PML, which frees it now or once it is done with it. */
static int psend_let_go(mca_pml_zip_psend_t *p, ompi_request_t **request)
{
    psend_unhook(p, *request);
    psend_release(p);
    return (*request)->req_free(request);
}

static int psend_free(ompi_request_t **request)
{
    mca_pml_zip_psend_t *p = mca_pml_zip_persistent_find(*request);
    if (NULL != p->via) {
        p->app_freed = true; /* zip's request still sends: its completion lets go */
        *request = MPI_REQUEST_NULL;
        return OMPI_SUCCESS;
    }
    return psend_let_go(p, request);
}

static int psend_cancel(ompi_request_t *request, int complete)
{
    mca_pml_zip_psend_t *p = mca_pml_zip_persistent_find(request);
    if (NULL != p->via) {
        return p->via->super.req_cancel(&p->via->super, complete);
    }
    return NULL == p->inner_cancel ? OMPI_SUCCESS : p->inner_cancel(request, complete);
}

/* The wrapped PML put a new request in the application's handle (ob1's start, when its request
 * was still busy): zip's functions and record move to it. */
static int psend_moved(mca_pml_zip_psend_t *p, ompi_request_t *now)
{
    ompi_request_t *old = p->inner;
    psend_unhook(p, old); /* ob1 returns it to its free list when done */
    mca_pml_zip_persistent_forget(old);
    p->inner = now;
    psend_hook(p, now);
    if (!mca_pml_zip_persistent_add(now, p)) {
        /* No memory for the table: the start fails; the application holds a plain wrapped
         * request (its message is out, bare). */
        psend_unhook(p, now);
        psend_release(p);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    return OMPI_SUCCESS;
}

/* This start's message goes as envelope and payload: sent by a zip request that completes a
 * fresh wrapped request, which takes the application's handle (*handle). */
static int psend_via_zip(mca_pml_zip_psend_t *p, mca_pml_zip_out_t *out, ompi_request_t **handle)
{
    ompi_request_t *fresh = NULL;
    int rc = mca_pml_zip_wrapped.pml_isend_init(p->buf, p->count, p->dtype, p->dst, p->tag,
                                                mca_pml_zip_wire_mode(p->mode), p->comm, &fresh);
    if (OMPI_SUCCESS == rc && !mca_pml_zip_persistent_add(fresh, p)) {
        ompi_request_free(&fresh);
        rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (OMPI_SUCCESS != rc) {
        mca_pml_zip_out_drop(out, p->comm, p->dst, p->tag);
        return rc;
    }
    ompi_request_t *old = p->inner;
    fresh->req_complete_cb = old->req_complete_cb; /* a caller's, as ob1's start moves it */
    fresh->req_complete_cb_data = old->req_complete_cb_data;
    old->req_complete_cb = NULL;
    psend_unhook(p, old);
    mca_pml_zip_persistent_forget(old);
    (void)old->req_free(&old);
    p->inner = fresh;
    psend_hook(p, fresh);
    *handle = fresh;
    fresh->req_state = OMPI_REQUEST_ACTIVE;
    fresh->req_complete = REQUEST_PENDING;
    fresh->req_status.MPI_ERROR = MPI_SUCCESS;
    fresh->req_status._cancelled = 0;
    rc = mca_pml_zip_send_encoded(out, p->buf, p->count, p->dtype, p->dst, p->tag, p->mode, p->comm,
                                  p, &p->via);
    if (OMPI_SUCCESS != rc) {
        p->via = NULL;
        fresh->req_state = OMPI_REQUEST_INACTIVE;
        fresh->req_complete = REQUEST_COMPLETED;
    }
    return rc;
}

int mca_pml_zip_psend_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        mca_pml_zip_psend_t *p = mca_pml_zip_persistent_find(requests[i]);
        mca_pml_zip_out_t out;
        bool bare = mca_pml_zip_sends_small_bare(p->count, p->dtype, p->mode, p->comm, p->dst);
        int rc = OMPI_SUCCESS;
        if (!bare) {
            rc = mca_pml_zip_encode(p->buf, p->count, p->dtype, p->mode, p->comm, p->dst, p->tag,
                                    false, &out);
            bare = OMPI_SUCCESS == rc && out.bare;
        }
        if (bare) {
            /* The start may complete the request, and a caller's callback free it (osc/pt2pt's
             * do): p is then gone. Only a moved request leaves p in use. */
            const ompi_request_t *before = requests[i];
            rc = p->inner_start(1, &requests[i]);
            if (OMPI_SUCCESS == rc && requests[i] != before) {
                rc = psend_moved(p, requests[i]);
            }
        } else if (OMPI_SUCCESS == rc) {
            rc = psend_via_zip(p, &out, &requests[i]);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

void mca_pml_zip_psend_finish(mca_pml_zip_psend_t *p, int error, int cancelled)
{
    ompi_request_t *inner = p->inner;
    p->via = NULL;
    inner->req_status.MPI_SOURCE = MPI_ANY_SOURCE; /* as a send's status */
    inner->req_status.MPI_TAG = MPI_ANY_TAG;
    inner->req_status.MPI_ERROR = error;
    inner->req_status._ucount = 0;
    inner->req_status._cancelled = cancelled;
    if (p->app_freed) {
        inner->req_complete = REQUEST_COMPLETED;
        (void)psend_let_go(p, &inner);
        return;
    }
    ompi_request_complete(inner, true);
}

int mca_pml_zip_direct_isend_init(const void *buf, size_t count, ompi_datatype_t *dtype, int dst,
                                  int tag, mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                                  ompi_request_t **request)
{
    /* Synchronous mode and 14-byte messages always go as envelopes (pml_zip_wire.c): a zip
     * request serves them at less cost. */
    if (opal_using_threads() || MCA_PML_BASE_SEND_BUFFERED == mode ||
        MCA_PML_BASE_SEND_SYNCHRONOUS == mode ||
        MCA_PML_ZIP_ENVELOPE_BYTES == dtype->super.size * count) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    mca_pml_zip_psend_t *p = malloc(sizeof(*p));
    if (NULL == p) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    ompi_request_t *inner = NULL;
    int rc = mca_pml_zip_wrapped.pml_isend_init(buf, count, dtype, dst, tag,
                                                mca_pml_zip_wire_mode(mode), comm, &inner);
    if (OMPI_SUCCESS != rc) {
        free(p);
        return rc;
    }
    if (!mca_pml_zip_persistent_add(inner, p)) {
        free(p);
        ompi_request_free(&inner);
        return OMPI_ERR_NOT_SUPPORTED;
    }
    p->inner = inner;
    p->buf = buf;
    p->count = count;
    OBJ_RETAIN(dtype);
    p->dtype = dtype;
    p->dst = dst;
    p->tag = tag;
    p->mode = mode;
    OBJ_RETAIN(comm);
    p->comm = comm;
    p->via = NULL;
    p->app_freed = false;
    psend_hook(p, inner);
    *request = inner;
    return OMPI_SUCCESS;
}
