/*
 * MPI_Alltoall: alltoallv's algorithm with equal blocks. Every rank knows the block size (MPI
 * makes the type signatures match), so a call of small blocks goes to the previous component
 * whole, like a small bcast; so does MPI_IN_PLACE.
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

int mca_coll_zip_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                          int rcount, struct ompi_datatype_t *rdtype,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    const mca_coll_zip_layout_t snd = {sbuf, NULL, NULL, scount, sdtype};
    const mca_coll_zip_layout_t rcv = {rbuf, NULL, NULL, rcount, rdtype};
    /* Under observe the block for the next rank is the sample (in place, the send arguments
     * mean nothing). */
    int count = 0;
    const size_t block = mca_coll_zip_layout_bytes(&rcv, 0);
    const char *sample =
        MPI_IN_PLACE == sbuf ? NULL : mca_coll_zip_layout_block(&snd, (rank + 1) % size, &count);
    if (MPI_IN_PLACE == sbuf) {
        mca_coll_zip_stats_add(COLL_ZIP_OP_ALLTOALL, 1, 0, 0, 0, 0);
    } else if (mca_coll_zip_policy_takes_known(m, comm, COLL_ZIP_OP_ALLTOALL, block, sample, count,
                                               sdtype, block * (size_t)(size - 1))) {
        return mca_coll_zip_alltoallv_run(m, comm, COLL_ZIP_OP_ALLTOALL, &snd, &rcv);
    }
    return m->previous_alltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                m->previous_alltoall_module);
}
