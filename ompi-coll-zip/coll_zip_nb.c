/*
 * Non-blocking collectives: zip's algorithms run as coroutines (algo/task.hpp) over a transport
 * that tests PML requests instead of waiting for them, and Open MPI's progress engine advances
 * them. A rank that computes and calls MPI_Test now and then thus still moves its data, and the
 * codec work (decoding a chunk that arrived, encoding the next) happens as the collective
 * progresses, inside opal_progress.
 *
 * Each call has its own codec context, tag (reserved from the communicator's non-blocking tag
 * range, as every non-blocking collective component does, so that calls in flight at once and
 * blocking calls never match each other's messages) and policy; the module's are left to the
 * blocking calls. Only the codec meter is shared: what these calls' data cost the codec counts
 * at the communicator's next agreement (a blocking call's), as the blocking calls' does.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <time.h>

#include "opal/runtime/opal_progress.h"
#include "opal/threads/mutex.h"
#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"

static mca_coll_zip_nb_t *active;
static opal_mutex_t active_lock = OPAL_MUTEX_STATIC_INIT;
static bool progress_registered;

/* ---- the testing transport: the blocking one plus `test` ---- */

static int pml_test(void *ctx, zip_req_t *req, int *done, size_t *len)
{
    (void)ctx;
    ompi_request_t *r = (ompi_request_t *)*req;
    /* Only the flag: ompi_request_test would call opal_progress, and this runs inside it. */
    *done = REQUEST_COMPLETE(r) ? 1 : 0;
    if (!*done) {
        return OMPI_SUCCESS;
    }
    if (NULL != len) {
        *len = r->req_status._ucount;
    }
    const int rc = r->req_status.MPI_ERROR;
    ompi_request_free(&r);
    *req = NULL;
    return rc;
}

/* The next tag of the communicator's non-blocking range (shared with every other component's
 * non-blocking collectives), the same on every rank because all ranks start their non-blocking
 * collectives in the same order; the range wraps as Open MPI's own components wrap it. */
static int reserve_tag(struct ompi_communicator_t *comm)
{
    int32_t old = __atomic_load_n(&comm->c_nbc_tag, __ATOMIC_RELAXED), tag;
    do {
        tag =
            old - 1 < MCA_COLL_BASE_TAG_NONBLOCKING_END ? MCA_COLL_BASE_TAG_NONBLOCKING_BASE : old;
    } while (!__atomic_compare_exchange_n(&comm->c_nbc_tag, &old, tag - 1, false, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return tag;
}

/* ---- the request the application holds ---- */

/* MPI lets the application free a communicator while calls on it are in flight; they complete
 * normally. pml/ucx's requests do not hold the communicator, and between transfers none may be
 * in flight, so the request holds it until the application has its result. */
static void request_hold(ompi_request_t *request, struct ompi_communicator_t *comm)
{
    OBJ_RETAIN(comm);
    request->req_mpi_object.comm = comm;
}

static void request_drop(ompi_request_t *request)
{
    if (NULL != request->req_mpi_object.comm) {
        OBJ_RELEASE(request->req_mpi_object.comm);
        request->req_mpi_object.comm = NULL;
    }
}

static int request_free(ompi_request_t **request)
{
    request_drop(*request);
    OMPI_REQUEST_FINI(*request);
    (*request)->req_state = OMPI_REQUEST_INVALID;
    OBJ_RELEASE(*request);
    *request = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int request_cancel(ompi_request_t *request, int complete)
{
    (void)request;
    (void)complete;
    return MPI_ERR_REQUEST; /* MPI: cancelling a collective is erroneous */
}

/* MPI_Ibcast and friends treat the request a collective returns as coll/base's
 * ompi_coll_base_nbc_request_t (to retain derived datatypes until completion they write past an
 * ompi_request_t), so it must be one. Its header needs ompi/op/op.h, which needs Fortran
 * headers Debian does not ship; the class itself is all we use, and it knows its size. */
extern opal_class_t ompi_coll_base_nbc_request_t_class;

static ompi_request_t *request_new(void)
{
    ompi_request_t *r = (ompi_request_t *)opal_obj_new(&ompi_coll_base_nbc_request_t_class);
    if (NULL == r) {
        return NULL;
    }
    OMPI_REQUEST_INIT(r, false);
    r->req_state = OMPI_REQUEST_ACTIVE;
    r->req_type = OMPI_REQUEST_COLL;
    r->req_free = request_free;
    r->req_cancel = request_cancel;
    r->req_status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->req_status.MPI_TAG = MPI_ANY_TAG;
    r->req_status.MPI_ERROR = MPI_SUCCESS;
    r->req_status._cancelled = 0;
    r->req_status._ucount = 0;
    return r;
}

/* ---- progress ---- */

static void finish(mca_coll_zip_nb_t *nb)
{
    const int algo_rc = zip_algo_call_finish(nb->call);
    nb->call = NULL;
    ompi_request_t *request = nb->request;
    int rc = mca_coll_zip_account(nb->op, nb->comm, -1, algo_rc, &nb->result, &nb->binding);
    if (OMPI_SUCCESS == rc && NULL != nb->complete) {
        rc = nb->complete(nb);
    }
    request->req_status.MPI_ERROR = rc;
    mca_coll_zip_nb_release(nb);
    ompi_request_complete(request, true);
}

/* Advances every call in flight; runs inside opal_progress. The lock is only tried: a thread
 * already in here (or this thread, re-entered from a PML call below) does the work. */
static int progress(void)
{
    if (0 != opal_mutex_trylock(&active_lock)) {
        return 0;
    }
    int events = 0;
    for (mca_coll_zip_nb_t **link = &active; NULL != *link;) {
        mca_coll_zip_nb_t *nb = *link;
        if (zip_algo_call_advance(nb->call)) {
            *link = nb->next;
            finish(nb);
            ++events;
        } else {
            link = &nb->next;
        }
    }
    opal_mutex_unlock(&active_lock);
    return events;
}

int mca_coll_zip_nb_begin(mca_coll_zip_nb_t *nb, mca_coll_zip_module_t *m,
                          struct ompi_communicator_t *comm, int op)
{
    nb->comm = comm;
    nb->op = op;
    nb->policy = m->call_policy;
    nb->codec_ctx = mca_coll_zip_codec_take();
    nb->request = request_new();
    if (NULL == nb->codec_ctx || NULL == nb->request) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    request_hold(nb->request, comm);
    mca_coll_zip_transport_init(&nb->transport, comm);
    nb->transport.test = pml_test;
    /* These calls advance inside opal_progress: they suspend instead of calling it again
     * (let_sends_move in algo/task.hpp). */
    nb->transport.progress = NULL;
    nb->binding = (zip_algo_codec_binding_t){
        .codec = nb->codec_ctx,
        .corrupt_every = mca_coll_zip_component.inject_corruption,
        .meter = &m->meter, /* m lives while comm does, which the request holds */
    };
    zip_algo_codec_bind(&nb->codec, &nb->binding);
    nb->tag = reserve_tag(comm);
    return OMPI_SUCCESS;
}

int mca_coll_zip_nb_start(mca_coll_zip_nb_t *nb, zip_algo_call_t *call,
                          struct ompi_request_t **request)
{
    if (NULL == call) {
        mca_coll_zip_nb_release(nb);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    nb->call = call;
    nb->handed_out = true;
    *request = nb->request;
    opal_mutex_lock(&active_lock);
    if (!progress_registered) {
        progress_registered = OPAL_SUCCESS == opal_progress_register(progress);
    }
    /* The first advance posts the first transfers and codes what goes first. */
    if (zip_algo_call_advance(call)) {
        opal_mutex_unlock(&active_lock);
        finish(nb);
        return OMPI_SUCCESS;
    }
    nb->next = active;
    active = nb;
    opal_mutex_unlock(&active_lock);
    return OMPI_SUCCESS;
}

void mca_coll_zip_nb_release(mca_coll_zip_nb_t *nb)
{
    if (NULL != nb->request && !nb->handed_out) {
        request_drop(nb->request);
        OBJ_RELEASE(nb->request);
    }
    if (NULL != nb->call) {
        (void)zip_algo_call_finish(nb->call);
    }
    mca_coll_zip_codec_give(nb->codec_ctx);
    if (NULL != nb->release) {
        nb->release(nb); /* frees nb itself */
    }
}

void mca_coll_zip_nb_fini(void)
{
    if (progress_registered) {
        opal_progress_unregister(progress);
        progress_registered = false;
    }
}
