/*
 * MPI_Gatherv: the algorithm (algo/gatherv_algo.cpp) has each non-root compress its block
 * (when at least `threshold` bytes and it shrinks) and the root decode blocks in arrival order;
 * other blocks move plainly, their receives posted first at the root.
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

int mca_coll_zip_gatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                         int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    /* The policy routes the call alike on every rank; under observe a sender judges its own
     * block. */
    const bool is_root = ompi_comm_rank(comm) == root;
    size_t ssize = 0;
    ompi_datatype_type_size(sdtype, &ssize);
    const size_t mine = is_root ? 0 : ssize * (size_t)(scount > 0 ? scount : 0);
    if (!mca_coll_zip_policy_takes(m, comm, COLL_ZIP_OP_GATHERV, mca_coll_zip_component.threshold,
                                   is_root ? NULL : sbuf, scount, sdtype, mine)) {
        return m->previous_gatherv(sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm,
                                   m->previous_gatherv_module);
    }

    mca_coll_zip_blocks_t blocks;
    if (OMPI_SUCCESS != mca_coll_zip_blocks_init(&blocks, is_root ? ompi_comm_size(comm) : 1)) {
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Gatherv", comm);
    }
    int rc = OMPI_SUCCESS;
    if (is_root) {
        const mca_coll_zip_layout_t rcv = {rbuf, rcounts, disps, 0, rdtype};
        mca_coll_zip_blocks_layout(&blocks, &rcv, -1);
        if (MPI_IN_PLACE != sbuf) {
            rc = ompi_datatype_sndrcv(sbuf, scount, sdtype, blocks.views[root].user, rcounts[root],
                                      rdtype);
        }
    } else {
        mca_coll_zip_blocks_set(&blocks, 0, sbuf, scount, sdtype);
    }
    const zip_exchange_args_t args = {
        .send = is_root ? NULL : blocks.blocks,
        .recv = is_root ? blocks.blocks : NULL,
        .tag = MCA_COLL_BASE_TAG_GATHERV,
        .elem_type = is_root ? ZIP_ALGO_BYTES : mca_coll_zip_elem_type(sdtype),
        .try_compress = !is_root,
        .threshold = mca_coll_zip_component.threshold,
        .policy = &m->call_policy,
        .peer_on_node = m->peer_on_node,
    };
    if (MPI_SUCCESS == rc) {
        rc = mca_coll_zip_run(m, comm, COLL_ZIP_OP_GATHERV, root, &args);
    }
    return mca_coll_zip_blocks_finish(&blocks, is_root, rc);
}
