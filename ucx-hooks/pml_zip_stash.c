/*
 * Messages pulled out of the wrapped PML before a receive asked for them: envelopes a probe
 * had to read (their application count is inside), and whatever a matched probe took. They
 * wait here until a receive takes them. MPI's non-overtaking rule across the two places is
 * kept by comparing sequence numbers: before a pulled message of sender s is handed out, the
 * first matching message of s still queued in the wrapped PML is pulled too, and the earlier
 * of the candidates wins. Probes of inline messages pull nothing: their count is the wrapped
 * PML's minus the prefix.
 *
 * No lock is held across calls into the wrapped PML: those may run progress, and progress
 * may run completion callbacks that post receives.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"
#include "ompi/constants.h"

#include "pml_zip.h"

static opal_mutex_t stash_lock = OPAL_MUTEX_STATIC_INIT;
static opal_list_t stash;
static bool stash_ready;
static volatile int32_t n_stashed;

static void stash_entry_construct(mca_pml_zip_stash_entry_t *e)
{
    e->comm = NULL;
    e->data = NULL;
    e->buf = NULL;
    e->held = NULL;
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

/* Under the lock: the matching entry of one sender that it sent first. */
static mca_pml_zip_stash_entry_t *earliest_match(ompi_communicator_t *comm, int source, int tag)
{
    mca_pml_zip_stash_entry_t *e, *best = NULL;
    if (!stash_ready) {
        return NULL;
    }
    OPAL_LIST_FOREACH(e, &stash, mca_pml_zip_stash_entry_t)
    {
        if (entry_matches(e, comm, source, tag) &&
            (NULL == best || mca_pml_zip_seq_before(e->head.seq, best->head.seq))) {
            best = e;
        }
    }
    return best;
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

/* Receives a matched message of the wrapped PML (small: an envelope or an inline message,
 * already here under every eager protocol) into a new entry. */
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
        e->data = (char *)e->buf + MCA_PML_ZIP_PREFIX_BYTES;
    } else {
        /* Not from a zip sender: its bytes are the message. */
        e->head.shape = ZIP_SHAPE_INLINE;
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

/* Pulls the first match of (source, tag) queued in the wrapped PML, if there is one. */
static int pull_first(ompi_communicator_t *comm, int source, int tag,
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
    return pull(&msg, comm, st._ucount, out);
}

static void describe(const mca_pml_zip_stash_entry_t *e, int *msg_source, int *msg_tag,
                     size_t *count)
{
    *msg_source = e->source;
    *msg_tag = e->tag;
    *count = e->head.raw_bytes;
}

int mca_pml_zip_stash_match(ompi_communicator_t *comm, int source, int tag, bool take,
                            mca_pml_zip_stash_entry_t **taken, int *msg_source, int *msg_tag,
                            size_t *count)
{
    for (;;) {
        int from = -1;
        if (!mca_pml_zip_stash_empty()) {
            OPAL_THREAD_LOCK(&stash_lock);
            mca_pml_zip_stash_entry_t *e = first_match(comm, source, tag);
            from = (NULL != e) ? e->source : -1;
            OPAL_THREAD_UNLOCK(&stash_lock);
        }
        if (from >= 0) {
            /* An earlier message of that sender may still be queued: pull it to compare. */
            mca_pml_zip_stash_entry_t *m = NULL;
            int rc = pull_first(comm, from, tag, &m);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            if (NULL != m) {
                stash_put(m);
            }
            OPAL_THREAD_LOCK(&stash_lock);
            mca_pml_zip_stash_entry_t *best = earliest_match(comm, from, tag);
            if (NULL != best) {
                describe(best, msg_source, msg_tag, count);
                if (take) {
                    stash_remove(best);
                    *taken = best;
                }
            }
            OPAL_THREAD_UNLOCK(&stash_lock);
            if (NULL != best) {
                return 1;
            }
            continue; /* another thread took it: look again */
        }

        /* Nothing pulled matches: the wrapped PML's first match is the answer. */
        ompi_status_public_t st;
        int matched = 0;
        int rc = mca_pml_zip_wrapped.pml_iprobe(source, tag, comm, &matched, &st);
        if (OMPI_SUCCESS != rc || !matched) {
            return rc == OMPI_SUCCESS ? 0 : rc;
        }
        if (!take && ZIP_SHAPE_INLINE == mca_pml_zip_shape_of(st._ucount)) {
            *msg_source = st.MPI_SOURCE;
            *msg_tag = st.MPI_TAG;
            *count = st._ucount - MCA_PML_ZIP_PREFIX_BYTES;
            return 1;
        }
        mca_pml_zip_stash_entry_t *m = NULL;
        rc = pull_first(comm, st.MPI_SOURCE, tag, &m);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        if (NULL == m) {
            continue; /* a receive of another thread took it */
        }
        describe(m, msg_source, msg_tag, count);
        if (take) {
            *taken = m;
        } else {
            stash_put(m);
        }
        return 1;
    }
}

void mca_pml_zip_stash_drop_comm(ompi_communicator_t *comm)
{
    if (mca_pml_zip_stash_empty()) {
        return;
    }
    OPAL_THREAD_LOCK(&stash_lock);
    mca_pml_zip_stash_entry_t *e, *next;
    OPAL_LIST_FOREACH_SAFE(e, next, &stash, mca_pml_zip_stash_entry_t)
    {
        if (e->comm == comm) {
            stash_remove(e);
            OBJ_RELEASE(e);
        }
    }
    OPAL_THREAD_UNLOCK(&stash_lock);
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
