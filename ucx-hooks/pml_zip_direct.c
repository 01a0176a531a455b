/*
 * Direct receives: MPI_Irecv into a contiguous buffer hands the application the wrapped PML's
 * own request, as stock Open MPI does (a buffer smaller than an envelope is received into a
 * landing buffer in zip's record of the receive, and copied from there). Most such receives get a
 * bare message, which is the application's data as stock would have delivered it; with a zip
 * request around each (its allocation, tracking, polling and completion) streams of 8-byte messages
 * on shared memory ran at 0.46x stock's rate, without at 0.65x (docs/performance.md, "Direct
 * receives").
 *
 * The wrapped request carries a completion callback. A bare message (any count but an
 * envelope's 14 bytes), an error or a cancel completes it as it is. An envelope holds the
 * completion back (the callback returns nonzero, which ompi_request_complete honours), puts
 * back the 14 bytes the envelope covered, and leaves the payload to a zip request made for the
 * rest of the message (pml_zip_recv.c), which completes the wrapped request when it is done.
 * That zip request is made from zip's progress, not inside the wrapped PML's completion path.
 * So a component that puts its own completion callback on a wrapped receive would take that
 * part away: in Open MPI 4.1.4 only osc/pt2pt does, on persistent receives (whose starts with
 * such a callback zip serves through a zip request, below), and
 * coll/adapt, on tags below zero (never zip's).
 *
 * With one thread in MPI at a time the callback is attached once the wrapped PML has returned
 * the request: nothing can complete it in between except the irecv call itself, which is
 * checked. With MPI_THREAD_MULTIPLE another thread's progress could, so there the receive is
 * posted inactive (irecv_init), given its callback, marked non-persistent (the application holds
 * it as an MPI_Irecv's: its wait frees it) and started: ob1's start leaves the callback alone and
 * completes the request it started (Open MPI 4.1.4). pml/ucx's cannot be used so:
 * mca_pml_ucx_start posts a UCP request, tests it for completion and only then links it to the
 * persistent request, so a completion by another thread between the test and the link is lost
 * and the receive never completes (the same in Open MPI 4.1.4, 4.1.6, 5.0.0 and main; a rare
 * hang of p2p_threads shared_buffer over ucx in CI). Over pml/ucx the receive is posted with its
 * irecv instead, given the callback, and fenced (pml_zip_ucx_fence.c: every completion UCX had
 * begun is then over): a request complete by then with the callback still on completed without
 * it, and zip acts on it before handing the request out. Threaded receives over any other PML are
 * zip requests, which poll their wrapped requests. A threaded receive of up to
 * MCA_PML_ZIP_SMALL_STAGE_BYTES lands in the record's own stage and is copied to the
 * application's buffer by the callback (pml_zip_landing.c says why: threads that share a receive
 * buffer), and the record stays with the request until the application frees it, so that its
 * free and zip's callback never race over who releases what (state, below).
 *
 * Until zip is done with it, the wrapped request's free function is zip's: MPI_Request_free on
 * an active receive must still take the payload of an envelope off the wrapped PML. The wrapped
 * PML's own function is put back before the request goes back to it (ob1 sets it once per
 * request object, not per receive).
 *
 * Persistent receives (MPI_Recv_init, without MPI_THREAD_MULTIPLE) work the same way: the
 * application holds the wrapped PML's persistent request, whose start function is zip's, and
 * the record stays with it until MPI_Request_free. Each MPI_Start attaches the callback and
 * starts the wrapped request; MPI_Startall calls a request's own start function (Open MPI
 * 4.1.4, ompi/mpi/c/startall.c), a component calls the PML's (zip's, which hands these on).
 * The record is found by its request (pml_zip_persistent_table.c), not in the callback data:
 * osc/pt2pt puts its own callback and data on its persistent receives before each start. A start
 * that finds such a callback, or messages pulled by a probe in zip's stash (one may match), is
 * served by a zip request that completes the application's request (the caller's callback runs
 * then, on the message as zip delivers it), which the wrapped PML then never sees started; its
 * cancel is zip's meanwhile (ob1's would unlink a receive it never queued).
 */
#include "ompi_config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "opal/threads/mutex.h"
#include "opal/threads/thread_usage.h"

#include "pml_zip.h"

struct mca_pml_zip_direct_t {
    struct mca_pml_zip_direct_t *next; /* free list, or the list of envelopes to go on with */
    ompi_request_t *inner;             /* the wrapped PML's request the application holds */
    ompi_request_free_fn_t inner_free; /* its own free function, while zip's stands in */
    char *base;                        /* the buffer's first byte */
    size_t cap;                        /* its bytes */
    /* received into stage, then copied to base: smaller than an envelope, or small under
     * MPI_THREAD_MULTIPLE */
    bool landed;
    size_t stage_bytes;     /* landed: what the stage takes */
    bool threaded;          /* posted under MPI_THREAD_MULTIPLE */
    bool started;           /* threaded: posted with irecv_init, its callback on, and started */
    volatile int32_t state; /* threaded: DIRECT_ACTIVE, DIRECT_APP_FREED or DIRECT_DONE */
    void *buf;
    size_t count;
    ompi_datatype_t *dtype;
    ompi_communicator_t *comm;
    bool app_freed; /* MPI_Request_free came before zip was done */
    mca_pml_zip_head_t head;
    bool large; /* stage of MCA_PML_ZIP_SMALL_STAGE_BYTES, else MCA_PML_ZIP_LANDING_BYTES */
    /* persistent: the record lives from MPI_Recv_init to MPI_Request_free */
    bool persistent;
    bool busy; /* persistent: started, and its message not yet delivered */
    int src, tag;
    ompi_request_start_fn_t inner_start;   /* the wrapped PML's, while zip's stands in */
    ompi_request_cancel_fn_t inner_cancel; /* the same */
    mca_pml_zip_request_t *via; /* a start a zip request serves (the stash, a caller's callback) */
    /* In place: what the buffer's first bytes were, to put back what an envelope covered.
     * Landed: the landing buffer itself (as a zip request's stage, pml_zip_landing.c). Sized
     * per record: a pending receive of a program without threads costs no 4 KiB stage. */
    char stage[];
};

/* Who releases a threaded record and its request: the first to leave DIRECT_ACTIVE decides.
 * DIRECT_APP_FREED: MPI_Request_free came while zip was not done, zip frees the request once
 * it is. DIRECT_DONE: zip is done, the application's free (MPI_Wait's, MPI_Request_free)
 * releases the record and hands the request back. */
enum { DIRECT_ACTIVE, DIRECT_APP_FREED, DIRECT_DONE };

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define DIRECT_CACHED_MAX 0 /* ASan must see a record used after its release */
/* Kept, so that the sanitizer runs test the per-thread caches, and poisoned while cached
 * (below), so that a use after release is still caught. */
#define DIRECT_THREAD_CACHED_MAX 32
#else
#define DIRECT_CACHED_MAX 256
#define DIRECT_THREAD_CACHED_MAX 32
#endif
/* The lists below; taken only under MPI_THREAD_MULTIPLE (OPAL_THREAD_LOCK). */
static opal_mutex_t direct_lock = OPAL_MUTEX_STATIC_INIT;
static mca_pml_zip_direct_t *free_list[2]; /* by `large` */
static int n_free[2];
/* Under MPI_THREAD_MULTIPLE each thread keeps a few records of its own, so that a receive
 * posted and released by threads that do so all the time takes no lock: threads receiving at
 * once would otherwise all meet on direct_lock twice per receive. A thread that ends gives its
 * records to the shared lists (cache_key's destructor). */
typedef struct {
    mca_pml_zip_direct_t *head[2]; /* by `large` */
    int n[2];
    bool registered; /* cache_key set for this thread */
} direct_thread_cache_t;
static __thread direct_thread_cache_t thread_cache;
static pthread_key_t cache_key;
static bool cache_key_made;
/* Envelopes whose payload zip's progress has to receive, and requests it has to free. */
static mca_pml_zip_direct_t *to_continue, **to_continue_end = &to_continue; /* in order */
static mca_pml_zip_direct_t *to_free;
volatile int32_t mca_pml_zip_direct_pending;
/* The wrapped PML's start links a started receive to its request before it can match (ob1). */
static bool start_links_first;
/* Else, under MPI_THREAD_MULTIPLE: the wrapped PML's completions can be fenced (pml/ucx,
 * pml_zip_ucx_fence.c), so a callback attached after the post is either seen or missed, never
 * lost. */
static bool fence_after_post;

static size_t record_bytes(bool large)
{
    return offsetof(mca_pml_zip_direct_t, stage) +
           (large ? MCA_PML_ZIP_SMALL_STAGE_BYTES : MCA_PML_ZIP_LANDING_BYTES) +
           MCA_PML_ZIP_STAGE_GAP;
}

/* A record in a thread's cache: nothing but its link may be read (ASan builds check it). */
static void cached_poison(mca_pml_zip_direct_t *d, bool large)
{
#if defined(__SANITIZE_ADDRESS__)
    ASAN_POISON_MEMORY_REGION((char *)d + sizeof(d->next), record_bytes(large) - sizeof(d->next));
#else
    (void)d;
    (void)large;
#endif
}

static void cached_unpoison(mca_pml_zip_direct_t *d, bool large)
{
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(d, record_bytes(large));
#else
    (void)d;
    (void)large;
#endif
}

/* Into the shared lists, or freed once they hold DIRECT_CACHED_MAX. */
static void shared_put(mca_pml_zip_direct_t *d)
{
    OPAL_THREAD_LOCK(&direct_lock);
    const bool keep = n_free[d->large] < DIRECT_CACHED_MAX;
    if (keep) {
        d->next = free_list[d->large];
        free_list[d->large] = d;
        ++n_free[d->large];
    }
    OPAL_THREAD_UNLOCK(&direct_lock);
    if (!keep) {
        free(d);
    }
}

static void thread_cache_drain(direct_thread_cache_t *c)
{
    for (int large = 0; large < 2; ++large) {
        while (NULL != c->head[large]) {
            mca_pml_zip_direct_t *d = c->head[large];
            c->head[large] = d->next;
            cached_unpoison(d, large);
            shared_put(d);
        }
        c->n[large] = 0;
    }
}

/* A thread ends: its records go to the shared lists. */
static void thread_cache_release(void *cache)
{
    thread_cache_drain(cache);
    ((direct_thread_cache_t *)cache)->registered = false;
}

void mca_pml_zip_direct_init(void)
{
    start_links_first =
        0 == strcmp(mca_pml_zip_wrapped_component.pmlm_version.mca_component_name, "ob1");
    fence_after_post = !start_links_first && mca_pml_zip_ucx_fence_init();
    cache_key_made = 0 == pthread_key_create(&cache_key, thread_cache_release);
    opal_output_verbose(1, mca_pml_zip_component.output,
                        "pml:zip: MPI_Irecv under MPI_THREAD_MULTIPLE: %s",
                        start_links_first  ? "the wrapped PML's request, started"
                        : fence_after_post ? "the wrapped PML's request, fenced"
                                           : "a zip request (no fence for this PML)");
}

static mca_pml_zip_direct_t *direct_get(bool large)
{
    mca_pml_zip_direct_t *d = NULL;
    if (opal_using_threads()) {
        direct_thread_cache_t *c = &thread_cache;
        d = c->head[large];
        if (NULL != d) {
            c->head[large] = d->next;
            --c->n[large];
            cached_unpoison(d, large);
            return d;
        }
    }
    OPAL_THREAD_LOCK(&direct_lock);
    d = free_list[large];
    if (NULL != d) {
        free_list[large] = d->next;
        --n_free[large];
    }
    OPAL_THREAD_UNLOCK(&direct_lock);
    if (NULL == d) {
        d = malloc(record_bytes(large));
        if (NULL != d) {
            d->large = large;
        }
    }
    return d;
}

/* Handles that MPI never frees before MPI_Finalize need no reference of zip's (Open MPI's
 * datatype macros skip predefined types likewise). */
static void retain_handles(ompi_datatype_t *dtype, ompi_communicator_t *comm)
{
    OMPI_DATATYPE_RETAIN(dtype);
    if (!OMPI_COMM_IS_INTRINSIC(comm)) {
        OBJ_RETAIN(comm);
    }
}

static void release_handles(ompi_datatype_t *dtype, ompi_communicator_t *comm)
{
    OMPI_DATATYPE_RELEASE(dtype);
    if (!OMPI_COMM_IS_INTRINSIC(comm)) {
        OBJ_RELEASE(comm);
    }
}

static void direct_put(mca_pml_zip_direct_t *d)
{
    if (d->persistent) {
        mca_pml_zip_persistent_forget(d->inner);
    }
    release_handles(d->dtype, d->comm);
    if (opal_using_threads() && cache_key_made) {
        direct_thread_cache_t *c = &thread_cache;
        if (c->n[d->large] < DIRECT_THREAD_CACHED_MAX) {
            if (!c->registered) {
                c->registered = 0 == pthread_setspecific(cache_key, c);
            }
            if (c->registered) {
                const bool large = d->large;
                d->next = c->head[large];
                c->head[large] = d;
                ++c->n[large];
                cached_poison(d, large);
                return;
            }
        }
    }
    shared_put(d);
}

void mca_pml_zip_direct_fini(void)
{
    /* Other threads' records stay with them (and are lost if they outlive the component):
     * their destructor must not run once this library may be unloaded. */
    if (cache_key_made) {
        thread_cache_drain(&thread_cache);
        thread_cache.registered = false;
        (void)pthread_key_delete(cache_key);
        cache_key_made = false;
    }
    for (int large = 0; large < 2; ++large) {
        while (NULL != free_list[large]) {
            mca_pml_zip_direct_t *d = free_list[large];
            free_list[large] = d->next;
            free(d);
        }
        n_free[large] = 0;
    }
}

static void push_free(mca_pml_zip_direct_t *d)
{
    OPAL_THREAD_LOCK(&direct_lock);
    d->next = to_free;
    to_free = d;
    opal_atomic_add_fetch_32(&mca_pml_zip_direct_pending, 1);
    OPAL_THREAD_UNLOCK(&direct_lock);
}

static void push_continue(mca_pml_zip_direct_t *d)
{
    OPAL_THREAD_LOCK(&direct_lock);
    d->next = NULL;
    *to_continue_end = d;
    to_continue_end = &d->next;
    opal_atomic_add_fetch_32(&mca_pml_zip_direct_pending, 1);
    OPAL_THREAD_UNLOCK(&direct_lock);
}

/* Leaves DIRECT_ACTIVE for `to`; false: the other side left it first. */
static bool direct_settle(mca_pml_zip_direct_t *d, int32_t to)
{
    int32_t active = DIRECT_ACTIVE;
    return opal_atomic_compare_exchange_strong_32(&d->state, &active, to);
}

/* Zip is done with the wrapped request: it is the wrapped PML's again. */
static void hand_back(mca_pml_zip_direct_t *d)
{
    d->inner->req_free = d->inner_free;
    d->inner->req_complete_cb_data = NULL;
    if (d->persistent) {
        d->inner->req_start = d->inner_start;
        d->inner->req_cancel = d->inner_cancel;
    }
    if (d->started) {
        d->inner->req_persistent = true; /* as irecv_init made it (ucx sets it only once) */
    }
}

/* While zip is not done: the application's MPI_Request_free is remembered, not carried out. */
static int direct_free(ompi_request_t **request)
{
    mca_pml_zip_direct_t *d = (*request)->req_persistent
                                  ? mca_pml_zip_persistent_find(*request)
                                  : (mca_pml_zip_direct_t *)(*request)->req_complete_cb_data;
    if (d->threaded) {
        if (!direct_settle(d, DIRECT_APP_FREED)) {
            /* Zip was done with it (or it is an inactive persistent request): the record
             * goes, the wrapped PML frees its request. Whoever settled it may still be between
             * that and marking the request complete (a few instructions): ob1 would put a
             * request it has finished with back in its free list at once, and another receive
             * could take it before that mark. */
            ompi_request_t *inner = *request;
            while (REQUEST_COMPLETED != inner->req_complete) {
                opal_atomic_rmb();
            }
            hand_back(d);
            direct_put(d);
            return inner->req_free(request);
        }
        /* Still active: released once complete (direct_completed, direct_finish). */
        *request = MPI_REQUEST_NULL;
        return OMPI_SUCCESS;
    }
    if (d->persistent && !d->busy) {
        ompi_request_t *inner = *request;
        hand_back(d);
        direct_put(d);
        return inner->req_free(request);
    }
    d->app_freed = true;
    *request = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

/* A message of n bytes that landed in d's stage (at data): as many of its bytes as the
 * application's buffer takes. */
static void deliver_landed(mca_pml_zip_direct_t *d, const char *data, size_t n)
{
    ompi_status_public_t *st = &d->inner->req_status;
    memcpy(d->base, data, n < d->cap ? n : d->cap);
    st->_ucount = n < d->cap ? n : d->cap;
    if (n > d->cap) {
        st->MPI_ERROR = MPI_ERR_TRUNCATE;
    }
}

/* The first message arrived in the application's buffer. true: it is an envelope, whose
 * payload is still to come (d is then on the list for zip's progress). */
static bool first_arrived(mca_pml_zip_direct_t *d)
{
    ompi_status_public_t *st = &d->inner->req_status;
    const size_t n = st->_ucount;
    if (st->_cancelled || MPI_SUCCESS != st->MPI_ERROR) {
        if (d->landed && !st->_cancelled) {
            st->_ucount = n < d->cap ? n : d->cap; /* longer than the stage: as a zip request */
        }
        return false; /* cancelled, truncated: as the wrapped PML reports it */
    }
    if (MCA_PML_ZIP_ENVELOPE_BYTES != n) {
        mca_pml_zip_count_received(); /* bare: the application's data, read without a head */
        if (d->landed) {
            deliver_landed(d, mca_pml_zip_stage_bytes_of(d->stage, d->stage_bytes, n), n);
        }
        return false;
    }
    mca_pml_zip_head_t head;
    bool framed;
    const char *data = mca_pml_zip_first_arrived(d->landed ? NULL : d->base, d->stage,
                                                 d->stage_bytes, NULL, n, &head, &framed);
    if (!framed) {
        if (d->landed) {
            deliver_landed(d, data, n); /* 14 bytes not from zip */
        }
        return false; /* in place: 14 bytes not from zip, delivered as they came */
    }
    mca_pml_zip_observe_hint(d->comm, st->MPI_SOURCE, head.link_hint);
    d->head = head;
    push_continue(d);
    return true;
}

static int direct_completed(ompi_request_t *inner)
{
    mca_pml_zip_direct_t *d = (mca_pml_zip_direct_t *)inner->req_complete_cb_data;
    if (first_arrived(d)) {
        return 1; /* completed by mca_pml_zip_direct_finish once the payload is in */
    }
    if (d->threaded) {
        if (!direct_settle(d, DIRECT_DONE)) {
            push_free(d); /* freed already by the application */
        }
        return 0;
    }
    if (d->app_freed) {
        push_free(d); /* freed by zip's progress, outside the wrapped PML's completion */
        return 0;
    }
    if (d->persistent) {
        d->busy = false;
        return 0;
    }
    hand_back(d);
    direct_put(d);
    return 0;
}

/* The request completed before anyone but zip held it, without the callback: zip does what the
 * callback would have done. An envelope's request is pending again before it goes on the list,
 * where zip's progress (in any thread) completes it once the payload is in. */
static void direct_completed_unseen(mca_pml_zip_direct_t *d, ompi_request_t *inner)
{
    inner->req_complete = REQUEST_PENDING;
    opal_atomic_wmb();
    if (!first_arrived(d)) {
        inner->req_complete = REQUEST_COMPLETED;
        hand_back(d);
        direct_put(d);
    }
}

/* Posts d's first message's receive (inactive: with irecv_init, to be started) into the stage
 * or the application's buffer, with zip's record and free function on it. */
static int direct_post(mca_pml_zip_direct_t *d, int src, int tag, bool inactive,
                       ompi_request_t **out)
{
    ompi_request_t *inner = NULL;
    int rc;
    if (d->landed) {
        rc = (inactive ? mca_pml_zip_stage_irecv_init : mca_pml_zip_stage_irecv)(
            d->stage, d->stage_bytes, src, tag, d->comm, &inner);
    } else {
        rc = (inactive ? mca_pml_zip_wrapped.pml_irecv_init : mca_pml_zip_wrapped.pml_irecv)(
            d->buf, d->count, d->dtype, src, tag, d->comm, &inner);
    }
    if (OMPI_SUCCESS != rc) {
        direct_put(d);
        return rc;
    }
    d->inner = inner;
    d->inner_free = inner->req_free;
    inner->req_complete_cb_data = d;
    inner->req_free = direct_free;
    *out = inner;
    return OMPI_SUCCESS;
}

/* Under MPI_THREAD_MULTIPLE: posted inactive, its callback in place before it can complete. */
static int direct_start_threaded(mca_pml_zip_direct_t *d, int src, int tag,
                                 ompi_request_t **request)
{
    ompi_request_t *inner = NULL;
    int rc = direct_post(d, src, tag, true, &inner);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    d->started = true;
    inner->req_persistent = false;
    inner->req_complete_cb = direct_completed;
    opal_atomic_wmb();
    rc = mca_pml_zip_wrapped.pml_start(1, &inner);
    if (OMPI_SUCCESS != rc) {
        inner->req_complete_cb = NULL;
        hand_back(d);
        direct_put(d);
        ompi_request_free(&inner);
        return rc;
    }
    /* From here on it may complete at any time, its callback with it. */
    *request = inner;
    return OMPI_SUCCESS;
}

/* Under MPI_THREAD_MULTIPLE, over a PML whose completions can be fenced: posted, given its
 * callback, fenced. Whatever completed the request before that did so without the callback;
 * nobody else holds the request yet, so zip does here what the callback would have done. */
static int direct_post_fenced(mca_pml_zip_direct_t *d, int src, int tag, ompi_request_t **request)
{
    ompi_request_t *inner = NULL;
    int rc = direct_post(d, src, tag, false, &inner);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    opal_atomic_wmb();
    inner->req_complete_cb = direct_completed;
    opal_atomic_mb();
    mca_pml_zip_ucx_fence();
    /* Complete now: the completion is over (the fence), and the callback either ran (it took
     * itself off) or was missed. Pending: whoever completes it runs the callback. */
    if (REQUEST_COMPLETED == inner->req_complete &&
        NULL != opal_atomic_swap_ptr(&inner->req_complete_cb, (intptr_t)NULL)) {
        direct_completed_unseen(d, inner);
    }
    *request = inner;
    return OMPI_SUCCESS;
}

/* A record for a receive into buf, or NULL: not contiguous, direct receives are off, or
 * threaded over a PML whose start loses completions and that zip cannot fence. */
static mca_pml_zip_direct_t *direct_make(void *buf, size_t count, ompi_datatype_t *dtype,
                                         ompi_communicator_t *comm, bool threaded)
{
    char *base;
    if (!mca_pml_zip_component.direct_recv ||
        (threaded && !start_links_first && !fence_after_post) ||
        NULL == (base = zip_ompi_contiguous_base(buf, count, dtype))) {
        return NULL;
    }
    const size_t cap = dtype->super.size * count;
    const bool landed =
        cap < MCA_PML_ZIP_LANDING_BYTES || (threaded && cap <= MCA_PML_ZIP_SMALL_STAGE_BYTES);
    const size_t stage_bytes = mca_pml_zip_landing_stage_bytes(cap);
    mca_pml_zip_direct_t *d = direct_get(landed && stage_bytes > MCA_PML_ZIP_LANDING_BYTES);
    if (NULL == d) {
        return NULL;
    }
    d->threaded = threaded;
    d->started = false;
    d->state = DIRECT_ACTIVE;
    d->cap = cap;
    d->landed = landed;
    d->stage_bytes = stage_bytes;
    d->base = base;
    d->buf = buf;
    d->count = count;
    d->dtype = dtype;
    d->comm = comm;
    d->app_freed = false;
    d->persistent = false;
    d->busy = false;
    d->via = NULL;
    /* An envelope's payload is received with them, after the application may have freed its
     * own handles (MPI lets it; pml/ucx keeps no reference). */
    retain_handles(dtype, comm);
    return d;
}

int mca_pml_zip_direct_irecv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                             ompi_communicator_t *comm, ompi_request_t **request)
{
    mca_pml_zip_direct_t *d;
    if (!mca_pml_zip_stash_empty() ||
        NULL == (d = direct_make(buf, count, dtype, comm, opal_using_threads()))) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    if (!d->landed) {
        memcpy(d->stage, d->base, MCA_PML_ZIP_LANDING_BYTES);
    }
    if (d->threaded) {
        return start_links_first ? direct_start_threaded(d, src, tag, request)
                                 : direct_post_fenced(d, src, tag, request);
    }
    ompi_request_t *inner = NULL;
    int rc = direct_post(d, src, tag, false, &inner);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (REQUEST_COMPLETED == inner->req_complete) {
        direct_completed_unseen(d, inner); /* matched and delivered inside the irecv */
    } else {
        inner->req_complete_cb = direct_completed;
    }
    *request = inner;
    return OMPI_SUCCESS;
}

/* While a zip request serves a persistent start: the application's cancel is its. */
static int direct_cancel(ompi_request_t *inner, int complete)
{
    const mca_pml_zip_direct_t *d = mca_pml_zip_persistent_find(inner);
    mca_pml_zip_request_t *via = d->via;
    return NULL == via ? OMPI_SUCCESS : via->super.req_cancel(&via->super, complete);
}

/* A persistent start while the stash holds messages: a zip request takes the stashed message
 * that matches, or posts its receive as an MPI_Irecv's would, and completes d->inner. */
static int direct_start_via_zip(mca_pml_zip_direct_t *d)
{
    ompi_request_t *inner = d->inner;
    mca_pml_zip_request_t *req =
        mca_pml_zip_recv_request(d->buf, d->count, d->dtype, d->src, d->tag, d->comm, false);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    inner->req_state = OMPI_REQUEST_ACTIVE;
    inner->req_complete = REQUEST_PENDING;
    inner->req_status.MPI_ERROR = MPI_SUCCESS;
    inner->req_status._cancelled = 0;
    inner->req_cancel = direct_cancel;
    d->via = req;
    req->direct = d;
    const int rc = mca_pml_zip_recv_start(req);
    if (OMPI_SUCCESS != rc) {
        req->direct = NULL;
        d->via = NULL;
        inner->req_cancel = d->inner_cancel;
        inner->req_state = OMPI_REQUEST_INACTIVE;
        inner->req_complete = REQUEST_COMPLETED;
        req->super.req_state = OMPI_REQUEST_INACTIVE;
        mca_pml_zip_request_unref(req);
    }
    return rc;
}

int mca_pml_zip_direct_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        ompi_request_t *inner = requests[i];
        mca_pml_zip_direct_t *d = mca_pml_zip_persistent_find(inner);
        d->busy = true;
        if (d->threaded) {
            /* Inactive until now: nobody else touches the record (MPI_Start of an active
             * request is erroneous). From here on its completion and the application's free
             * race, and the first to leave DIRECT_ACTIVE decides. */
            d->state = DIRECT_ACTIVE;
            opal_atomic_wmb();
        }
        int rc;
        if (NULL != inner->req_complete_cb || !mca_pml_zip_stash_empty()) {
            rc = direct_start_via_zip(d);
        } else {
            if (!d->landed) {
                memcpy(d->stage, d->base, MCA_PML_ZIP_LANDING_BYTES);
            }
            inner->req_complete_cb_data = d;
            inner->req_complete_cb = direct_completed;
            rc = d->inner_start(1, &requests[i]);
            if (OMPI_SUCCESS != rc) {
                inner->req_complete_cb = NULL;
            }
        }
        if (OMPI_SUCCESS != rc) {
            d->busy = false;
            d->state = DIRECT_DONE;
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

int mca_pml_zip_direct_irecv_init(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                                  ompi_communicator_t *comm, ompi_request_t **request)
{
    mca_pml_zip_direct_t *d;
    /* Under MPI_THREAD_MULTIPLE each start's completion races the application's free as an
     * MPI_Irecv's does (state, per start), and the wrapped start must link the receive to its
     * request before it can match: ob1's does, pml/ucx's does not (zip requests there). */
    const bool threaded = opal_using_threads();
    if ((threaded && !start_links_first) ||
        NULL == (d = direct_make(buf, count, dtype, comm, threaded))) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    d->state = DIRECT_DONE; /* inactive: the application's free releases it */
    d->src = src;
    d->tag = tag;
    ompi_request_t *inner = NULL;
    int rc = direct_post(d, src, tag, true, &inner);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (!mca_pml_zip_persistent_add(inner, d)) {
        hand_back(d); /* not in the table: a zip request instead */
        direct_put(d);
        ompi_request_free(&inner);
        return OMPI_ERR_NOT_SUPPORTED;
    }
    d->persistent = true;
    d->inner_start = inner->req_start;
    d->inner_cancel = inner->req_cancel;
    inner->req_start = mca_pml_zip_direct_start;
    *request = inner;
    return OMPI_SUCCESS;
}

void mca_pml_zip_direct_finish(mca_pml_zip_direct_t *d, int source, int tag, size_t count,
                               int error, int cancelled)
{
    ompi_request_t *inner = d->inner;
    inner->req_status.MPI_SOURCE = source;
    inner->req_status.MPI_TAG = tag;
    inner->req_status.MPI_ERROR = error;
    inner->req_status._ucount = count;
    inner->req_status._cancelled = cancelled;
    if (NULL != d->via) {
        d->via = NULL;
        inner->req_cancel = d->inner_cancel;
    }
    if (d->threaded) {
        if (direct_settle(d, DIRECT_DONE)) {
            ompi_request_complete(inner, true); /* the application's free releases d */
            return;
        }
    } else if (d->persistent && !d->app_freed) {
        d->busy = false;
        ompi_request_complete(inner, true);
        return;
    }
    const bool freed = d->threaded || d->app_freed;
    hand_back(d);
    direct_put(d);
    if (freed) {
        ompi_request_free(&inner);
    } else {
        ompi_request_complete(inner, true);
    }
}

/* The next record of a list whose wrapped request has left ompi_request_complete (another
 * thread may still be in it: its callback pushed the record), or NULL. */
static mca_pml_zip_direct_t *pop_settled(mca_pml_zip_direct_t **list, bool continuing)
{
    OPAL_THREAD_LOCK(&direct_lock);
    mca_pml_zip_direct_t *d = *list;
    if (NULL != d) {
        opal_atomic_rmb();
        /* Freed: the request completes last. Held for its payload: the callback is taken off
         * last. */
        const bool settled = continuing ? NULL == d->inner->req_complete_cb
                                        : REQUEST_COMPLETED == d->inner->req_complete;
        if (!settled) {
            d = NULL;
        } else {
            *list = d->next;
            if (continuing && NULL == to_continue) {
                to_continue_end = &to_continue;
            }
            opal_atomic_add_fetch_32(&mca_pml_zip_direct_pending, -1);
        }
    }
    OPAL_THREAD_UNLOCK(&direct_lock);
    return d;
}

int mca_pml_zip_direct_progress(void)
{
    int n = 0;
    mca_pml_zip_direct_t *d;
    while (NULL != (d = pop_settled(&to_free, false))) {
        ompi_request_t *inner = d->inner;
        hand_back(d);
        direct_put(d);
        ompi_request_free(&inner);
        ++n;
    }
    while (NULL != (d = pop_settled(&to_continue, true))) {
        const int source = d->inner->req_status.MPI_SOURCE;
        const int tag = d->inner->req_status.MPI_TAG;
        mca_pml_zip_request_t *req =
            mca_pml_zip_recv_request(d->buf, d->count, d->dtype, source, tag, d->comm, false);
        if (NULL == req) {
            mca_pml_zip_direct_finish(d, source, tag, 0, MPI_ERR_NO_MEM, 0);
            continue;
        }
        req->direct = d; /* completes d->inner (mca_pml_zip_request_complete) */
        mca_pml_zip_recv_first(req, source, tag, &d->head, NULL);
        ++n;
    }
    return n;
}
