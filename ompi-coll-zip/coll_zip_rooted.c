/*
 * Gather(v) and scatter(v) once the policy has taken a call: the root has a block per rank,
 * every other rank one block, and the blocks go into the root or out of it
 * (zip_algo_gatherv, zip_algo_scatterv: each sender compresses its blocks once, receivers decode in
 * arrival order, plain blocks beside them).
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

static int tag_of(int op)
{
    switch (op) {
    case COLL_ZIP_OP_GATHER:
        return MCA_COLL_BASE_TAG_GATHER;
    case COLL_ZIP_OP_SCATTERV:
        return MCA_COLL_BASE_TAG_SCATTERV;
    case COLL_ZIP_OP_SCATTER:
        return MCA_COLL_BASE_TAG_SCATTER;
    default:
        return MCA_COLL_BASE_TAG_GATHERV;
    }
}

int mca_coll_zip_rooted_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                            const mca_coll_zip_layout_t *many, const mca_coll_zip_layout_t *one,
                            int root)
{
    const bool is_root = ompi_comm_rank(comm) == root;
    const bool into_root = COLL_ZIP_OP_GATHER == op || COLL_ZIP_OP_GATHERV == op;
    const bool sending = is_root != into_root;
    mca_coll_zip_blocks_t blocks;
    if (OMPI_SUCCESS != mca_coll_zip_blocks_init(&blocks, is_root ? ompi_comm_size(comm) : 1)) {
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, mca_coll_zip_op_calls[op], comm);
    }
    int rc = OMPI_SUCCESS;
    mca_coll_zip_blocks_layout(&blocks, is_root ? many : one, is_root ? root : -1);
    /* The root's own block stays local; MPI_IN_PLACE says it is in place already. */
    if (is_root && MPI_IN_PLACE != one->buf) {
        rc = into_root ? mca_coll_zip_layout_copy(one, 0, many, root)
                       : mca_coll_zip_layout_copy(many, root, one, 0);
    }
    const struct ompi_datatype_t *dtype = (is_root ? many : one)->dtype;
    const zip_exchange_args_t args = {
        .send = sending ? blocks.blocks : NULL,
        .recv = sending ? NULL : blocks.blocks,
        .tag = tag_of(op),
        .elem_type =
            sending ? mca_coll_zip_elem_type((struct ompi_datatype_t *)dtype) : ZIP_ALGO_BYTES,
        .try_compress = sending,
        .threshold = mca_coll_zip_component.threshold,
        .policy = &m->call_policy,
        .peer_on_node = m->peer_on_node,
    };
    if (MPI_SUCCESS == rc) {
        rc = mca_coll_zip_run(m, comm, op, root, &args);
    }
    return mca_coll_zip_blocks_finish(&blocks, !sending, rc);
}
