/*
 * MPI_Allgatherv and MPI_Iallgatherv: a ring (algo/ring.cpp) or Bruck's steps (algo/bruck.cpp),
 * in which each rank compresses its own block once, the frame travels unchanged from rank to
 * rank, and every receiver decodes it once. Every rank knows every block's size, so a call whose
 * blocks are all below the threshold goes to the previous component whole, and every rank picks
 * the same schedule.
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

int mca_coll_zip_allgatherv_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                                const mca_coll_zip_layout_t *mine, const mca_coll_zip_layout_t *rcv,
                                int algorithm, struct ompi_request_t **request)
{
    const int rank = ompi_comm_rank(comm);
    mca_coll_zip_exchange_t x = {.root = -1};
    if (OMPI_SUCCESS != mca_coll_zip_blocks_init(&x.received, ompi_comm_size(comm))) {
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
    }
    mca_coll_zip_blocks_layout(&x.received, rcv, -1);
    /* This rank's block goes into its place first (MPI_IN_PLACE: it is there) and travels from
     * there. */
    const int rc =
        MPI_IN_PLACE == mine->buf ? OMPI_SUCCESS : mca_coll_zip_layout_copy(mine, 0, rcv, rank);
    x.args = (zip_exchange_args_t){
        .send = &x.received.blocks[rank],
        .recv = x.received.blocks,
        .elem_type = mca_coll_zip_elem_type(rcv->dtype),
        .try_compress = 1,
        .threshold = mca_coll_zip_component.threshold,
        .peer_on_node = m->peer_on_node,
        .algorithm = algorithm,
    };
    if (NULL == request) {
        x.seen = &m->allgather_seen[x.args.elem_type];
    }
    return mca_coll_zip_exchange(m, comm, op, &x, rc, request);
}

static size_t block_bytes(const void *rcv, int p)
{
    return mca_coll_zip_layout_bytes((const mca_coll_zip_layout_t *)rcv, p);
}

/* The schedule (ZIP_ALLGATHERV_*) for blocks of these sizes: coll_zip_allgatherv_algorithm, or
 * what zip_algo_allgatherv_choose predicts faster (the latency is the cost models' parameter),
 * with the ratio the last blocking call of this element type achieved. The ranks per node and
 * per core are the ones agreed with the speeds (none where none were: policy always, which then
 * never takes Bruck by itself, nor weighs a ratio). *by_ratio: handed on for the ratio alone. */
static int schedule(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                    const mca_coll_zip_layout_t *rcv, bool blocking, bool *by_ratio)
{
    *by_ratio = false;
    const int algorithm = mca_coll_zip_component.allgatherv_algorithm;
    if (ZIP_ALLGATHERV_AUTO != algorithm) {
        return algorithm;
    }
    zip_algo_seen_t *seen = &m->allgather_seen[mca_coll_zip_elem_type(rcv->dtype)];
    const double ratio = m->agreed ? zip_algo_seen_ratio(seen) : 0.0;
    const zip_algo_agreed_t *agreed = m->agreed ? &m->speeds : NULL;
    const int size = ompi_comm_size(comm), pairs = mca_coll_zip_pairs_serialise(m, comm);
    const double link_Bps = m->call_policy.speeds.link_Bps,
                 latency_s = mca_coll_zip_component.bcast_latency_us * 1e-6;
    const int chosen = zip_algo_allgatherv_choose(block_bytes, rcv, size, agreed, link_Bps,
                                                  latency_s, pairs, ratio, m->agreed && blocking);
    zip_algo_seen_chosen(seen, chosen);
    /* Handed on for the ratio seen (without it zip would have taken the call): the data did not
     * shrink enough to pay, as the policy's incompressible verdict says of a sample. */
    *by_ratio = ZIP_ALLGATHERV_HAND_ON == chosen && ratio > 0.0 &&
                ZIP_ALLGATHERV_HAND_ON != zip_algo_allgatherv_choose(block_bytes, rcv, size, agreed,
                                                                     link_Bps, latency_s, pairs,
                                                                     0.0, m->agreed && blocking);
    return chosen;
}

/* Whether zip takes this allgather(v) (of `op`, blocking or not) whose largest block is
 * `largest`, and with which schedule; otherwise it was counted as handed on. Under observe this
 * rank judges its own block, wherever it is. */
bool mca_coll_zip_allgather_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                  int op, const mca_coll_zip_layout_t *mine,
                                  const mca_coll_zip_layout_t *rcv, size_t largest, int *algorithm)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    const int rank = ompi_comm_rank(comm);
    int count = 0;
    const mca_coll_zip_layout_t *own = MPI_IN_PLACE == mine->buf ? rcv : mine;
    const char *sample =
        mca_coll_zip_layout_block(own, MPI_IN_PLACE == mine->buf ? rank : 0, &count);
    if (!mca_coll_zip_policy_takes_known(m, comm, op, largest, sample, count, own->dtype,
                                         mca_coll_zip_layout_bytes(rcv, rank))) {
        return false;
    }
    /* Many ranks over a link with latency: the ring pays p - 1 latencies where Bruck (and
     * tuned's recursive doubling) pay log2 p; blocks of unequal sizes make every ring step wait
     * for the largest. Where neither of zip's schedules suits, tuned's are faster. */
    bool by_ratio = false;
    *algorithm = schedule(m, comm, rcv, COLL_ZIP_OP_ALLGATHER == op || COLL_ZIP_OP_ALLGATHERV == op,
                          &by_ratio);
    opal_output_verbose(10, mca_coll_zip_component.output,
                        "coll:zip: %s of %zu-byte blocks at most on %d ranks: %s",
                        zip_coll_op_calls[op], largest, ompi_comm_size(comm),
                        ZIP_ALLGATHERV_RING == *algorithm      ? "ring"
                        : ZIP_ALLGATHERV_HAND_ON == *algorithm ? "handed on"
                                                               : "bruck");
    if (ZIP_ALLGATHERV_HAND_ON == *algorithm) {
        mca_coll_zip_stats_handed_on(
            op, by_ratio ? ZIP_VERDICT_INCOMPRESSIBLE : ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    }
    return true;
}

static size_t largest_block(const mca_coll_zip_layout_t *rcv, int size)
{
    size_t largest = 0;
    for (int p = 0; p < size; ++p) {
        const size_t b = mca_coll_zip_layout_bytes(rcv, p);
        largest = b > largest ? b : largest;
    }
    return largest;
}

int mca_coll_zip_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, const int *rcounts, const int *disps,
                            struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *module)
{
    return mca_coll_zip_iallgatherv(sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, comm, NULL,
                                    module);
}

int mca_coll_zip_iallgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, const int *rcounts, const int *disps,
                             struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                             struct ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_ALLGATHERV : COLL_ZIP_OP_IALLGATHERV;
    const mca_coll_zip_layout_t mine = {.buf = sbuf, .count = scount, .dtype = sdtype};
    const mca_coll_zip_layout_t rcv = {
        .buf = rbuf, .counts = rcounts, .disps = disps, .dtype = rdtype};
    int algorithm = ZIP_ALLGATHERV_RING;
    if (mca_coll_zip_allgather_takes(m, comm, op, &mine, &rcv,
                                     largest_block(&rcv, ompi_comm_size(comm)), &algorithm)) {
        return mca_coll_zip_allgatherv_run(m, comm, op, &mine, &rcv, algorithm, request);
    }
    return COLL_ZIP_HAND_ON(m, request, allgatherv, sbuf, scount, sdtype, rbuf, rcounts, disps,
                            rdtype, comm);
}
