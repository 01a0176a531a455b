/*
 * MPI_Gatherv: each non-root compresses its block (when at least `threshold` bytes and it
 * shrinks), the root decodes blocks in arrival order (coll_zip_rooted.c); other blocks move
 * plainly, their receives posted first at the root.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

int mca_coll_zip_gatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                         int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    const mca_coll_zip_layout_t many = {rbuf, rcounts, disps, 0, rdtype};
    const mca_coll_zip_layout_t one = {sbuf, NULL, NULL, scount, sdtype};
    /* The policy routes the call alike on every rank; under observe a sender judges its own
     * block. */
    const bool is_root = ompi_comm_rank(comm) == root;
    const size_t mine = is_root ? 0 : mca_coll_zip_layout_bytes(&one, 0);
    if (mca_coll_zip_policy_takes(m, comm, COLL_ZIP_OP_GATHERV, mca_coll_zip_component.threshold,
                                  is_root ? NULL : sbuf, scount, sdtype, mine)) {
        return mca_coll_zip_rooted_run(m, comm, COLL_ZIP_OP_GATHERV, &many, &one, root);
    }
    return m->previous_gatherv(sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm,
                               m->previous_gatherv_module);
}
