/*
 * The request an application holds for a zip message. It owns the wrapped PML's requests and
 * zip's buffers. Completion is polled from a progress callback rather than hooked into the
 * wrapped requests' completion callbacks: a callback can only be attached after the wrapped
 * PML returns the request, and by then it may already be completing on another thread.
 * Polling a list that is empty whenever no zip message is in flight costs one load.
 *
 * Completion runs with no zip lock held: Open MPI's own users of the PML (osc/pt2pt) attach
 * completion callbacks that free the request or start new ones from inside the callback.
 *
 * What happens when a request starts or its wrapped requests complete is the business of its
 * kind (req->ops, set by pml_zip_send.c and pml_zip_recv.c): this file only tracks and completes.
 */
#include "ompi_config.h"

#include <stdlib.h>
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
    req->inner2 = NULL;
    memset(&req->out, 0, sizeof(req->out));
    req->stage = NULL;
    req->in_place = false;
    req->free_called = false;
    req->pml_done = false;
    req->comm = NULL;
    req->dtype = NULL;
    req->hold = false;
    req->held = NULL;
    req->tnext = NULL;
    req->arrival_class = -1;
    req->arrival_seen = 0.0;
    req->direct = NULL;
    req->psend = NULL;
}

static void zip_request_destruct(mca_pml_zip_request_t *req)
{
    if (NULL != req->inner) {
        ompi_request_free(&req->inner);
    }
    if (NULL != req->inner2) {
        ompi_request_free(&req->inner2);
    }
    if (req->arrival_class >= 0) {
        mca_pml_zip_arrival_end(req->arrival_class, 0, 0.0, true);
    }
    mca_pml_zip_out_release(&req->out);
    mca_pml_zip_buf_put(req->stage);
    free(req->held);
    if (NULL != req->dtype) {
        OBJ_RELEASE(req->dtype);
    }
    if (NULL != req->comm) {
        OBJ_RELEASE(req->comm);
    }
    /* Drops its Fortran handle, if MPI_Request_c2f gave it one: Open MPI's f2c table would
     * keep a slot pointing at freed memory, one per request a Fortran program ever made. */
    OMPI_REQUEST_FINI(&req->super);
}

OBJ_CLASS_INSTANCE(mca_pml_zip_request_t, ompi_request_t, zip_request_construct,
                   zip_request_destruct);

/* Released requests' memory, reused by the next ones: a stream of small receives allocates and
 * frees one request each, and a window of more than glibc's per-size cache (7) of them freed at
 * once took malloc's slow path (a tenth of an 8-byte receive stream's time). Objects are
 * constructed and destructed as before; only the allocation is saved. */
#if defined(__SANITIZE_ADDRESS__)
#define ZIP_REQUEST_CACHED_MAX 0 /* ASan must see a request used after its release */
#else
#define ZIP_REQUEST_CACHED_MAX 128
#endif
static void *request_cache[ZIP_REQUEST_CACHED_MAX > 0 ? ZIP_REQUEST_CACHED_MAX : 1];
static int request_cached;
static opal_mutex_t request_cache_lock = OPAL_MUTEX_STATIC_INIT;

/* Memory for a request: a cached one, else NULL. */
static void *cache_get(void)
{
    void *mem = NULL;
    if (ZIP_REQUEST_CACHED_MAX > 0) {
        OPAL_THREAD_LOCK(&request_cache_lock);
        if (request_cached > 0) {
            mem = request_cache[--request_cached];
        }
        OPAL_THREAD_UNLOCK(&request_cache_lock);
    }
    return mem;
}

/* Keeps a released request's memory if there is room; false: the caller frees it. */
static bool cache_put(void *mem)
{
    bool kept = false;
    if (ZIP_REQUEST_CACHED_MAX > 0) {
        OPAL_THREAD_LOCK(&request_cache_lock);
        if (request_cached < ZIP_REQUEST_CACHED_MAX) {
            request_cache[request_cached++] = mem;
            kept = true;
        }
        OPAL_THREAD_UNLOCK(&request_cache_lock);
    }
    return kept;
}

static mca_pml_zip_request_t *request_alloc(void)
{
    void *mem = cache_get();
    if (NULL == mem) {
        mem = malloc(sizeof(mca_pml_zip_request_t));
        if (NULL == mem) {
            return NULL;
        }
    }
    mca_pml_zip_request_t *req = (mca_pml_zip_request_t *)mem;
    OBJ_CONSTRUCT(req, mca_pml_zip_request_t);
    return req;
}

void mca_pml_zip_request_unref(mca_pml_zip_request_t *req)
{
    opal_object_t *obj = &req->super.super.super.super;
    if (0 != opal_obj_update(obj, -1)) {
        return;
    }
    opal_obj_run_destructors(obj);
    if (!cache_put(req)) {
        free(req);
    }
}

void mca_pml_zip_request_cache_fini(void)
{
    while (request_cached > 0) {
        free(request_cache[--request_cached]);
    }
}

mca_pml_zip_request_t *mca_pml_zip_request_new(mca_pml_zip_req_kind_t kind,
                                               const mca_pml_zip_request_ops_t *ops,
                                               bool persistent, ompi_communicator_t *comm)
{
    mca_pml_zip_request_t *req = request_alloc();
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
    req->ops = ops;
    /* The communicator and datatype must outlive a request the application freed early. */
    OBJ_RETAIN(comm);
    req->comm = comm;
    return req;
}

void mca_pml_zip_request_track(mca_pml_zip_request_t *req)
{
    OPAL_THREAD_LOCK(&active_lock);
    if (!active_list_ready) {
        OBJ_CONSTRUCT(&active_list, opal_list_t);
        active_list_ready = true;
    }
    opal_list_append(&active_list, &req->super.super.super);
    opal_atomic_add_fetch_32(&n_active, 1);
    OPAL_THREAD_UNLOCK(&active_lock);
}

static void zip_request_release(mca_pml_zip_request_t *req)
{
    req->super.req_state = OMPI_REQUEST_INACTIVE;
    mca_pml_zip_request_unref(req);
}

void mca_pml_zip_request_complete(mca_pml_zip_request_t *req, int source, int tag, size_t count,
                                  int error, int cancelled)
{
    req->super.req_status.MPI_SOURCE = source;
    req->super.req_status.MPI_TAG = tag;
    req->super.req_status.MPI_ERROR = error;
    req->super.req_status._ucount = count;
    req->super.req_status._cancelled = cancelled;

    if (NULL != req->psend) {
        /* Nobody holds req: the application waits for the persistent send's own request. */
        mca_pml_zip_psend_t *p = req->psend;
        req->psend = NULL;
        req->pml_done = true;
        zip_request_release(req);
        mca_pml_zip_psend_finish(p, error, cancelled);
        return;
    }
    if (NULL != req->direct) {
        /* Nobody holds req: the application waits for the direct receive's own request. */
        mca_pml_zip_direct_t *d = req->direct;
        req->direct = NULL;
        req->pml_done = true;
        zip_request_release(req);
        mca_pml_zip_direct_finish(d, source, tag, count, error, cancelled);
        return;
    }

    /* Who releases the request is decided under the lock: a concurrent MPI_Request_free
     * either sees zip done with it (and drops the application's reference) or leaves the
     * release to us. The extra reference keeps it alive through a completion callback that
     * frees it. */
    OPAL_THREAD_LOCK(&active_lock);
    const bool orphan = req->free_called;
    req->pml_done = true;
    if (!orphan) {
        OBJ_RETAIN(req);
    }
    OPAL_THREAD_UNLOCK(&active_lock);
    if (orphan) {
        zip_request_release(req);
        return;
    }
    ompi_request_complete(&req->super, true);
    mca_pml_zip_request_unref(req);
}

static bool inner_done(const ompi_request_t *r)
{
    return NULL == r || REQUEST_COMPLETED == r->req_complete;
}

int mca_pml_zip_progress(void)
{
    int n_direct = 0;
    if (OPAL_UNLIKELY(mca_pml_zip_direct_pending > 0)) {
        n_direct = mca_pml_zip_direct_progress();
    }
    if (0 == n_active) {
        return n_direct;
    }
    mca_pml_zip_request_t *done[64];
    ompi_request_t *inners[64][2];
    int n_done = 0;
    /* The time only while payloads are being timed (pml_zip_arrival_clock.c). */
    double now = 0.0;
    if (mca_pml_zip_arrivals_in_flight > 0) {
        now = mca_pml_zip_now();
        mca_pml_zip_arrival_poll(now);
    }

    OPAL_THREAD_LOCK(&active_lock);
    mca_pml_zip_request_t *req, *next;
    OPAL_LIST_FOREACH_SAFE(req, next, &active_list, mca_pml_zip_request_t)
    {
        if (n_done == 64) {
            break;
        }
        if (inner_done(req->inner) && inner_done(req->inner2)) {
            req->arrival_seen = now;
            opal_list_remove_item(&active_list, &req->super.super.super);
            opal_atomic_add_fetch_32(&n_active, -1);
            inners[n_done][0] = req->inner;
            inners[n_done][1] = req->inner2;
            req->inner = NULL; /* no more cancel from here on */
            req->inner2 = NULL;
            done[n_done++] = req;
        }
    }
    OPAL_THREAD_UNLOCK(&active_lock);

    /* Decoding happens outside the lock, so threads finish different requests in parallel. */
    for (int i = 0; i < n_done; ++i) {
        done[i]->ops->inner_done(done[i], inners[i][0], inners[i][1]);
    }
    return n_direct + n_done;
}

static int zip_request_free(ompi_request_t **request)
{
    mca_pml_zip_request_t *req = (mca_pml_zip_request_t *)*request;
    bool release_now;

    OPAL_THREAD_LOCK(&active_lock);
    release_now = req->pml_done || OMPI_REQUEST_INACTIVE == req->super.req_state;
    if (!release_now) {
        req->free_called = true; /* completion will release it */
    }
    OPAL_THREAD_UNLOCK(&active_lock);
    if (release_now) {
        zip_request_release(req);
    }
    *request = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int zip_request_cancel(ompi_request_t *request, int complete)
{
    mca_pml_zip_request_t *req = (mca_pml_zip_request_t *)request;
    int rc = OMPI_SUCCESS;

    /* Only a receive still waiting for its first message can be cancelled: after that its
     * sender is committed. Sends are whatever the wrapped PML does with its payload, except a
     * stream message's, which later messages of its stream may be coded against: it is never
     * cancelled (MPI lets a cancel fail; the send then completes as usual). */
    OPAL_THREAD_LOCK(&active_lock);
    ompi_request_t *inner = NULL;
    if (ZIP_REQ_RECV == req->kind ? ZIP_RECV_LANDING == req->phase
                                  : NULL != req->inner && !req->out.temporal) {
        inner = req->inner;
    }
    if (NULL != inner && NULL != inner->req_cancel) {
        rc = inner->req_cancel(inner, complete);
    }
    OPAL_THREAD_UNLOCK(&active_lock);
    return rc;
}

static int zip_request_start_one(mca_pml_zip_request_t *req)
{
    req->super.req_complete = REQUEST_PENDING;
    req->super.req_state = OMPI_REQUEST_ACTIVE;
    req->super.req_status.MPI_ERROR = MPI_SUCCESS;
    req->super.req_status._cancelled = 0;
    req->free_called = false;
    req->pml_done = false;

    return req->ops->start(req);
}

int mca_pml_zip_request_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        ompi_request_t *r = requests[i];
        if (NULL == r || MPI_REQUEST_NULL == r) {
            continue;
        }
        int rc;
        if (r->req_start == mca_pml_zip_request_start) {
            rc = zip_request_start_one((mca_pml_zip_request_t *)r);
        } else if (r->req_start == mca_pml_zip_direct_start ||
                   r->req_start == mca_pml_zip_psend_start) {
            rc = r->req_start(1, &requests[i]); /* from a component's PML call */
        } else {
            rc = mca_pml_zip_wrapped.pml_start(1, &requests[i]);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}
