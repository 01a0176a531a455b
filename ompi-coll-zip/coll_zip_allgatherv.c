/*
 * MPI_Allgatherv: a ring (algo/ring.cpp) in which each rank compresses its own block once, the
 * frame travels unchanged from rank to rank, and every receiver decodes it once. Every rank
 * knows every block's size, so a call whose blocks are all below the threshold goes to the
 * previous component whole.
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

int mca_coll_zip_allgatherv_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                                const mca_coll_zip_layout_t *mine, const mca_coll_zip_layout_t *rcv)
{
    const int rank = ompi_comm_rank(comm);
    mca_coll_zip_blocks_t blocks;
    if (OMPI_SUCCESS != mca_coll_zip_blocks_init(&blocks, ompi_comm_size(comm))) {
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, mca_coll_zip_op_calls[op], comm);
    }
    mca_coll_zip_blocks_layout(&blocks, rcv, -1);
    /* This rank's block goes into its place first (MPI_IN_PLACE: it is there) and travels from
     * there. */
    int rc =
        MPI_IN_PLACE == mine->buf ? OMPI_SUCCESS : mca_coll_zip_layout_copy(mine, 0, rcv, rank);
    const zip_exchange_args_t args = {
        .send = &blocks.blocks[rank],
        .recv = blocks.blocks,
        .tag = COLL_ZIP_OP_ALLGATHER == op ? MCA_COLL_BASE_TAG_ALLGATHER
                                           : MCA_COLL_BASE_TAG_ALLGATHERV,
        .elem_type = mca_coll_zip_elem_type(rcv->dtype),
        .try_compress = 1,
        .threshold = mca_coll_zip_component.threshold,
        .policy = &m->call_policy,
        .peer_on_node = m->peer_on_node,
    };
    if (MPI_SUCCESS == rc) {
        rc = mca_coll_zip_run(m, comm, op, -1, &args);
    }
    return mca_coll_zip_blocks_finish(&blocks, true, rc);
}

int mca_coll_zip_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, const int *rcounts, const int *disps,
                            struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    const int rank = ompi_comm_rank(comm);
    const mca_coll_zip_layout_t mine = {sbuf, NULL, NULL, scount, sdtype};
    const mca_coll_zip_layout_t rcv = {rbuf, rcounts, disps, 0, rdtype};
    size_t largest = 0;
    for (int p = 0; p < ompi_comm_size(comm); ++p) {
        const size_t b = mca_coll_zip_layout_bytes(&rcv, p);
        largest = b > largest ? b : largest;
    }
    /* Under observe this rank judges its own block, wherever it is. */
    int count = 0;
    const mca_coll_zip_layout_t *own = MPI_IN_PLACE == sbuf ? &rcv : &mine;
    const char *sample = mca_coll_zip_layout_block(own, MPI_IN_PLACE == sbuf ? rank : 0, &count);
    if (mca_coll_zip_policy_takes_known(m, comm, COLL_ZIP_OP_ALLGATHERV, largest, sample, count,
                                        own->dtype, mca_coll_zip_layout_bytes(&rcv, rank))) {
        return mca_coll_zip_allgatherv_run(m, comm, COLL_ZIP_OP_ALLGATHERV, &mine, &rcv);
    }
    return m->previous_allgatherv(sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, comm,
                                  m->previous_allgatherv_module);
}
