/*
 * MPI_Alltoallv: the algorithm (algo/alltoallv_algo.cpp) compresses every block of at least
 * `threshold` bytes for its destination, in pairwise steps, and moves the others plainly, all
 * posted at once. MPI_IN_PLACE is used by all ranks or none and goes to the previous component.
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

int mca_coll_zip_alltoallv_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                               const mca_coll_zip_layout_t *snd, const mca_coll_zip_layout_t *rcv)
{
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    int rc = mca_coll_zip_layout_copy(snd, rank, rcv, rank);
    if (MPI_SUCCESS != rc) {
        return rc;
    }
    mca_coll_zip_blocks_t sb = {0}, rb = {0};
    if (OMPI_SUCCESS != mca_coll_zip_blocks_init(&sb, size) ||
        OMPI_SUCCESS != mca_coll_zip_blocks_init(&rb, size)) {
        mca_coll_zip_blocks_finish(&sb, false, OMPI_SUCCESS);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, mca_coll_zip_op_calls[op], comm);
    }
    mca_coll_zip_blocks_layout(&sb, snd, rank);
    mca_coll_zip_blocks_layout(&rb, rcv, rank);
    const zip_exchange_args_t args = {
        .send = sb.blocks,
        .recv = rb.blocks,
        .tag =
            COLL_ZIP_OP_ALLTOALL == op ? MCA_COLL_BASE_TAG_ALLTOALL : MCA_COLL_BASE_TAG_ALLTOALLV,
        .elem_type = mca_coll_zip_elem_type(snd->dtype),
        .try_compress = 1,
        .threshold = mca_coll_zip_component.threshold,
        .window = mca_coll_zip_component.alltoallv_window,
        .policy = &m->call_policy,
        .peer_on_node = m->peer_on_node,
    };
    rc = mca_coll_zip_run(m, comm, op, -1, &args);
    mca_coll_zip_blocks_finish(&sb, false, OMPI_SUCCESS);
    return mca_coll_zip_blocks_finish(&rb, true, rc);
}

int mca_coll_zip_alltoallv(const void *sbuf, const int *scounts, const int *sdisps,
                           struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                           const int *rdisps, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    const mca_coll_zip_layout_t snd = {sbuf, scounts, sdisps, 0, sdtype};
    const mca_coll_zip_layout_t rcv = {rbuf, rcounts, rdisps, 0, rdtype};
    if (MPI_IN_PLACE == sbuf) {
        mca_coll_zip_stats_add(COLL_ZIP_OP_ALLTOALLV, 1, 0, 0, 0, 0);
    } else if (mca_coll_zip_policy_takes_blocks(m, comm, COLL_ZIP_OP_ALLTOALLV, &snd,
                                                ompi_comm_rank(comm))) {
        return mca_coll_zip_alltoallv_run(m, comm, COLL_ZIP_OP_ALLTOALLV, &snd, &rcv);
    }
    return m->previous_alltoallv(sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype, comm,
                                 m->previous_alltoallv_module);
}
