/*
 * Messages that a probe pulled out of the wrapped PML to read their zip header (the
 * application's count is in there, the wire size is not it). They stay here, in arrival order,
 * until a receive matches them; every receive on an enabled communicator looks here first, so
 * MPI's non-overtaking order holds: anything still queued in the wrapped PML arrived later.
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/constants.h"

#include "pml_zip.h"

static opal_mutex_t stash_lock = OPAL_MUTEX_STATIC_INIT;
static opal_list_t stash;
static bool stash_ready;
static volatile int32_t n_stashed;

static void stash_entry_construct(mca_pml_zip_stash_entry_t *e)
{
    e->comm = NULL;
    e->wire = NULL;
    e->wire_len = 0;
}

static void stash_entry_destruct(mca_pml_zip_stash_entry_t *e)
{
    mca_pml_zip_buf_put(e->wire);
    if (NULL != e->comm) {
        OBJ_RELEASE(e->comm);
    }
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

static mca_pml_zip_stash_entry_t *stash_find(ompi_communicator_t *comm, int source, int tag,
                                             bool remove)
{
    mca_pml_zip_stash_entry_t *e, *found = NULL;

    opal_mutex_lock(&stash_lock);
    if (stash_ready) {
        OPAL_LIST_FOREACH(e, &stash, mca_pml_zip_stash_entry_t)
        {
            if (entry_matches(e, comm, source, tag)) {
                found = e;
                break;
            }
        }
        if (NULL != found && remove) {
            opal_list_remove_item(&stash, &found->super);
            opal_atomic_add_fetch_32(&n_stashed, -1);
        }
    }
    opal_mutex_unlock(&stash_lock);
    return found;
}

mca_pml_zip_stash_entry_t *mca_pml_zip_stash_take(ompi_communicator_t *comm, int source, int tag)
{
    return stash_find(comm, source, tag, true);
}

mca_pml_zip_stash_entry_t *mca_pml_zip_stash_peek(ompi_communicator_t *comm, int source, int tag,
                                                  ompi_status_public_t *status)
{
    /* Status is filled under no lock: only the thread that takes an entry frees it, and a
     * probe racing a receive of the same message is already a race in the application. */
    mca_pml_zip_stash_entry_t *e = stash_find(comm, source, tag, false);
    if (NULL != e) {
        mca_pml_zip_stash_fill_status(e, status);
    }
    return e;
}

void mca_pml_zip_stash_put(mca_pml_zip_stash_entry_t *e)
{
    opal_mutex_lock(&stash_lock);
    if (!stash_ready) {
        OBJ_CONSTRUCT(&stash, opal_list_t);
        stash_ready = true;
    }
    opal_list_append(&stash, &e->super);
    opal_atomic_add_fetch_32(&n_stashed, 1);
    opal_mutex_unlock(&stash_lock);
}

void mca_pml_zip_stash_fill_status(const mca_pml_zip_stash_entry_t *e, ompi_status_public_t *status)
{
    if (MPI_STATUS_IGNORE == status) {
        return;
    }
    status->MPI_SOURCE = e->source;
    status->MPI_TAG = e->tag;
    status->MPI_ERROR = MPI_SUCCESS;
    status->_ucount = e->app_bytes;
    status->_cancelled = 0;
}

int mca_pml_zip_stash_deliver(mca_pml_zip_stash_entry_t *e, void *buf, size_t count,
                              ompi_datatype_t *dtype, ompi_status_public_t *status)
{
    size_t raw = e->wire_len;
    int rc;
    if (e->is_zip) {
        /* Decoded whatever the receive type: a zip message carries its own element type. */
        rc = mca_pml_zip_decode(e->wire, e->wire_len, buf, count, dtype, &raw);
    } else {
        rc = mca_pml_zip_unpack_bytes(e->wire, e->wire_len, buf, count, dtype);
    }
    mca_pml_zip_stash_fill_status(e, status);
    if (MPI_STATUS_IGNORE != status) {
        status->_ucount = raw;
        status->MPI_ERROR = rc;
    }
    OBJ_RELEASE(e);
    return rc;
}

int mca_pml_zip_stash_pull(ompi_message_t **inner_msg, ompi_communicator_t *comm,
                           const ompi_status_public_t *probed, mca_pml_zip_stash_entry_t **out)
{
    const size_t len = probed->_ucount;
    mca_pml_zip_stash_entry_t *e = OBJ_NEW(mca_pml_zip_stash_entry_t);
    if (NULL == e) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    e->wire = mca_pml_zip_buf_get(len > 0 ? len : 1);
    if (NULL == e->wire) {
        OBJ_RELEASE(e);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    ompi_status_public_t st;
    memset(&st, 0, sizeof(st));
    int rc = mca_pml_zip_wrapped.pml_mrecv(e->wire, len, MPI_BYTE, inner_msg, &st);
    if (OMPI_SUCCESS != rc) {
        OBJ_RELEASE(e);
        return rc;
    }
    OBJ_RETAIN(comm);
    e->comm = comm;
    e->source = st.MPI_SOURCE;
    e->tag = st.MPI_TAG;
    e->wire_len = st._ucount;
    mca_pml_zip_hdr_t hdr;
    e->is_zip = mca_pml_zip_parse(e->wire, e->wire_len, &hdr);
    e->app_bytes = e->is_zip ? hdr.raw_bytes : e->wire_len;
    opal_atomic_add_fetch_64((volatile int64_t *)&mca_pml_zip_component.counters.probes_peeked, 1);
    *out = e;
    return OMPI_SUCCESS;
}

void mca_pml_zip_stash_fini(void)
{
    opal_mutex_lock(&stash_lock);
    if (stash_ready) {
        OPAL_LIST_DESTRUCT(&stash);
        stash_ready = false;
        n_stashed = 0;
    }
    opal_mutex_unlock(&stash_lock);
}
