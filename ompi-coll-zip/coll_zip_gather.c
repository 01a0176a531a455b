/*
 * MPI_Gather: gatherv's algorithm with equal blocks (coll_zip_rooted.c). Every rank knows the
 * block size, so a call of small blocks goes to the previous component whole.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

int mca_coll_zip_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                        int rcount, struct ompi_datatype_t *rdtype, int root,
                        struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    const mca_coll_zip_layout_t many = {rbuf, NULL, NULL, rcount, rdtype};
    const mca_coll_zip_layout_t one = {sbuf, NULL, NULL, scount, sdtype};
    /* The root's send arguments may be MPI_IN_PLACE's: it goes by its receive block. */
    const bool is_root = ompi_comm_rank(comm) == root;
    const size_t block = mca_coll_zip_layout_bytes(is_root ? &many : &one, 0);
    if (mca_coll_zip_policy_takes_known(m, comm, COLL_ZIP_OP_GATHER, block, is_root ? NULL : sbuf,
                                        scount, sdtype, is_root ? 0 : block)) {
        return mca_coll_zip_rooted_run(m, comm, COLL_ZIP_OP_GATHER, &many, &one, root);
    }
    return m->previous_gather(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
                              m->previous_gather_module);
}
