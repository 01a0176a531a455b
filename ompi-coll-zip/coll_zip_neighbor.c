/*
 * The neighbourhood collectives on Cartesian, graph and distributed-graph communicators, the
 * halo exchanges of stencil codes written as collectives: MPI_Neighbor_alltoall(v/w) and
 * MPI_Neighbor_allgather(v), blocking and non-blocking (alltoallw: a datatype per block, such as
 * a subarray per face of a 3-D grid). Each block is compressed once by its
 * sender where the sample says it pays (allgather(v)'s one block once for all neighbours) and
 * decoded once by its receiver (algo/neighbor.cpp); below the threshold and between ranks of one
 * node blocks move plainly.
 * The route is alltoall(v)'s (every rank sends at once), agreed per communicator, so every rank
 * takes zip's path or hands the call on alike (a non-blocking call before the communicator has
 * agreed is handed on: its start must not wait for the other ranks). Handed on: a communicator
 * without a topology, and a call the route hands on (a link faster than the codec, policy never
 * or observe).
 * Not taken: the persistent forms, which stay with the previous component.
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "mpi.h"
#include "ompi/constants.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

/* This rank's neighbours in the order of MPI's neighbourhood collectives: for a Cartesian
 * topology the source, then the destination, of a shift by +1 in each dimension (both lists
 * alike); a graph's neighbours (both lists alike); a distributed graph's sources and
 * destinations. MPI_PROC_NULL stays in its place. */
typedef struct neighbours {
    int in, out;
    int *sources, *dests;
    bool cart;
} neighbours_t;

static void neighbours_free(neighbours_t *nb)
{
    free(nb->sources);
    free(nb->dests);
    nb->sources = nb->dests = NULL;
}

static bool neighbours_alloc(neighbours_t *nb, int in, int out)
{
    nb->in = in;
    nb->out = out;
    nb->sources = malloc((size_t)(in > 0 ? in : 1) * sizeof(int));
    nb->dests = malloc((size_t)(out > 0 ? out : 1) * sizeof(int));
    return NULL != nb->sources && NULL != nb->dests;
}

/* Local queries of the communicator's topology: 1 with the neighbours in *nb, 0 where the
 * communicator has no topology (the same on every rank), -1 where a query or an allocation
 * failed (this rank's alone: the call fails rather than take another path than the others). */
static int neighbours_get(struct ompi_communicator_t *comm, neighbours_t *nb)
{
    *nb = (neighbours_t){0};
    int kind = MPI_UNDEFINED, rank = 0, n = 0, weighted = 0;
    if (MPI_SUCCESS != PMPI_Topo_test(comm, &kind)) {
        return -1;
    }
    switch (kind) {
    case MPI_CART:
        if (MPI_SUCCESS != PMPI_Cartdim_get(comm, &n) || !neighbours_alloc(nb, 2 * n, 2 * n)) {
            break;
        }
        for (int d = 0; d < n; ++d) {
            if (MPI_SUCCESS !=
                PMPI_Cart_shift(comm, d, 1, &nb->sources[2 * d], &nb->sources[2 * d + 1])) {
                neighbours_free(nb);
                return -1;
            }
            nb->dests[2 * d] = nb->sources[2 * d];
            nb->dests[2 * d + 1] = nb->sources[2 * d + 1];
        }
        nb->cart = true;
        return 1;
    case MPI_GRAPH:
        if (MPI_SUCCESS != PMPI_Comm_rank(comm, &rank) ||
            MPI_SUCCESS != PMPI_Graph_neighbors_count(comm, rank, &n) ||
            !neighbours_alloc(nb, n, n) ||
            MPI_SUCCESS != PMPI_Graph_neighbors(comm, rank, n, nb->sources)) {
            break;
        }
        for (int k = 0; k < n; ++k) {
            nb->dests[k] = nb->sources[k];
        }
        return 1;
    case MPI_DIST_GRAPH: {
        int in = 0, out = 0;
        if (MPI_SUCCESS != PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) ||
            !neighbours_alloc(nb, in, out)) {
            break;
        }
        /* Weights are read into arrays of their own: Open MPI skips them for an unweighted
         * graph, and GCC takes MPI_UNWEIGHTED ((int *) 2) for an array too short to write. */
        int *win = malloc((size_t)(in > 0 ? in : 1) * sizeof(int));
        int *wout = malloc((size_t)(out > 0 ? out : 1) * sizeof(int));
        const bool ok = NULL != win && NULL != wout &&
                        MPI_SUCCESS == PMPI_Dist_graph_neighbors(comm, in, nb->sources, win, out,
                                                                 nb->dests, wout);
        free(win);
        free(wout);
        if (ok) {
            return 1;
        }
        break;
    }
    default:
        return 0;
    }
    neighbours_free(nb);
    return -1;
}

/* Blocks k < n of l (the neighbour's index for its counts and displacements), block k at b's
 * index k ^ flip. */
static void neighbour_blocks(mca_coll_zip_blocks_t *b, const mca_coll_zip_layout_t *l, int n,
                             int flip)
{
    for (int k = 0; k < n; ++k) {
        int count = 0;
        const char *block = mca_coll_zip_layout_block(l, k, &count);
        mca_coll_zip_blocks_set(b, k ^ flip, block, count, mca_coll_zip_layout_type(l, k));
    }
}

/* The order of the sends. Messages between two ranks on one tag match in the order they were
 * posted, and the algorithm posts in the order of its lists. On a graph that is the order of the
 * edges, as in Open MPI's own components. On a Cartesian topology a rank may be both neighbours
 * in one dimension (a periodic dimension of two ranks, or of one: itself), and there Open MPI's
 * two components differ: coll/basic's blocking calls pair by direction, with a tag per
 * direction (what a rank sends towards +1 arrives in its neighbour's block from -1); libnbc's
 * non-blocking ones post every receive and then every send in neighbour order on one tag, and so
 * pair the k-th send with the k-th receive. zip gives what the component it stands in front of
 * gives: for a blocking call it sends each dimension's +1 block before its -1 block, while the
 * receives stay in MPI's order (-1 first), which pairs them by direction with one tag; a
 * non-blocking call keeps MPI's order on both sides. */
static void send_order(neighbours_t *nb)
{
    for (int k = 0; nb->cart && k + 1 < nb->out; k += 2) {
        const int minus = nb->dests[k];
        nb->dests[k] = nb->dests[k + 1];
        nb->dests[k + 1] = minus;
    }
}

/* This rank's memo of its last sample in calls of `op` (non-blocking ones have their own: both
 * may be in flight at once, and the memo holds one kind of call's history). The neighbourhood
 * calls end the collectives' list, one memo each. */
static zip_algo_sender_memo_t *memo_of(mca_coll_zip_module_t *m, int op)
{
    _Static_assert(COLL_ZIP_OP_COUNT - COLL_ZIP_OP_NEIGHBOR_ALLTOALL ==
                       sizeof(m->neighbor_memo) / sizeof(m->neighbor_memo[0]),
                   "a memo per neighbourhood call");
    return op >= COLL_ZIP_OP_NEIGHBOR_ALLTOALL
               ? &m->neighbor_memo[op - COLL_ZIP_OP_NEIGHBOR_ALLTOALL]
               : NULL;
}

/* The exchange: the blocks of snd to nb->dests, or with `one_block` (allgather(v)) snd's block
 * 0 to every one of them, which the algorithm then codes once (one view, one byte view); now, or
 * started as a non-blocking call with request. The call owns nb's lists from here on. */
static int neighbor_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                        const mca_coll_zip_layout_t *snd, const mca_coll_zip_layout_t *rcv,
                        neighbours_t *nb, bool one_block, struct ompi_request_t **request)
{
    mca_coll_zip_exchange_t x = {.root = -1, .owned = {nb->sources, nb->dests}};
    const int views = one_block ? 1 : (nb->out > 0 ? nb->out : 1);
    zip_block_t *same =
        one_block ? calloc((size_t)(nb->out > 0 ? nb->out : 1), sizeof(*same)) : NULL;
    x.owned[2] = same;
    if ((one_block && NULL == same) || OMPI_SUCCESS != mca_coll_zip_blocks_init(&x.sent, views) ||
        OMPI_SUCCESS != mca_coll_zip_blocks_init(&x.received, nb->in > 0 ? nb->in : 1)) {
        const int rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
        return mca_coll_zip_exchange(m, comm, op, &x, rc, request);
    }
    const int flip = one_block || !nb->cart || NULL != request ? 0 : 1;
    neighbour_blocks(&x.sent, snd, one_block ? 1 : nb->out, flip);
    for (int k = 0; one_block && k < nb->out; ++k) {
        same[k] = x.sent.blocks[0];
    }
    neighbour_blocks(&x.received, rcv, nb->in, 0);
    x.args = (zip_exchange_args_t){
        .send = one_block ? same : x.sent.blocks,
        .recv = x.received.blocks,
        .elem_type = mca_coll_zip_layout_elem_type(snd, one_block ? 1 : nb->out),
        .try_compress = 1,
        .threshold = mca_coll_zip_component.threshold,
        .peer_on_node = m->peer_on_node,
        .out_degree = nb->out,
        .in_degree = nb->in,
        .send_peers = nb->dests,
        .recv_peers = nb->sources,
        .memo = memo_of(m, op),
    };
    return mca_coll_zip_exchange(m, comm, op, &x, OMPI_SUCCESS, request);
}

/* Runs the call of `op` (blocking or not) if zip takes it (true, *rc its result); false: the
 * caller hands it on. */
static bool neighbor_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                           const mca_coll_zip_layout_t *snd, const mca_coll_zip_layout_t *rcv,
                           struct ompi_request_t **request, int *rc)
{
    const int twin = zip_coll_op_blocking(op);
    const bool one_block =
        COLL_ZIP_OP_NEIGHBOR_ALLGATHER == twin || COLL_ZIP_OP_NEIGHBOR_ALLGATHERV == twin;
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op);
    /* The neighbour lists are looked up only for a call zip takes: a halo exchange handed on
     * (a link faster than the codec) costs the route's lookup and nothing more. */
    int kind = MPI_UNDEFINED;
    if (MPI_IN_PLACE == snd->buf ||
        (MPI_SUCCESS == PMPI_Topo_test(comm, &kind) && MPI_UNDEFINED == kind)) {
        mca_coll_zip_stats_handed_on(op, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    }
    if (!mca_coll_zip_policy_route_takes_counted(m, comm, op)) {
        return false;
    }
    neighbours_t nb;
    if (neighbours_get(comm, &nb) <= 0) {
        /* A failed query or allocation is this rank's alone: the call fails rather than take
         * another path than the other ranks. */
        *rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op], comm);
        return true;
    }
    if (NULL == request) {
        send_order(&nb);
    }
    *rc = neighbor_run(m, comm, op, snd, rcv, &nb, one_block, request);
    return true;
}

int mca_coll_zip_neighbor_alltoallv(const void *sbuf, const int *scounts, const int *sdisps,
                                    struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                                    const int *rdisps, struct ompi_datatype_t *rdtype,
                                    struct ompi_communicator_t *comm,
                                    mca_coll_base_module_t *module)
{
    return mca_coll_zip_ineighbor_alltoallv(sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps,
                                            rdtype, comm, NULL, module);
}

int mca_coll_zip_ineighbor_alltoallv(const void *sbuf, const int *scounts, const int *sdisps,
                                     struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                                     const int *rdisps, struct ompi_datatype_t *rdtype,
                                     struct ompi_communicator_t *comm,
                                     struct ompi_request_t **request,
                                     mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op =
        NULL == request ? COLL_ZIP_OP_NEIGHBOR_ALLTOALLV : COLL_ZIP_OP_INEIGHBOR_ALLTOALLV;
    const mca_coll_zip_layout_t snd = {
        .buf = sbuf, .counts = scounts, .disps = sdisps, .dtype = sdtype};
    const mca_coll_zip_layout_t rcv = {
        .buf = rbuf, .counts = rcounts, .disps = rdisps, .dtype = rdtype};
    int rc = OMPI_SUCCESS;
    if (neighbor_takes(m, comm, op, &snd, &rcv, request, &rc)) {
        return rc;
    }
    return COLL_ZIP_HAND_ON(m, request, neighbor_alltoallv, sbuf, scounts, sdisps, sdtype, rbuf,
                            rcounts, rdisps, rdtype, comm);
}

int mca_coll_zip_neighbor_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                   void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                   struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_ineighbor_alltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, NULL,
                                           module);
}

int mca_coll_zip_ineighbor_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                    void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                    struct ompi_communicator_t *comm,
                                    struct ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op = NULL == request ? COLL_ZIP_OP_NEIGHBOR_ALLTOALL : COLL_ZIP_OP_INEIGHBOR_ALLTOALL;
    const mca_coll_zip_layout_t snd = {.buf = sbuf, .count = scount, .dtype = sdtype};
    const mca_coll_zip_layout_t rcv = {.buf = rbuf, .count = rcount, .dtype = rdtype};
    int rc = OMPI_SUCCESS;
    if (neighbor_takes(m, comm, op, &snd, &rcv, request, &rc)) {
        return rc;
    }
    return COLL_ZIP_HAND_ON(m, request, neighbor_alltoall, sbuf, scount, sdtype, rbuf, rcount,
                            rdtype, comm);
}

int mca_coll_zip_neighbor_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                    void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                    struct ompi_communicator_t *comm,
                                    mca_coll_base_module_t *module)
{
    return mca_coll_zip_ineighbor_allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, NULL,
                                            module);
}

int mca_coll_zip_ineighbor_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                     void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                     struct ompi_communicator_t *comm,
                                     struct ompi_request_t **request,
                                     mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op =
        NULL == request ? COLL_ZIP_OP_NEIGHBOR_ALLGATHER : COLL_ZIP_OP_INEIGHBOR_ALLGATHER;
    const mca_coll_zip_layout_t snd = {.buf = sbuf, .count = scount, .dtype = sdtype};
    const mca_coll_zip_layout_t rcv = {.buf = rbuf, .count = rcount, .dtype = rdtype};
    int rc = OMPI_SUCCESS;
    if (neighbor_takes(m, comm, op, &snd, &rcv, request, &rc)) {
        return rc;
    }
    return COLL_ZIP_HAND_ON(m, request, neighbor_allgather, sbuf, scount, sdtype, rbuf, rcount,
                            rdtype, comm);
}

int mca_coll_zip_neighbor_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                     void *rbuf, const int *rcounts, const int *displs,
                                     struct ompi_datatype_t *rdtype,
                                     struct ompi_communicator_t *comm,
                                     mca_coll_base_module_t *module)
{
    return mca_coll_zip_ineighbor_allgatherv(sbuf, scount, sdtype, rbuf, rcounts, displs, rdtype,
                                             comm, NULL, module);
}

int mca_coll_zip_ineighbor_allgatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                      void *rbuf, const int *rcounts, const int *displs,
                                      struct ompi_datatype_t *rdtype,
                                      struct ompi_communicator_t *comm,
                                      struct ompi_request_t **request,
                                      mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op =
        NULL == request ? COLL_ZIP_OP_NEIGHBOR_ALLGATHERV : COLL_ZIP_OP_INEIGHBOR_ALLGATHERV;
    const mca_coll_zip_layout_t snd = {.buf = sbuf, .count = scount, .dtype = sdtype};
    const mca_coll_zip_layout_t rcv = {
        .buf = rbuf, .counts = rcounts, .disps = displs, .dtype = rdtype};
    int rc = OMPI_SUCCESS;
    if (neighbor_takes(m, comm, op, &snd, &rcv, request, &rc)) {
        return rc;
    }
    return COLL_ZIP_HAND_ON(m, request, neighbor_allgatherv, sbuf, scount, sdtype, rbuf, rcounts,
                            displs, rdtype, comm);
}

int mca_coll_zip_neighbor_alltoallw(const void *sbuf, const int *scounts, const MPI_Aint *sdisps,
                                    struct ompi_datatype_t *const *sdtypes, void *rbuf,
                                    const int *rcounts, const MPI_Aint *rdisps,
                                    struct ompi_datatype_t *const *rdtypes,
                                    struct ompi_communicator_t *comm,
                                    mca_coll_base_module_t *module)
{
    return mca_coll_zip_ineighbor_alltoallw(sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps,
                                            rdtypes, comm, NULL, module);
}

int mca_coll_zip_ineighbor_alltoallw(const void *sbuf, const int *scounts, const MPI_Aint *sdisps,
                                     struct ompi_datatype_t *const *sdtypes, void *rbuf,
                                     const int *rcounts, const MPI_Aint *rdisps,
                                     struct ompi_datatype_t *const *rdtypes,
                                     struct ompi_communicator_t *comm,
                                     struct ompi_request_t **request,
                                     mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op =
        NULL == request ? COLL_ZIP_OP_NEIGHBOR_ALLTOALLW : COLL_ZIP_OP_INEIGHBOR_ALLTOALLW;
    const mca_coll_zip_layout_t snd = {
        .buf = sbuf, .counts = scounts, .byte_disps = sdisps, .types = sdtypes};
    const mca_coll_zip_layout_t rcv = {
        .buf = rbuf, .counts = rcounts, .byte_disps = rdisps, .types = rdtypes};
    int rc = OMPI_SUCCESS;
    if (neighbor_takes(m, comm, op, &snd, &rcv, request, &rc)) {
        return rc;
    }
    return COLL_ZIP_HAND_ON(m, request, neighbor_alltoallw, sbuf, scounts, sdisps, sdtypes, rbuf,
                            rcounts, rdisps, rdtypes, comm);
}
