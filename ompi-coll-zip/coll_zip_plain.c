#include "ompi_config.h"

#include <limits.h>
#include <stdlib.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/mca/pml/pml.h"

#include "coll_zip.h"
#include "coll_zip_plain.h"

bool mca_coll_zip_block_is_plain(size_t bytes)
{
    /* The PML takes an int count: a block of more than INT_MAX bytes cannot travel as one
     * message of bytes (compressed or raw), but it can as its own int count of its datatype. */
    return bytes < mca_coll_zip_component.threshold || bytes <= 1 || bytes > (size_t)INT_MAX;
}

int mca_coll_zip_plain_begin(mca_coll_zip_plain_t *p, mca_coll_zip_module_t *m,
                             struct ompi_communicator_t *comm, int tag, int max_requests)
{
    p->count = 0;
    p->comm = comm;
    p->tag = tag;
    if (max_requests > m->plain_capacity) {
        ompi_request_t **grown = realloc(m->plain_reqs, (size_t)max_requests * sizeof(*grown));
        if (NULL == grown) {
            p->reqs = NULL;
            p->capacity = 0;
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        m->plain_reqs = grown;
        m->plain_capacity = max_requests;
    }
    p->reqs = m->plain_reqs;
    p->capacity = m->plain_capacity;
    return OMPI_SUCCESS;
}

int mca_coll_zip_plain_irecv(mca_coll_zip_plain_t *p, void *buf, int count,
                             struct ompi_datatype_t *dtype, int peer)
{
    if (p->count >= p->capacity) {
        return OMPI_ERR_BAD_PARAM;
    }
    ompi_request_t **req = &p->reqs[p->count];
    *req = MPI_REQUEST_NULL;
    const int rc = MCA_PML_CALL(irecv(buf, count, dtype, peer, p->tag, p->comm, req));
    if (OMPI_SUCCESS == rc) {
        ++p->count;
    }
    return rc;
}

int mca_coll_zip_plain_isend(mca_coll_zip_plain_t *p, const void *buf, int count,
                             struct ompi_datatype_t *dtype, int peer)
{
    if (p->count >= p->capacity) {
        return OMPI_ERR_BAD_PARAM;
    }
    ompi_request_t **req = &p->reqs[p->count];
    *req = MPI_REQUEST_NULL;
    const int rc = MCA_PML_CALL(
        isend(buf, count, dtype, peer, p->tag, MCA_PML_BASE_SEND_STANDARD, p->comm, req));
    if (OMPI_SUCCESS == rc) {
        ++p->count;
    }
    return rc;
}

int mca_coll_zip_plain_wait(mca_coll_zip_plain_t *p)
{
    if (0 == p->count) {
        return OMPI_SUCCESS;
    }
    const int rc = ompi_request_wait_all((size_t)p->count, p->reqs, MPI_STATUSES_IGNORE);
    if (OMPI_SUCCESS != rc) {
        /* wait_all leaves the failed requests allocated; release them all. */
        mca_coll_zip_plain_abandon(p, rc);
    }
    p->count = 0;
    return rc;
}

int mca_coll_zip_plain_abandon(mca_coll_zip_plain_t *p, int rc)
{
    for (int i = 0; i < p->count; ++i) {
        if (MPI_REQUEST_NULL != p->reqs[i]) {
            ompi_request_free(&p->reqs[i]);
        }
    }
    p->count = 0;
    return rc;
}
