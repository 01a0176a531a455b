/*
 * MPI_Gatherv and MPI_Igatherv: each non-root compresses its block (when at least `threshold`
 * bytes and it shrinks), the root decodes blocks in arrival order (coll_zip_rooted.c); other
 * blocks move plainly, their receives posted first at the root.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

/* Whether zip takes this gatherv (of `op`: blocking or not); otherwise it was counted as handed
 * on. The policy routes the call alike on every rank; under observe a sender judges its own
 * block. */
static bool gatherv_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                          const mca_coll_zip_layout_t *one, int root)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    const bool is_root = ompi_comm_rank(comm) == root;
    const size_t mine = is_root ? 0 : mca_coll_zip_layout_bytes(one, 0);
    return mca_coll_zip_policy_takes(m, comm, op, is_root ? NULL : one->buf, one->count, one->dtype,
                                     mine) &&
           !mca_coll_zip_uncoded_hands_on(m, comm, op);
}

int mca_coll_zip_gatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                         int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_igatherv(sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm,
                                 NULL, module);
}

int mca_coll_zip_igatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                          const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                          int root, struct ompi_communicator_t *comm,
                          struct ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_GATHERV : COLL_ZIP_OP_IGATHERV;
    const mca_coll_zip_layout_t many = {
        .buf = rbuf, .counts = rcounts, .disps = disps, .dtype = rdtype};
    const mca_coll_zip_layout_t one = {.buf = sbuf, .count = scount, .dtype = sdtype};
    if (gatherv_takes(m, comm, op, &one, root)) {
        return mca_coll_zip_rooted_run(m, comm, op, &many, &one, root, request);
    }
    return COLL_ZIP_HAND_ON(m, request, gatherv, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype,
                            root, comm);
}
