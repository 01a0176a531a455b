/*
 * Where the block-moving collectives (alltoall(v), gather(v), scatter(v), allgather(v)) and
 * their non-blocking forms part: the same prepared blocks and arguments run now, or as a call
 * that Open MPI's progress engine advances (coll_zip_nb.c).
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"

/* The blocking calls' tags: those of Open MPI's own components for the same collective. */
static int blocking_tag(int op)
{
    switch (op) {
    case COLL_ZIP_OP_ALLTOALL:
        return MCA_COLL_BASE_TAG_ALLTOALL;
    case COLL_ZIP_OP_ALLTOALLV:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALLV:
        return MCA_COLL_BASE_TAG_ALLTOALLV;
    case COLL_ZIP_OP_ALLTOALLW:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALLW:
        return MCA_COLL_BASE_TAG_ALLTOALLW;
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALL:
        return MCA_COLL_BASE_TAG_ALLTOALL;
    case COLL_ZIP_OP_NEIGHBOR_ALLGATHER:
        return MCA_COLL_BASE_TAG_ALLGATHER;
    case COLL_ZIP_OP_NEIGHBOR_ALLGATHERV:
        return MCA_COLL_BASE_TAG_ALLGATHERV;
    case COLL_ZIP_OP_GATHER:
        return MCA_COLL_BASE_TAG_GATHER;
    case COLL_ZIP_OP_GATHERV:
        return MCA_COLL_BASE_TAG_GATHERV;
    case COLL_ZIP_OP_SCATTER:
        return MCA_COLL_BASE_TAG_SCATTER;
    case COLL_ZIP_OP_SCATTERV:
        return MCA_COLL_BASE_TAG_SCATTERV;
    case COLL_ZIP_OP_ALLGATHER:
        return MCA_COLL_BASE_TAG_ALLGATHER;
    default:
        return MCA_COLL_BASE_TAG_ALLGATHERV;
    }
}

static int release(mca_coll_zip_exchange_t *x, bool deliver, int rc)
{
    for (size_t i = 0; i < sizeof(x->owned) / sizeof(x->owned[0]); ++i) {
        free(x->owned[i]);
        x->owned[i] = NULL;
    }
    mca_coll_zip_blocks_finish(&x->sent, false, OMPI_SUCCESS);
    return mca_coll_zip_blocks_finish(&x->received, deliver, rc);
}

typedef struct iexchange {
    mca_coll_zip_nb_t nb; /* first: released as a whole */
    mca_coll_zip_exchange_t x;
} iexchange_t;

static int iexchange_complete(mca_coll_zip_nb_t *nb)
{
    iexchange_t *c = (iexchange_t *)nb;
    if (NULL != c->x.uncoded) {
        zip_algo_uncoded_record(c->x.uncoded, 0 != nb->result.compressed);
    }
    return mca_coll_zip_blocks_finish(&c->x.received, true, OMPI_SUCCESS);
}

static void iexchange_release(mca_coll_zip_nb_t *nb)
{
    iexchange_t *c = (iexchange_t *)nb;
    (void)release(&c->x, false, OMPI_SUCCESS);
    free(c);
}

void mca_coll_zip_uncoded_share(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                zip_algo_uncoded_t *u, bool failed)
{
    /* Every rank whose call was due to share comes here, failed or not (the others wait). */
    int mine = failed || zip_algo_uncoded_mine(u) ? 1 : 0, any = 1;
    const int rc =
        m->previous_allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm, m->previous_allreduce_module);
    zip_algo_uncoded_shared(u, OMPI_SUCCESS != rc || 0 != any);
}

int mca_coll_zip_exchange(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                          mca_coll_zip_exchange_t *x, int rc, struct ompi_request_t **request)
{
    if (OMPI_SUCCESS != rc) {
        if (x->share) {
            mca_coll_zip_uncoded_share(m, comm, x->uncoded, true);
        }
        return release(x, false, rc);
    }
    if (NULL == request) {
        x->args.tag = blocking_tag(op);
        x->args.policy = &m->call_policy;
        zip_algo_result_t result;
        rc = mca_coll_zip_run(m, comm, op, x->root, &x->args, &result);
        if (NULL != x->seen && OMPI_SUCCESS == rc) {
            zip_algo_seen_record(x->seen, &result);
        }
        if (NULL != x->uncoded) {
            zip_algo_uncoded_record(x->uncoded, OMPI_SUCCESS == rc && result.compressed);
        }
        if (x->share) {
            mca_coll_zip_uncoded_share(m, comm, x->uncoded, OMPI_SUCCESS != rc);
        }
        return release(x, true, rc);
    }
    iexchange_t *c = calloc(1, sizeof(*c));
    if (NULL == c) {
        (void)release(x, false, OMPI_SUCCESS);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
    }
    c->x = *x; /* the call owns the blocks from here on */
    c->nb.complete = iexchange_complete;
    c->nb.release = iexchange_release;
    if (OMPI_SUCCESS != mca_coll_zip_nb_begin(&c->nb, m, comm, op)) {
        mca_coll_zip_nb_release(&c->nb);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
    }
    c->x.args.tag = c->nb.tag;
    c->x.args.policy = &c->nb.policy;
    rc = mca_coll_zip_nb_start(
        &c->nb,
        zip_coll_op_start(op, &c->nb.transport, &c->nb.codec, c->x.root, &c->x.args, &c->nb.result),
        request);
    return OMPI_SUCCESS == rc
               ? rc
               : mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
}
