#include "ompi_config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/pml/pml.h"

#include "coll_zip.h"
#include "coll_zip_help.h"
#include "coll_zip_plain.h"
#include "algo/zip_algo.h"

bool mca_coll_zip_block_is_plain(size_t bytes, const mca_coll_zip_module_t *m, int peer)
{
    const mca_coll_zip_component_t *z = &mca_coll_zip_component;
    /* The PML takes an int count: a block of more than INT_MAX bytes cannot travel as one
     * message of bytes (compressed or raw), but it can as its own int count of its datatype. */
    return !zip_algo_block_may_compress(bytes, z->threshold) || bytes > (size_t)INT_MAX ||
           (NULL != m->peer_on_node && m->peer_on_node[peer]);
}

static int grow(mca_coll_zip_module_t *m, int capacity)
{
    ompi_request_t **reqs = realloc(m->plain_reqs, (size_t)capacity * sizeof(*reqs));
    if (NULL != reqs)
        m->plain_reqs = reqs;
    size_t *expect = realloc(m->plain_expect, (size_t)capacity * sizeof(*expect));
    if (NULL != expect)
        m->plain_expect = expect;
    ompi_status_public_t *statuses =
        realloc(m->plain_statuses, (size_t)capacity * sizeof(*statuses));
    if (NULL != statuses)
        m->plain_statuses = statuses;
    if (NULL == reqs || NULL == expect || NULL == statuses)
        return OMPI_ERR_OUT_OF_RESOURCE;
    m->plain_capacity = capacity;
    return OMPI_SUCCESS;
}

int mca_coll_zip_plain_begin(mca_coll_zip_plain_t *p, mca_coll_zip_module_t *m,
                             struct ompi_communicator_t *comm, int tag, int max_requests)
{
    p->module = m;
    p->count = 0;
    p->comm = comm;
    p->tag = tag;
    return max_requests > m->plain_capacity ? grow(m, max_requests) : OMPI_SUCCESS;
}

/* Records a posted request; `expect` is the length a receive must bring (SIZE_MAX: a send). */
static int post(mca_coll_zip_plain_t *p, int rc, size_t expect)
{
    if (OMPI_SUCCESS == rc) {
        p->module->plain_expect[p->count] = expect;
        ++p->count;
    }
    return rc;
}

int mca_coll_zip_plain_irecv(mca_coll_zip_plain_t *p, void *buf, int count,
                             struct ompi_datatype_t *dtype, int peer)
{
    if (p->count >= p->module->plain_capacity) {
        return OMPI_ERR_BAD_PARAM;
    }
    size_t type_size = 0;
    ompi_datatype_type_size(dtype, &type_size);
    ompi_request_t **req = &p->module->plain_reqs[p->count];
    *req = MPI_REQUEST_NULL;
    return post(p, MCA_PML_CALL(irecv(buf, count, dtype, peer, p->tag, p->comm, req)),
                type_size * (size_t)count);
}

int mca_coll_zip_plain_isend(mca_coll_zip_plain_t *p, const void *buf, int count,
                             struct ompi_datatype_t *dtype, int peer)
{
    if (p->count >= p->module->plain_capacity) {
        return OMPI_ERR_BAD_PARAM;
    }
    ompi_request_t **req = &p->module->plain_reqs[p->count];
    *req = MPI_REQUEST_NULL;
    return post(p,
                MCA_PML_CALL(isend(buf, count, dtype, peer, p->tag, MCA_PML_BASE_SEND_STANDARD,
                                   p->comm, req)),
                SIZE_MAX);
}

int mca_coll_zip_plain_wait(mca_coll_zip_plain_t *p, const char *op)
{
    if (0 == p->count) {
        return OMPI_SUCCESS;
    }
    mca_coll_zip_module_t *m = p->module;
    int rc = ompi_request_wait_all((size_t)p->count, m->plain_reqs, m->plain_statuses);
    if (OMPI_SUCCESS != rc) {
        /* wait_all leaves the failed requests allocated; release them all. */
        return mca_coll_zip_plain_abandon(p, rc);
    }
    for (int i = 0; i < p->count && OMPI_SUCCESS == rc; ++i) {
        const size_t got = m->plain_statuses[i]._ucount;
        if (SIZE_MAX != m->plain_expect[i] && got != m->plain_expect[i]) {
            mca_coll_zip_show_help("plain length",
                                   "%s on communicator %s: a block that should have arrived "
                                   "plain brought %zu bytes instead of %zu",
                                   op, p->comm->c_name, got, m->plain_expect[i]);
            rc = MPI_ERR_TRUNCATE;
        }
    }
    p->count = 0;
    return rc;
}

int mca_coll_zip_plain_abandon(mca_coll_zip_plain_t *p, int rc)
{
    for (int i = 0; i < p->count; ++i) {
        if (MPI_REQUEST_NULL != p->module->plain_reqs[i]) {
            ompi_request_free(&p->module->plain_reqs[i]);
        }
    }
    p->count = 0;
    return rc;
}
