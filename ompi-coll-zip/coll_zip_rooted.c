/*
 * Gather(v) and scatter(v), blocking or not, once the policy has taken a call: the root has a
 * block per rank, every other rank one block, and the blocks go into the root or out of it
 * (zip_algo_gatherv, zip_algo_scatterv: each sender compresses its blocks once, receivers decode
 * in arrival order, plain blocks beside them).
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

int mca_coll_zip_rooted_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                            const mca_coll_zip_layout_t *many, const mca_coll_zip_layout_t *one,
                            int root, struct ompi_request_t **request)
{
    const bool is_root = ompi_comm_rank(comm) == root;
    const int base = zip_coll_op_blocking(op);
    const bool into_root = COLL_ZIP_OP_GATHER == base || COLL_ZIP_OP_GATHERV == base;
    const bool sending = is_root != into_root;
    /* Under auto on a fast link the ranks share now and then whether any of them coded
     * (zip_algo_uncoded_t). */
    zip_algo_uncoded_t *u = mca_coll_zip_uncoded_of(m, comm, op);
    const bool share = NULL != u && NULL == request && zip_algo_uncoded_shares(u);
    mca_coll_zip_exchange_t x = {.root = root, .uncoded = u, .share = share};
    /* The root has a block per rank, every other rank one. */
    mca_coll_zip_blocks_t *blocks = sending ? &x.sent : &x.received;
    if (OMPI_SUCCESS != mca_coll_zip_blocks_init(blocks, is_root ? ompi_comm_size(comm) : 1)) {
        const int rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
        return mca_coll_zip_exchange(m, comm, op, &x, rc, request);
    }
    int rc = OMPI_SUCCESS;
    mca_coll_zip_blocks_layout(blocks, is_root ? many : one, is_root ? root : -1);
    /* The root's own block stays local; MPI_IN_PLACE says it is in place already. */
    if (is_root && MPI_IN_PLACE != one->buf) {
        rc = into_root ? mca_coll_zip_layout_copy(one, 0, many, root)
                       : mca_coll_zip_layout_copy(many, root, one, 0);
    }
    const struct ompi_datatype_t *dtype = (is_root ? many : one)->dtype;
    x.args = (zip_exchange_args_t){
        .send = sending ? blocks->blocks : NULL,
        .recv = sending ? NULL : blocks->blocks,
        .elem_type =
            sending ? mca_coll_zip_elem_type((struct ompi_datatype_t *)dtype) : ZIP_ALGO_BYTES,
        .try_compress = sending,
        .threshold = mca_coll_zip_component.threshold,
        .peer_on_node = m->peer_on_node,
        /* A gather's root keeps about a megabyte of receives posted, so that it decodes each
         * block while the next ones travel; not over the TCP BTL (ZIP_GATHERV_ROOT_WINDOW_BYTES).
         */
        .root_window_bytes = is_root && into_root && !mca_coll_zip_pairs_serialise(m, comm)
                                 ? ZIP_GATHERV_ROOT_WINDOW_BYTES
                                 : 0,
    };
    return mca_coll_zip_exchange(m, comm, op, &x, rc, request);
}
