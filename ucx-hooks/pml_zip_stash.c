/*
 * Messages pulled out of the wrapped PML before a receive asked for them: envelopes a probe
 * had to read (their application count is inside), and what came before them from the same
 * sender. They wait here until a receive takes them.
 *
 * MPI's non-overtaking rule across the two places holds because the stash only ever takes a
 * sender's messages from the front of its queue: before an envelope of sender s is pulled out,
 * every message of s queued ahead of it is taken too (the wrapped PML's matched probe with
 * MPI_ANY_TAG hands them out in s's order; payloads, on negative tags, are not among them). So
 * everything stashed from s was sent before everything of s still queued, and the stash keeps
 * the order it took them in: the first stashed match is the one to see, and only when there is
 * none does the queue have a say. Taking a message is local: envelopes are received (14 bytes,
 * they travel eagerly), a bare message is kept as the wrapped PML's matched-message handle until
 * its receive. Probes of bare messages pull nothing: their count is the wrapped PML's.
 *
 * Matching runs under one lock (taken only where MPI threads may run at once) so that two
 * threads never take one sender's messages out of order. The lock is recursive: the wrapped
 * PML's calls under it run progress, and progress may run completion callbacks (osc/pt2pt's)
 * that post receives, which match here again on the same thread. That is safe: the stash
 * holds a front part of each sender's queue at every step, so the inner match sees MPI's order
 * as well.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"
#include "ompi/constants.h"

#include "pml_zip.h"

static opal_mutex_t stash_lock = OPAL_MUTEX_STATIC_INIT;
static opal_recursive_mutex_t match_lock = OPAL_RECURSIVE_MUTEX_STATIC_INIT;
static opal_list_t stash;
static bool stash_ready;
static volatile int32_t n_stashed;

static void stash_entry_construct(mca_pml_zip_stash_entry_t *e)
{
    e->comm = NULL;
    e->data = NULL;
    e->buf = NULL;
    e->held = NULL;
    e->wmsg = NULL;
    e->error = MPI_SUCCESS;
}

static void stash_entry_destruct(mca_pml_zip_stash_entry_t *e)
{
    mca_pml_zip_buf_put(e->buf);
    free(e->held);
}

OBJ_CLASS_INSTANCE(mca_pml_zip_stash_entry_t, opal_list_item_t, stash_entry_construct,
                   stash_entry_destruct);

bool mca_pml_zip_stash_empty(void)
{
    return 0 == n_stashed;
}

static bool entry_matches(const mca_pml_zip_stash_entry_t *e, ompi_communicator_t *comm, int source,
                          int tag)
{
    return e->comm == comm && (MPI_ANY_SOURCE == source || e->source == source) &&
           (MPI_ANY_TAG == tag || e->tag == tag);
}

/* Under the lock. */
static mca_pml_zip_stash_entry_t *first_match(ompi_communicator_t *comm, int source, int tag)
{
    mca_pml_zip_stash_entry_t *e;
    if (!stash_ready) {
        return NULL;
    }
    OPAL_LIST_FOREACH(e, &stash, mca_pml_zip_stash_entry_t)
    {
        if (entry_matches(e, comm, source, tag)) {
            return e;
        }
    }
    return NULL;
}

static void stash_put(mca_pml_zip_stash_entry_t *e)
{
    OPAL_THREAD_LOCK(&stash_lock);
    if (!stash_ready) {
        OBJ_CONSTRUCT(&stash, opal_list_t);
        stash_ready = true;
    }
    opal_list_append(&stash, &e->super);
    opal_atomic_add_fetch_32(&n_stashed, 1);
    OPAL_THREAD_UNLOCK(&stash_lock);
}

static void stash_remove(mca_pml_zip_stash_entry_t *e)
{
    opal_list_remove_item(&stash, &e->super);
    opal_atomic_add_fetch_32(&n_stashed, -1);
}

/* Receives a matched envelope of the wrapped PML (14 bytes: already here under every eager
 * protocol) into a new entry. */
static int pull(ompi_message_t **msg, ompi_communicator_t *comm, size_t len,
                mca_pml_zip_stash_entry_t **out)
{
    mca_pml_zip_stash_entry_t *e = OBJ_NEW(mca_pml_zip_stash_entry_t);
    if (NULL == e) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    e->buf = mca_pml_zip_buf_get(len > 0 ? len : 1);
    if (NULL == e->buf) {
        OBJ_RELEASE(e);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ompi_status_public_t st;
    memset(&st, 0, sizeof(st));
    int rc = mca_pml_zip_wrapped.pml_mrecv(e->buf, len, MPI_BYTE, msg, &st);
    if (OMPI_SUCCESS != rc) {
        OBJ_RELEASE(e);
        return rc;
    }
    e->comm = comm;
    e->source = st.MPI_SOURCE;
    e->tag = st.MPI_TAG;
    if (mca_pml_zip_head_parse(e->buf, st._ucount, &e->head)) {
        mca_pml_zip_observe_hint(comm, e->source, e->head.link_hint);
    } else {
        /* Not from a zip sender: its bytes are the message. */
        e->head.shape = ZIP_SHAPE_HELD;
        e->head.raw_bytes = st._ucount;
        e->data = e->buf;
        opal_output_verbose(1, mca_pml_zip_component.output,
                            "pml:zip: a %zu-byte message without zip framing (is pml/zip loaded "
                            "on every rank?)",
                            (size_t)st._ucount);
    }
    opal_atomic_add_fetch_64((volatile int64_t *)&mca_pml_zip_component.counters.probes_peeked, 1);
    *out = e;
    return OMPI_SUCCESS;
}

/* A matched message of the wrapped PML as a new entry: received if it is an envelope, else (a
 * bare message) kept as the handle. */
static int hold(ompi_message_t **msg, ompi_communicator_t *comm, const ompi_status_public_t *st,
                mca_pml_zip_stash_entry_t **out)
{
    const size_t len = st->_ucount;
    if (ZIP_SHAPE_ENVELOPE == mca_pml_zip_shape_of(len)) {
        return pull(msg, comm, len, out);
    }
    mca_pml_zip_stash_entry_t *e = OBJ_NEW(mca_pml_zip_stash_entry_t);
    if (NULL == e) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    e->comm = comm;
    e->source = st->MPI_SOURCE;
    e->tag = st->MPI_TAG;
    memset(&e->head, 0, sizeof(e->head));
    e->head.shape = ZIP_SHAPE_BARE;
    e->head.raw_bytes = len;
    e->wmsg = *msg;
    *msg = NULL;
    *out = e;
    return OMPI_SUCCESS;
}

/* Takes the first match of (source, tag) queued in the wrapped PML, if there is one. */
static int take_first(ompi_communicator_t *comm, int source, int tag,
                      mca_pml_zip_stash_entry_t **out)
{
    ompi_message_t *msg = NULL;
    ompi_status_public_t st;
    int matched = 0;
    *out = NULL;
    int rc = mca_pml_zip_wrapped.pml_improbe(source, tag, comm, &matched, &msg, &st);
    if (OMPI_SUCCESS != rc || !matched) {
        return rc;
    }
    return hold(&msg, comm, &st, out);
}

/* Moves sender s's queued messages into the stash, in order, up to the first that matches
 * tag (*out; NULL if none is queued any more). */
static int stash_through(ompi_communicator_t *comm, int s, int tag, mca_pml_zip_stash_entry_t **out)
{
    for (;;) {
        mca_pml_zip_stash_entry_t *m = NULL;
        int rc = take_first(comm, s, MPI_ANY_TAG, &m);
        *out = m;
        if (OMPI_SUCCESS != rc || NULL == m) {
            return rc;
        }
        stash_put(m);
        if (MPI_ANY_TAG == tag || m->tag == tag) {
            return OMPI_SUCCESS;
        }
    }
}

static void describe(const mca_pml_zip_stash_entry_t *e, int *msg_source, int *msg_tag,
                     size_t *count)
{
    *msg_source = e->source;
    *msg_tag = e->tag;
    *count = e->head.raw_bytes;
}

/* Under match_lock. */
static int match_locked(ompi_communicator_t *comm, int source, int tag, bool take,
                        mca_pml_zip_stash_entry_t **taken, int *msg_source, int *msg_tag,
                        size_t *count)
{
    if (!mca_pml_zip_stash_empty()) {
        OPAL_THREAD_LOCK(&stash_lock);
        mca_pml_zip_stash_entry_t *e = first_match(comm, source, tag);
        if (NULL != e) {
            describe(e, msg_source, msg_tag, count);
            if (take) {
                stash_remove(e);
                *taken = e;
            }
        }
        OPAL_THREAD_UNLOCK(&stash_lock);
        if (NULL != e) {
            return 1;
        }
    }

    /* Nothing stashed matches: the wrapped PML's first match is the answer. */
    ompi_status_public_t st;
    int matched = 0;
    int rc = mca_pml_zip_wrapped.pml_iprobe(source, tag, comm, &matched, &st);
    if (OMPI_SUCCESS != rc || !matched) {
        return rc == OMPI_SUCCESS ? 0 : rc;
    }
    const mca_pml_zip_shape_t shape = mca_pml_zip_shape_of(st._ucount);
    if (!take && ZIP_SHAPE_ENVELOPE != shape) {
        *msg_source = st.MPI_SOURCE;
        *msg_tag = st.MPI_TAG;
        *count = st._ucount;
        return 1;
    }
    mca_pml_zip_stash_entry_t *m = NULL;
    /* Taken to be handed over, it leaves no gap in the stash's order; kept, it must come with
     * what its sender queued ahead of it. */
    rc = take ? take_first(comm, st.MPI_SOURCE, tag, &m)
              : stash_through(comm, st.MPI_SOURCE, tag, &m);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL == m) {
        return 0; /* a receive of another thread took it */
    }
    describe(m, msg_source, msg_tag, count);
    if (take) {
        *taken = m;
    }
    return 1;
}

int mca_pml_zip_stash_match(ompi_communicator_t *comm, int source, int tag, bool take,
                            mca_pml_zip_stash_entry_t **taken, int *msg_source, int *msg_tag,
                            size_t *count)
{
    OPAL_THREAD_LOCK(&match_lock);
    int rc = match_locked(comm, source, tag, take, taken, msg_source, msg_tag, count);
    OPAL_THREAD_UNLOCK(&match_lock);
    return rc;
}

/* A bare message nobody will receive: the wrapped PML still holds it for its handle. */
static void discard_held(mca_pml_zip_stash_entry_t *e)
{
    if (NULL == e->wmsg) {
        return;
    }
    const size_t n = e->head.raw_bytes;
    void *sink = mca_pml_zip_buf_get(n);
    if (NULL != sink) {
        (void)mca_pml_zip_wrapped.pml_mrecv(sink, n, MPI_BYTE, &e->wmsg, MPI_STATUS_IGNORE);
        mca_pml_zip_buf_put(sink);
    }
    e->wmsg = NULL;
}

void mca_pml_zip_stash_drop_comm(ompi_communicator_t *comm)
{
    if (mca_pml_zip_stash_empty()) {
        return;
    }
    opal_list_t gone;
    OBJ_CONSTRUCT(&gone, opal_list_t);
    OPAL_THREAD_LOCK(&stash_lock);
    mca_pml_zip_stash_entry_t *e, *next;
    OPAL_LIST_FOREACH_SAFE(e, next, &stash, mca_pml_zip_stash_entry_t)
    {
        if (e->comm == comm) {
            stash_remove(e);
            opal_list_append(&gone, &e->super);
        }
    }
    OPAL_THREAD_UNLOCK(&stash_lock);
    /* Outside the lock: receiving what the wrapped PML still holds runs its progress. */
    OPAL_LIST_FOREACH_SAFE(e, next, &gone, mca_pml_zip_stash_entry_t)
    {
        opal_list_remove_item(&gone, &e->super);
        discard_held(e);
        OBJ_RELEASE(e);
    }
    OBJ_DESTRUCT(&gone);
}

void mca_pml_zip_stash_fini(void)
{
    OPAL_THREAD_LOCK(&stash_lock);
    if (stash_ready) {
        OPAL_LIST_DESTRUCT(&stash);
        stash_ready = false;
        n_stashed = 0;
    }
    OPAL_THREAD_UNLOCK(&stash_lock);
}
