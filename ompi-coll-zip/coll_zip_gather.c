/*
 * MPI_Gather and MPI_Igather: gatherv's algorithm with equal blocks (coll_zip_rooted.c). Every
 * rank knows the block size, so a call of small blocks goes to the previous component whole.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

/* Whether zip takes this gather (of `op`: blocking or not); otherwise it was counted as handed
 * on. The root's send arguments may be MPI_IN_PLACE's: it goes by its receive block. */
static bool gather_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                         const mca_coll_zip_layout_t *many, const mca_coll_zip_layout_t *one,
                         int root)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    const bool is_root = ompi_comm_rank(comm) == root;
    const size_t block = mca_coll_zip_layout_bytes(is_root ? many : one, 0);
    return mca_coll_zip_policy_takes_known(m, comm, op, block, is_root ? NULL : one->buf,
                                           one->count, one->dtype, is_root ? 0 : block) &&
           !mca_coll_zip_uncoded_hands_on(m, comm, op);
}

int mca_coll_zip_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                        int rcount, struct ompi_datatype_t *rdtype, int root,
                        struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_igather(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm, NULL,
                                module);
}

int mca_coll_zip_igather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         int rcount, struct ompi_datatype_t *rdtype, int root,
                         struct ompi_communicator_t *comm, struct ompi_request_t **request,
                         mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_GATHER : COLL_ZIP_OP_IGATHER;
    const mca_coll_zip_layout_t many = {.buf = rbuf, .count = rcount, .dtype = rdtype};
    const mca_coll_zip_layout_t one = {.buf = sbuf, .count = scount, .dtype = sdtype};
    if (gather_takes(m, comm, op, &many, &one, root)) {
        return mca_coll_zip_rooted_run(m, comm, op, &many, &one, root, request);
    }
    return COLL_ZIP_HAND_ON(m, request, gather, sbuf, scount, sdtype, rbuf, rcount, rdtype, root,
                            comm);
}
