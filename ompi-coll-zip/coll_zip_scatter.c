/*
 * MPI_Scatter and MPI_Iscatter: scatterv's algorithm with equal blocks (coll_zip_rooted.c).
 * Every rank knows the block size, so a call of small blocks goes to the previous component
 * whole.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

/* Whether zip takes this scatter (of `op`: blocking or not); otherwise it was counted as handed
 * on. The root's receive arguments may be MPI_IN_PLACE's: it goes by its send blocks, and under
 * observe judges the first one it sends. The send arguments mean nothing elsewhere. */
static bool scatter_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                          const mca_coll_zip_layout_t *many, const mca_coll_zip_layout_t *one,
                          int root)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    const int size = ompi_comm_size(comm);
    const bool is_root = ompi_comm_rank(comm) == root;
    const size_t block = mca_coll_zip_layout_bytes(is_root ? many : one, 0);
    int count = 0;
    const char *sample =
        is_root ? mca_coll_zip_layout_block(many, (root + 1) % size, &count) : NULL;
    return mca_coll_zip_policy_takes_known(m, comm, op, block, sample, count, many->dtype,
                                           is_root ? block * (size_t)(size - 1) : 0) &&
           !mca_coll_zip_uncoded_hands_on(m, comm, op);
}

int mca_coll_zip_scatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         int rcount, struct ompi_datatype_t *rdtype, int root,
                         struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_iscatter(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm, NULL,
                                 module);
}

int mca_coll_zip_iscatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                          int rcount, struct ompi_datatype_t *rdtype, int root,
                          struct ompi_communicator_t *comm, struct ompi_request_t **request,
                          mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_SCATTER : COLL_ZIP_OP_ISCATTER;
    const mca_coll_zip_layout_t many = {.buf = sbuf, .count = scount, .dtype = sdtype};
    const mca_coll_zip_layout_t one = {.buf = rbuf, .count = rcount, .dtype = rdtype};
    if (scatter_takes(m, comm, op, &many, &one, root)) {
        return mca_coll_zip_rooted_run(m, comm, op, &many, &one, root, request);
    }
    return COLL_ZIP_HAND_ON(m, request, scatter, sbuf, scount, sdtype, rbuf, rcount, rdtype, root,
                            comm);
}
