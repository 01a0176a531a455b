/*
 * Which traffic zip handles. Both ends must reach the same answer without talking, so the
 * rule uses only what MPI guarantees to agree between matching sends and receives: the
 * communicator's setting, the application tag range, and the type signature (binary64-only
 * or binary32-only), never the local count or the datatype handle.
 */
#include "ompi_config.h"

#include <string.h>
#include <strings.h>

#include "opal/datatype/opal_datatype.h"
#include "opal/util/info_subscriber.h"

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

bool mca_pml_zip_comm_enabled(ompi_communicator_t *comm, int tag)
{
    /* Negative tags are Open MPI's collectives and internal protocols: never touched, so
     * that coll/zip frames are not compressed twice and MPI_PACKED/typed pairs still match. */
    if (tag < 0 && MPI_ANY_TAG != tag) {
        return false;
    }
    opal_info_t *info = comm->super.s_info;
    if (NULL != info) {
        char value[16];
        int flag = 0;
        if (OPAL_SUCCESS == opal_info_get(info, MCA_PML_ZIP_INFO_KEY, sizeof(value) - 1, value,
                                          &flag) && flag) {
            /* Anything else ("default", our subscription's placeholder) defers to the MCA
             * parameter. */
            if (0 == strcasecmp(value, "true") || 0 == strcmp(value, "1") ||
                0 == strcasecmp(value, "yes")) {
                return true;
            }
            if (0 == strcasecmp(value, "false") || 0 == strcmp(value, "0") ||
                0 == strcasecmp(value, "no")) {
                return false;
            }
        }
    }
    return 0 != mca_pml_zip_component.enable;
}

/* MPI_Comm_set_info keeps only keys somebody subscribed to; keep ours as given. */
static char *zip_info_changed(opal_infosubscriber_t *obj, char *key, char *value)
{
    (void) obj;
    (void) key;
    return value;
}

int mca_pml_zip_add_comm(ompi_communicator_t *comm)
{
    int rc = mca_pml_zip_wrapped.pml_add_comm(comm);
    if (OMPI_SUCCESS == rc) {
        /* The default must be a string (the subscriber saves a copy of it). */
        (void) opal_infosubscribe_subscribe(&comm->super, MCA_PML_ZIP_INFO_KEY, "default",
                                            zip_info_changed);
    }
    return rc;
}
