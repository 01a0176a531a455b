/*
 * MPI_Allgather: allgatherv's ring with equal blocks (coll_zip_allgatherv.c). Every rank knows
 * the block size, so a call of small blocks goes to the previous component whole.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

int mca_coll_zip_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                           int rcount, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    const mca_coll_zip_layout_t mine = {sbuf, NULL, NULL, scount, sdtype};
    const mca_coll_zip_layout_t rcv = {rbuf, NULL, NULL, rcount, rdtype};
    const size_t block = mca_coll_zip_layout_bytes(&rcv, 0);
    /* Under observe this rank judges its own block, wherever it is. */
    int count = 0;
    const mca_coll_zip_layout_t *own = MPI_IN_PLACE == sbuf ? &rcv : &mine;
    const char *sample =
        mca_coll_zip_layout_block(own, MPI_IN_PLACE == sbuf ? ompi_comm_rank(comm) : 0, &count);
    if (mca_coll_zip_policy_takes_known(m, comm, COLL_ZIP_OP_ALLGATHER, block, sample, count,
                                        own->dtype, block)) {
        return mca_coll_zip_allgatherv_run(m, comm, COLL_ZIP_OP_ALLGATHER, &mine, &rcv);
    }
    return m->previous_allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                 m->previous_allgather_module);
}
