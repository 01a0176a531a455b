/*
 * MPI_Alltoallv and MPI_Ialltoallv: the algorithm (algo/alltoallv_algo.cpp) compresses every
 * block of at least `threshold` bytes for its destination, in pairwise steps, and moves the
 * others plainly, all posted at once; with coll_zip_alltoallv_temporal the blocking calls may
 * code a block against the previous one to the same peer (algo/temporal_streams.hpp).
 * MPI_Alltoallw and MPI_Ialltoallw (a datatype and byte displacement per block: the transposes
 * of FFT codes written with subarray types) take the same algorithm, its blocks packed only
 * where they are coded; their in-place form goes to the previous component.
 * MPI_IN_PLACE is used by all ranks or none; blocking calls with it go to the previous component,
 * non-blocking ones zip runs itself (ialltoallv_in_place says why). Under policy
 * auto on a fast link the calls go to the previous component for a while where the ranks found
 * that none of them coded anything in the last ones (zip_algo_uncoded_t).
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "mpi.h"
#include "ompi/constants.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

/* The exchange, compressing or not (`compress`). With in_place (snd is rcv) the local block stays
 * where it is and every other block is sent from a private copy of it. */
static int exchange(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                    const mca_coll_zip_layout_t *snd, const mca_coll_zip_layout_t *rcv,
                    struct ompi_request_t **request, bool in_place, bool compress)
{
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    zip_algo_uncoded_t *u = mca_coll_zip_uncoded_of(m, comm, op);
    const bool share = NULL != u && NULL == request && zip_algo_uncoded_shares(u);
    int rc = in_place ? MPI_SUCCESS : mca_coll_zip_layout_copy(snd, rank, rcv, rank);
    if (MPI_SUCCESS != rc) {
        if (share) {
            mca_coll_zip_uncoded_share(m, comm, u, true);
        }
        return rc;
    }
    mca_coll_zip_exchange_t x = {.root = -1, .uncoded = u, .share = share};
    if (OMPI_SUCCESS != mca_coll_zip_blocks_init(&x.sent, size) ||
        OMPI_SUCCESS != mca_coll_zip_blocks_init(&x.received, size)) {
        rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
        return mca_coll_zip_exchange(m, comm, op, &x, rc, request);
    }
    mca_coll_zip_blocks_layout(&x.sent, snd, rank);
    mca_coll_zip_blocks_layout(&x.received, rcv, rank);
    for (int p = 0; in_place && p < size && OMPI_SUCCESS == rc; ++p) {
        rc = p == rank ? OMPI_SUCCESS : mca_coll_zip_view_detach(&x.sent.views[p]);
    }
    if (OMPI_SUCCESS != rc) {
        rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
        return mca_coll_zip_exchange(m, comm, op, &x, rc, request);
    }
    x.args = (zip_exchange_args_t){
        .send = x.sent.blocks,
        .recv = x.received.blocks,
        .elem_type = mca_coll_zip_layout_elem_type(snd, size),
        .try_compress = compress,
        .threshold = mca_coll_zip_component.threshold,
        .window = mca_coll_zip_component.alltoallv_window,
        .peer_on_node = m->peer_on_node,
        /* Not for the non-blocking calls: two of them in flight could code one stream's
         * blocks out of order (algo/zip_algo.h). */
        .temporal = NULL == request ? m->temporal : NULL,
    };
    return mca_coll_zip_exchange(m, comm, op, &x, OMPI_SUCCESS, request);
}

int mca_coll_zip_alltoallv_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                               const mca_coll_zip_layout_t *snd, const mca_coll_zip_layout_t *rcv,
                               struct ompi_request_t **request)
{
    return exchange(m, comm, op, snd, rcv, request, false, true);
}

/* MPI_Ialltoallv with MPI_IN_PLACE. Open MPI's own (libnbc's, 4.1.4 and 5.0.5 alike) gives wrong
 * data from 4 ranks where some counts are zero: its schedule then sends a block and receives the
 * peer's block into the same place in one round, and the receive may land first. zip runs every
 * such call itself: compressed where the policy takes the call, raw otherwise (a call of
 * zip's either way in the stats), the blocks sent from copies so that the receives may land at
 * once. Blocking in-place calls go to tuned, whose algorithm is right. */
static int ialltoallv_in_place(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                               const mca_coll_zip_layout_t *rcv, struct ompi_request_t **request)
{
    const int op = COLL_ZIP_OP_IALLTOALLV;
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    zip_algo_uncoded_t *u = mca_coll_zip_uncoded_of(m, comm, op);
    const bool compress = mca_coll_zip_policy_route_takes(m, comm, op) &&
                          (NULL == u || !zip_algo_uncoded_hands_on(u));
    return exchange(m, comm, op, rcv, rcv, request, true, compress);
}

/* Whether zip takes this alltoallv (of `op`: blocking or not); otherwise it was counted as
 * handed on. */
static bool alltoallv_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                            const mca_coll_zip_layout_t *snd)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    if (MPI_IN_PLACE == snd->buf) {
        mca_coll_zip_stats_handed_on(op, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    }
    return mca_coll_zip_policy_takes_blocks(m, comm, op, snd, ompi_comm_rank(comm)) &&
           !mca_coll_zip_uncoded_hands_on(m, comm, op);
}

int mca_coll_zip_alltoallv(const void *sbuf, const int *scounts, const int *sdisps,
                           struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                           const int *rdisps, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_ialltoallv(sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype,
                                   comm, NULL, module);
}

int mca_coll_zip_ialltoallv(const void *sbuf, const int *scounts, const int *sdisps,
                            struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                            const int *rdisps, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, struct ompi_request_t **request,
                            mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_ALLTOALLV : COLL_ZIP_OP_IALLTOALLV;
    const mca_coll_zip_layout_t snd = {
        .buf = sbuf, .counts = scounts, .disps = sdisps, .dtype = sdtype};
    const mca_coll_zip_layout_t rcv = {
        .buf = rbuf, .counts = rcounts, .disps = rdisps, .dtype = rdtype};
    if (MPI_IN_PLACE == sbuf && NULL != request) {
        return ialltoallv_in_place(m, comm, &rcv, request);
    }
    if (alltoallv_takes(m, comm, op, &snd)) {
        return mca_coll_zip_alltoallv_run(m, comm, op, &snd, &rcv, request);
    }
    return COLL_ZIP_HAND_ON(m, request, alltoallv, sbuf, scounts, sdisps, sdtype, rbuf, rcounts,
                            rdisps, rdtype, comm);
}

int mca_coll_zip_alltoallw(const void *sbuf, const int *scounts, const int *sdisps,
                           struct ompi_datatype_t *const *sdtypes, void *rbuf, const int *rcounts,
                           const int *rdisps, struct ompi_datatype_t *const *rdtypes,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_ialltoallw(sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps, rdtypes,
                                   comm, NULL, module);
}

int mca_coll_zip_ialltoallw(const void *sbuf, const int *scounts, const int *sdisps,
                            struct ompi_datatype_t *const *sdtypes, void *rbuf, const int *rcounts,
                            const int *rdisps, struct ompi_datatype_t *const *rdtypes,
                            struct ompi_communicator_t *comm, struct ompi_request_t **request,
                            mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_ALLTOALLW : COLL_ZIP_OP_IALLTOALLW;
    /* Open MPI 4.1 declares alltoallw's displacements as int (bytes, as MPI says). */
    const int size = ompi_comm_size(comm);
    MPI_Aint stack_disps[2][16];
    MPI_Aint *sd = stack_disps[0], *rd = stack_disps[1], *heap = NULL;
    if (size > 16) {
        heap = malloc(2 * (size_t)size * sizeof(*heap));
        if (NULL == heap) {
            return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
        }
        sd = heap;
        rd = heap + size;
    }
    for (int p = 0; p < size; ++p) {
        sd[p] = MPI_IN_PLACE == sbuf ? 0 : sdisps[p];
        rd[p] = rdisps[p];
    }
    const mca_coll_zip_layout_t snd = {
        .buf = sbuf, .counts = scounts, .byte_disps = sd, .types = sdtypes};
    const mca_coll_zip_layout_t rcv = {
        .buf = rbuf, .counts = rcounts, .byte_disps = rd, .types = rdtypes};
    int rc;
    if (alltoallv_takes(m, comm, op, &snd)) {
        rc = mca_coll_zip_alltoallv_run(m, comm, op, &snd, &rcv, request);
    } else {
        rc = COLL_ZIP_HAND_ON(m, request, alltoallw, sbuf, scounts, sdisps, sdtypes, rbuf, rcounts,
                              rdisps, rdtypes, comm);
    }
    free(heap);
    return rc;
}
