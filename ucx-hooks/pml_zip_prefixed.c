/*
 * The datatype of a long inline message: zip's 16-byte prefix in one place, the application's
 * data in its own buffer and datatype in another, moved by the wrapped PML as one message. A
 * raw message of a few KiB then costs one transfer into a receive posted in advance, where an
 * envelope and its payload cost two and land the payload as an unexpected message (copied
 * once more on the receiver): 0.81-0.88x stock's rate for streams of 16 KiB messages on shared
 * memory (docs/performance.md, "The framing's cost on a fast link").
 *
 * Building and freeing one such type costs about 0.1 us here, so each message gets its own
 * (absolute addresses, buffer MPI_BOTTOM) rather than a cache keyed on addresses.
 */
#include "ompi_config.h"

#include <limits.h>

#include "ompi/constants.h"

#include "pml_zip.h"

int mca_pml_zip_prefixed_type(void *prefix, const void *buf, size_t count, ompi_datatype_t *dtype,
                              ompi_datatype_t **type)
{
    *type = NULL;
    if (count > INT_MAX) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    const int lengths[2] = {MCA_PML_ZIP_PREFIX_BYTES, (int)count};
    const ptrdiff_t displs[2] = {(ptrdiff_t)prefix, (ptrdiff_t)buf};
    ompi_datatype_t *const types[2] = {&ompi_mpi_byte.dt, dtype};
    int rc = ompi_datatype_create_struct(2, lengths, displs, types, type);
    if (OMPI_SUCCESS == rc) {
        rc = ompi_datatype_commit(type);
    }
    if (OMPI_SUCCESS != rc) {
        mca_pml_zip_prefixed_type_release(type);
    }
    return rc;
}

void mca_pml_zip_prefixed_type_release(ompi_datatype_t **type)
{
    if (NULL != *type) {
        (void)ompi_datatype_destroy(type);
        *type = NULL;
    }
}
