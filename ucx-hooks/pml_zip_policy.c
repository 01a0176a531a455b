/*
 * Which traffic zip handles. Both ends must reach the same answer without talking, so the
 * rule uses only what MPI guarantees to agree between matching sends and receives: the
 * communicator's setting, the application tag range, and the type signature (binary64-only
 * or binary32-only), never the local count or the datatype handle.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opal/datatype/opal_datatype.h"
#include "opal/mca/hwloc/hwloc-internal.h"
#include "opal/util/info_subscriber.h"
#include "ompi/proc/proc.h"

#include "pml_zip.h"

int mca_pml_zip_elem_class(const ompi_datatype_t *dtype)
{
    /* bdt_used is the set of basic types in the signature, derived types included; compare
     * with the predefined types' sets (complex values are pairs of reals to the codecs). */
    const uint32_t used = dtype->super.bdt_used;
    if (used == MPI_DOUBLE->super.bdt_used || used == MPI_C_DOUBLE_COMPLEX->super.bdt_used) {
        return ZIP_TYPE_F64;
    }
    if (used == MPI_FLOAT->super.bdt_used || used == MPI_C_FLOAT_COMPLEX->super.bdt_used) {
        return ZIP_TYPE_F32;
    }
    return -1;
}

/* Per-communicator setting from the Info key, indexed by context id: -1 unset (the MCA
 * parameter decides), 0 off, 1 on. Written when the key changes (rare), read on every
 * float/double message, so the hot path never searches an MPI_Info. */
static int8_t *comm_setting;
static uint32_t comm_setting_len;

static int8_t parse_setting(const char *value)
{
    if (NULL == value) {
        return -1;
    }
    if (0 == strcasecmp(value, "true") || 0 == strcmp(value, "1") ||
        0 == strcasecmp(value, "yes")) {
        return 1;
    }
    if (0 == strcasecmp(value, "false") || 0 == strcmp(value, "0") ||
        0 == strcasecmp(value, "no")) {
        return 0;
    }
    return -1; /* "default" (our subscription's placeholder) or anything else */
}

static void set_comm_setting(ompi_communicator_t *comm, int8_t v)
{
    if (NULL != comm_setting && comm->c_contextid < comm_setting_len) {
        comm_setting[comm->c_contextid] = v;
    }
}

bool mca_pml_zip_may_compress(ompi_communicator_t *comm, int dst)
{
    if (mca_pml_zip_component.force_local) {
        return true;
    }
    /* Shared memory moves data faster than any codec. Only the sender decides this; the
     * receiver reads the decision from the header, so wildcard receives need not know. */
    ompi_proc_t *proc = ompi_comm_peer_lookup(comm, dst);
    return NULL == proc || !OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags);
}

bool mca_pml_zip_comm_enabled(ompi_communicator_t *comm)
{
    if (NULL != comm_setting && comm->c_contextid < comm_setting_len) {
        const int8_t v = comm_setting[comm->c_contextid];
        if (v >= 0) {
            return 1 == v;
        }
    }
    return 0 != mca_pml_zip_component.enable;
}

/* Called when the key is set (MPI_Comm_set_info, MPI_Comm_dup_with_info, and at subscription
 * with what the communicator already holds). MPI_Comm_set_info keeps only keys somebody
 * subscribed to; we keep ours as given. */
static char *zip_info_changed(opal_infosubscriber_t *obj, char *key, char *value)
{
    (void)key;
    /* The subscriber object is the communicator's first member. */
    set_comm_setting((ompi_communicator_t *)obj, parse_setting(value));
    return value;
}

int mca_pml_zip_add_comm(ompi_communicator_t *comm)
{
    if (NULL == comm_setting) {
        /* Context ids are below the wrapped PML's limit; 16 Mi entries at most. */
        uint64_t n = (uint64_t)mca_pml_zip_wrapped.pml_max_contextid + 1;
        comm_setting_len = (uint32_t)(n < (1u << 24) ? n : (1u << 24));
        comm_setting = malloc(comm_setting_len);
        if (NULL != comm_setting) {
            memset(comm_setting, -1, comm_setting_len);
        }
    }
    int rc = mca_pml_zip_wrapped.pml_add_comm(comm);
    if (OMPI_SUCCESS == rc) {
        set_comm_setting(comm, -1); /* a reused context id starts unset */
        /* The default must be a string (the subscriber saves a copy of it). */
        (void)opal_infosubscribe_subscribe(&comm->super, MCA_PML_ZIP_INFO_KEY, "default",
                                           zip_info_changed);
    }
    return rc;
}

int mca_pml_zip_del_comm(ompi_communicator_t *comm)
{
    set_comm_setting(comm, -1);
    /* Messages pulled out for this communicator can no longer be received. */
    mca_pml_zip_stash_drop_comm(comm);
    return mca_pml_zip_wrapped.pml_del_comm(comm);
}

void mca_pml_zip_policy_fini(void)
{
    free(comm_setting);
    comm_setting = NULL;
    comm_setting_len = 0;
}
