/*
 * The request an application holds for a zip message. It owns the wrapped PML's request and
 * the staging buffer. Completion is polled from a progress callback rather than hooked into
 * the wrapped request's completion callback: a callback can only be attached after the wrapped
 * PML returns the request, and by then it may already be completing on another thread. Polling
 * a list that is empty whenever no zip message is in flight costs one load per progress call.
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/constants.h"

#include "pml_zip.h"

static opal_mutex_t active_lock = OPAL_MUTEX_STATIC_INIT;
static opal_list_t active_list;
static bool active_list_ready;
static volatile int32_t n_active;

static int zip_request_free(ompi_request_t **request);
static int zip_request_cancel(ompi_request_t *request, int complete);

static void zip_request_construct(mca_pml_zip_request_t *req)
{
    req->inner = NULL;
    memset(&req->out, 0, sizeof(req->out));
    memset(&req->in, 0, sizeof(req->in));
    req->free_called = false;
    req->comm = NULL;
    req->dtype = NULL;
}

static void zip_request_destruct(mca_pml_zip_request_t *req)
{
    if (NULL != req->inner) {
        ompi_request_free(&req->inner);
    }
    mca_pml_zip_wire_release(&req->out);
    mca_pml_zip_landing_release(&req->in);
    if (NULL != req->dtype) {
        OBJ_RELEASE(req->dtype);
    }
    if (NULL != req->comm) {
        OBJ_RELEASE(req->comm);
    }
}

OBJ_CLASS_INSTANCE(mca_pml_zip_request_t, ompi_request_t, zip_request_construct,
                   zip_request_destruct);

mca_pml_zip_request_t *mca_pml_zip_request_new(mca_pml_zip_req_kind_t kind, bool persistent,
                                               ompi_communicator_t *comm)
{
    mca_pml_zip_request_t *req = OBJ_NEW(mca_pml_zip_request_t);
    if (NULL == req) {
        return NULL;
    }
    OMPI_REQUEST_INIT(&req->super, persistent);
    req->super.req_type = OMPI_REQUEST_PML;
    req->super.req_state = persistent ? OMPI_REQUEST_INACTIVE : OMPI_REQUEST_ACTIVE;
    req->super.req_start = mca_pml_zip_request_start;
    req->super.req_free = zip_request_free;
    req->super.req_cancel = zip_request_cancel;
    req->super.req_mpi_object.comm = comm;
    req->kind = kind;
    /* The communicator and datatype must outlive a request the application freed early. */
    OBJ_RETAIN(comm);
    req->comm = comm;
    return req;
}

void mca_pml_zip_request_track(mca_pml_zip_request_t *req)
{
    opal_mutex_lock(&active_lock);
    if (!active_list_ready) {
        OBJ_CONSTRUCT(&active_list, opal_list_t);
        active_list_ready = true;
    }
    opal_list_append(&active_list, &req->super.super.super);
    opal_atomic_add_fetch_32(&n_active, 1);
    opal_mutex_unlock(&active_lock);
}

void mca_pml_zip_request_complete(mca_pml_zip_request_t *req, const ompi_status_public_t *st)
{
    req->super.req_status.MPI_SOURCE = st->MPI_SOURCE;
    req->super.req_status.MPI_TAG = st->MPI_TAG;
    req->super.req_status.MPI_ERROR = st->MPI_ERROR;
    req->super.req_status._ucount = st->_ucount;
    req->super.req_status._cancelled = st->_cancelled;

    /* Decide under the lock who owns the request now: a concurrent MPI_Request_free either
     * sees it complete (and frees it) or leaves it to us. */
    opal_mutex_lock(&active_lock);
    const bool orphan = req->free_called;
    if (!orphan) {
        ompi_request_complete(&req->super, true);
    }
    opal_mutex_unlock(&active_lock);
    if (orphan) {
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        OBJ_RELEASE(req);
    }
}

static void zip_request_finish(mca_pml_zip_request_t *req, ompi_request_t *inner)
{
    req->inner = inner; /* handed back for the kind-specific finish, which frees it */
    if (ZIP_REQ_RECV == req->kind) {
        mca_pml_zip_finish_recv(req);
        return;
    }
    ompi_status_public_t st = inner->req_status;
    ompi_request_free(&req->inner);
    req->inner = NULL;
    mca_pml_zip_wire_release(&req->out);
    mca_pml_zip_request_complete(req, &st);
}

int mca_pml_zip_progress(void)
{
    if (0 == n_active) {
        return 0;
    }
    mca_pml_zip_request_t *done[64];
    ompi_request_t *inners[64];
    int n_done = 0;

    opal_mutex_lock(&active_lock);
    mca_pml_zip_request_t *req, *next;
    OPAL_LIST_FOREACH_SAFE(req, next, &active_list, mca_pml_zip_request_t)
    {
        if (n_done == 64) {
            break;
        }
        if (REQUEST_COMPLETED == req->inner->req_complete) {
            opal_list_remove_item(&active_list, &req->super.super.super);
            opal_atomic_add_fetch_32(&n_active, -1);
            inners[n_done] = req->inner;
            req->inner = NULL; /* no more cancel from here on */
            done[n_done++] = req;
        }
    }
    opal_mutex_unlock(&active_lock);

    /* Decoding happens outside the lock, so threads finish different requests in parallel. */
    for (int i = 0; i < n_done; ++i) {
        zip_request_finish(done[i], inners[i]);
    }
    return n_done;
}

static int zip_request_free(ompi_request_t **request)
{
    mca_pml_zip_request_t *req = (mca_pml_zip_request_t *)*request;
    bool release_now;

    opal_mutex_lock(&active_lock);
    release_now = REQUEST_COMPLETED == req->super.req_complete ||
                  OMPI_REQUEST_INACTIVE == req->super.req_state;
    if (!release_now) {
        req->free_called = true; /* completion will release it */
    }
    opal_mutex_unlock(&active_lock);
    if (release_now) {
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        OBJ_RELEASE(req);
    }
    *request = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int zip_request_cancel(ompi_request_t *request, int complete)
{
    mca_pml_zip_request_t *req = (mca_pml_zip_request_t *)request;
    int rc = OMPI_SUCCESS;

    opal_mutex_lock(&active_lock);
    if (NULL != req->inner && NULL != req->inner->req_cancel) {
        rc = req->inner->req_cancel(req->inner, complete);
    }
    opal_mutex_unlock(&active_lock);
    return rc;
}

static int zip_request_start_one(mca_pml_zip_request_t *req)
{
    req->super.req_complete = REQUEST_PENDING;
    req->super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.req_status.MPI_ERROR = MPI_SUCCESS;
    req->super.req_status._cancelled = 0;
    req->free_called = false;

    if (ZIP_REQ_SEND == req->kind) {
        return mca_pml_zip_post_send(req);
    }

    if (!mca_pml_zip_stash_empty()) {
        mca_pml_zip_stash_entry_t *e = mca_pml_zip_stash_take(req->comm, req->peer, req->tag);
        if (NULL != e) {
            ompi_status_public_t st;
            memset(&st, 0, sizeof(st));
            (void)mca_pml_zip_stash_deliver(e, req->rbuf, req->count, req->dtype, &st);
            mca_pml_zip_request_complete(req, &st);
            return OMPI_SUCCESS;
        }
    }
    return mca_pml_zip_post_staged_recv(req);
}

int mca_pml_zip_request_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        ompi_request_t *r = requests[i];
        if (NULL == r || MPI_REQUEST_NULL == r) {
            continue;
        }
        int rc = (r->req_start == mca_pml_zip_request_start)
                     ? zip_request_start_one((mca_pml_zip_request_t *)r)
                     : mca_pml_zip_wrapped.pml_start(1, &requests[i]);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}
