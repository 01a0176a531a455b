#include "ompi_config.h"

#include <stdlib.h>
#include <sys/uio.h>

#include "opal/datatype/opal_convertor.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"

#include "coll_zip_view.h"

static int view_init(mca_coll_zip_view_t *v, void *buf, int count, struct ompi_datatype_t *dtype)
{
    size_t size = 0;
    ompi_datatype_type_size(dtype, &size);
    v->len = size * (size_t)(count > 0 ? count : 0);
    v->packed = NULL;
    v->user = buf;
    v->count = count;
    v->dtype = dtype;
    if (0 == v->len) {
        v->bytes = NULL;
        return OMPI_SUCCESS;
    }
    if (ompi_datatype_is_contiguous_memory_layout(dtype, count)) {
        ptrdiff_t true_lb = 0, true_extent = 0;
        ompi_datatype_get_true_extent(dtype, &true_lb, &true_extent);
        v->bytes = (char *)buf + true_lb;
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
    opal_convertor_t conv;
    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dtype->super, count, buf, 0,
                                             &conv);
    struct iovec iov = {.iov_base = v->packed, .iov_len = v->len};
    uint32_t iov_count = 1;
    size_t max_data = v->len;
    opal_convertor_pack(&conv, &iov, &iov_count, &max_data);
    OBJ_DESTRUCT(&conv);
    return max_data == v->len ? OMPI_SUCCESS : OMPI_ERROR;
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
    opal_convertor_t conv;
    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &v->dtype->super, v->count,
                                             v->user, 0, &conv);
    struct iovec iov = {.iov_base = v->packed, .iov_len = v->len};
    uint32_t iov_count = 1;
    size_t max_data = v->len;
    opal_convertor_unpack(&conv, &iov, &iov_count, &max_data);
    OBJ_DESTRUCT(&conv);
    return max_data == v->len ? OMPI_SUCCESS : OMPI_ERROR;
}

void mca_coll_zip_view_free(mca_coll_zip_view_t *v)
{
    free(v->packed);
    v->packed = NULL;
}
