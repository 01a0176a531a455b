/*
 * MPI_Scatterv and MPI_Iscatterv: the root compresses each block at or above `threshold` once,
 * for its destination, and sends them one after the other, each while the next one is coded
 * (coll_zip_rooted.c); other blocks move plainly. MPI_IN_PLACE at the root keeps its block in
 * the send buffer.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

/* Whether zip takes this scatterv (of `op`: blocking or not); otherwise it was counted as
 * handed on. The policy routes the call alike on every rank; under observe the root judges. */
static bool scatterv_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                           const mca_coll_zip_layout_t *many, int root)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    const bool takes = ompi_comm_rank(comm) == root
                           ? mca_coll_zip_policy_takes_blocks(m, comm, op, many, root)
                           : mca_coll_zip_policy_takes(m, comm, op, NULL, 0, NULL, 0);
    return takes && !mca_coll_zip_uncoded_hands_on(m, comm, op);
}

int mca_coll_zip_scatterv(const void *sbuf, const int *scounts, const int *disps,
                          struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                          struct ompi_datatype_t *rdtype, int root,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_iscatterv(sbuf, scounts, disps, sdtype, rbuf, rcount, rdtype, root, comm,
                                  NULL, module);
}

int mca_coll_zip_iscatterv(const void *sbuf, const int *scounts, const int *disps,
                           struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                           struct ompi_datatype_t *rdtype, int root,
                           struct ompi_communicator_t *comm, struct ompi_request_t **request,
                           mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_SCATTERV : COLL_ZIP_OP_ISCATTERV;
    const mca_coll_zip_layout_t many = {
        .buf = sbuf, .counts = scounts, .disps = disps, .dtype = sdtype};
    const mca_coll_zip_layout_t one = {.buf = rbuf, .count = rcount, .dtype = rdtype};
    if (scatterv_takes(m, comm, op, &many, root)) {
        return mca_coll_zip_rooted_run(m, comm, op, &many, &one, root, request);
    }
    return COLL_ZIP_HAND_ON(m, request, scatterv, sbuf, scounts, disps, sdtype, rbuf, rcount,
                            rdtype, root, comm);
}
