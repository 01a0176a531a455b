/*
 * The byte views of coll_zip_view.h on the shared datatype helpers (zip_ompi.h): the user's
 * memory when it is contiguous, else a packed copy.
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"

#include "zip_ompi.h"
#include "coll_zip_view.h"

static int view_init(mca_coll_zip_view_t *v, void *buf, int count, struct ompi_datatype_t *dtype)
{
    v->count = count > 0 ? (size_t)count : 0;
    v->len = dtype->super.size * v->count;
    v->packed = NULL;
    v->user = buf;
    v->dtype = dtype;
    v->bytes = (0 == v->len) ? NULL : zip_ompi_contiguous_base(buf, v->count, dtype);
    if (0 == v->len || NULL != v->bytes) {
        return OMPI_SUCCESS;
    }
    v->packed = malloc(v->len);
    if (NULL == v->packed) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    v->bytes = v->packed;
    return OMPI_SUCCESS;
}

int mca_coll_zip_view_send(mca_coll_zip_view_t *v, const void *buf, int count,
                           struct ompi_datatype_t *dtype)
{
    int rc = view_init(v, (void *)buf, count, dtype);
    if (OMPI_SUCCESS != rc || NULL == v->packed) {
        return rc;
    }
    return MPI_SUCCESS == zip_ompi_pack(v->packed, buf, v->count, dtype) ? OMPI_SUCCESS
                                                                         : OMPI_ERROR;
}

int mca_coll_zip_view_recv(mca_coll_zip_view_t *v, void *buf, int count,
                           struct ompi_datatype_t *dtype)
{
    return view_init(v, buf, count, dtype);
}

int mca_coll_zip_view_deliver(mca_coll_zip_view_t *v)
{
    if (NULL == v->packed) {
        return OMPI_SUCCESS;
    }
    return MPI_SUCCESS == zip_ompi_unpack(v->packed, v->len, v->user, v->count, v->dtype)
               ? OMPI_SUCCESS
               : OMPI_ERROR;
}

void mca_coll_zip_view_free(mca_coll_zip_view_t *v)
{
    free(v->packed);
    v->packed = NULL;
}
