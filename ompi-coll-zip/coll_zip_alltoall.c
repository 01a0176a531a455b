/*
 * MPI_Alltoall and MPI_Ialltoall: alltoallv's algorithm with equal blocks. Every rank knows the
 * block size (MPI makes the type signatures match), so a call of small blocks goes to the
 * previous component whole, like a small bcast; so does MPI_IN_PLACE.
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"

#include "coll_zip.h"
#include "coll_zip_view.h"

/* Whether zip takes this alltoall (of `op`: blocking or not); otherwise it was counted as
 * handed on. */
static bool alltoall_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                           const mca_coll_zip_layout_t *snd, const mca_coll_zip_layout_t *rcv)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    if (MPI_IN_PLACE == snd->buf) {
        mca_coll_zip_stats_handed_on(op, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    }
    /* Under observe the block for the next rank is the sample. */
    const int size = ompi_comm_size(comm);
    int count = 0;
    const size_t block = mca_coll_zip_layout_bytes(rcv, 0);
    const char *sample = mca_coll_zip_layout_block(snd, (ompi_comm_rank(comm) + 1) % size, &count);
    return mca_coll_zip_policy_takes_known(m, comm, op, block, sample, count, snd->dtype,
                                           block * (size_t)(size - 1)) &&
           !mca_coll_zip_uncoded_hands_on(m, comm, op);
}

int mca_coll_zip_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                          int rcount, struct ompi_datatype_t *rdtype,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_ialltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, NULL, module);
}

int mca_coll_zip_ialltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                           int rcount, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, struct ompi_request_t **request,
                           mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_ALLTOALL : COLL_ZIP_OP_IALLTOALL;
    const mca_coll_zip_layout_t snd = {.buf = sbuf, .count = scount, .dtype = sdtype};
    const mca_coll_zip_layout_t rcv = {.buf = rbuf, .count = rcount, .dtype = rdtype};
    if (alltoall_takes(m, comm, op, &snd, &rcv)) {
        return mca_coll_zip_alltoallv_run(m, comm, op, &snd, &rcv, request);
    }
    return COLL_ZIP_HAND_ON(m, request, alltoall, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm);
}
