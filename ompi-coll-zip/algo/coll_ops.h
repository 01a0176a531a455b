/*
 * The collectives coll/zip takes, MPI-free: their op indices, names, which blocking collective
 * each non-blocking one shares its algorithm and routing with, how their data flow, and which
 * algorithm runs a blocking call. The glue (coll_zip.h) builds its module and entry points from
 * the same list.
 */
#ifndef ZIP_COLL_ALGO_COLL_OPS_H
#define ZIP_COLL_ALGO_COLL_OPS_H

#include "zip_algo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every collective zip takes, in the order of the statistics rows: X(OP, name, Call) gives its
 * op index COLL_ZIP_OP_<OP>, its name (the statistics row and MPI_T counters, the module's
 * coll_<name>, mca_coll_zip_<name>, previous_<name>) and its MPI call MPI_<Call>. The module
 * offers mca_coll_zip_<name> for each and keeps the previous component's function and module
 * (saved and retained at enable) to hand calls on. */
/* clang-format off */
#define COLL_ZIP_COLLECTIVES(X)                                                                    \
    X(BCAST, bcast, Bcast)                                                                         \
    X(ALLTOALLV, alltoallv, Alltoallv)                                                             \
    X(GATHERV, gatherv, Gatherv)                                                                   \
    X(ALLREDUCE, allreduce, Allreduce)                                                             \
    X(REDUCE, reduce, Reduce)                                                                      \
    X(IALLREDUCE, iallreduce, Iallreduce)                                                          \
    X(IBCAST, ibcast, Ibcast)                                                                      \
    X(ALLTOALL, alltoall, Alltoall)                                                                \
    X(GATHER, gather, Gather)                                                                      \
    X(SCATTERV, scatterv, Scatterv)                                                                \
    X(SCATTER, scatter, Scatter)                                                                   \
    X(ALLGATHERV, allgatherv, Allgatherv)                                                          \
    X(ALLGATHER, allgather, Allgather)                                                             \
    X(IALLTOALL, ialltoall, Ialltoall)                                                             \
    X(IALLTOALLV, ialltoallv, Ialltoallv)                                                          \
    X(IGATHER, igather, Igather)                                                                   \
    X(IGATHERV, igatherv, Igatherv)                                                                \
    X(IALLGATHER, iallgather, Iallgather)                                                          \
    X(IALLGATHERV, iallgatherv, Iallgatherv)                                                       \
    X(ISCATTER, iscatter, Iscatter)                                                                \
    X(ISCATTERV, iscatterv, Iscatterv)                                                             \
    X(ALLTOALLW, alltoallw, Alltoallw)                                                             \
    X(IALLTOALLW, ialltoallw, Ialltoallw)                                                          \
    X(REDUCE_SCATTER_BLOCK, reduce_scatter_block, Reduce_scatter_block)                            \
    X(REDUCE_SCATTER, reduce_scatter, Reduce_scatter)                                              \
    X(IREDUCE_SCATTER_BLOCK, ireduce_scatter_block, Ireduce_scatter_block)                         \
    X(IREDUCE_SCATTER, ireduce_scatter, Ireduce_scatter)                                           \
    X(IREDUCE, ireduce, Ireduce)                                                                   \
    X(SCAN, scan, Scan)                                                                            \
    X(EXSCAN, exscan, Exscan)                                                                      \
    X(ISCAN, iscan, Iscan)                                                                         \
    X(IEXSCAN, iexscan, Iexscan)                                                                   \
    X(NEIGHBOR_ALLTOALL, neighbor_alltoall, Neighbor_alltoall)                                     \
    X(NEIGHBOR_ALLTOALLV, neighbor_alltoallv, Neighbor_alltoallv)                                  \
    X(NEIGHBOR_ALLGATHER, neighbor_allgather, Neighbor_allgather)                                  \
    X(NEIGHBOR_ALLGATHERV, neighbor_allgatherv, Neighbor_allgatherv)                               \
    X(INEIGHBOR_ALLTOALL, ineighbor_alltoall, Ineighbor_alltoall)                                  \
    X(INEIGHBOR_ALLTOALLV, ineighbor_alltoallv, Ineighbor_alltoallv)                               \
    X(INEIGHBOR_ALLGATHER, ineighbor_allgather, Ineighbor_allgather)                               \
    X(INEIGHBOR_ALLGATHERV, ineighbor_allgatherv, Ineighbor_allgatherv)                            \
    X(NEIGHBOR_ALLTOALLW, neighbor_alltoallw, Neighbor_alltoallw)                                  \
    X(INEIGHBOR_ALLTOALLW, ineighbor_alltoallw, Ineighbor_alltoallw)
/* clang-format on */

enum {
#define COLL_ZIP_OP_INDEX(OP, name, Call) COLL_ZIP_OP_##OP,
    COLL_ZIP_COLLECTIVES(COLL_ZIP_OP_INDEX)
#undef COLL_ZIP_OP_INDEX
        COLL_ZIP_OP_COUNT
};

/* Each collective's name ("bcast") and MPI call ("MPI_Bcast"), by COLL_ZIP_OP_*. */
extern const char *const zip_coll_op_names[COLL_ZIP_OP_COUNT];
extern const char *const zip_coll_op_calls[COLL_ZIP_OP_COUNT];

/* The blocking collective whose algorithm, routing and tag a call of `op` shares: op itself for
 * a blocking one, COLL_ZIP_OP_ALLTOALLV for COLL_ZIP_OP_IALLTOALLV, ... */
int zip_coll_op_blocking(int op);

/* How the data of a call of `op` flow (zip_algo_route). */
zip_algo_flow_t zip_coll_op_flow(int op);

/* Runs the algorithm of a blocking call of `op` (alltoall: alltoallv's, gather: gatherv's, ...)
 * with args of its type (zip_bcast_args_t, zip_exchange_args_t, zip_allreduce_args_t); root
 * for the rooted ones. Returns ZIP_ALGO_OK or a ZIP_ALGO_ERR_*. */
int zip_coll_op_run(int op, const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                    const void *args, zip_algo_result_t *result);

/* Starts a non-blocking call of `op` likewise (zip_algo_ibcast, zip_algo_ialltoallv, ...);
 * NULL for lack of memory or for an op without a non-blocking algorithm (reduce). */
zip_algo_call_t *zip_coll_op_start(int op, const zip_transport_t *t, const zip_codec_ops_t *codec,
                                   int root, const void *args, zip_algo_result_t *result);

/* What a failed algorithm's status (ZIP_ALGO_ERR_*) means, for the error message. */
const char *zip_coll_error_text(int algo_rc);

#ifdef __cplusplus
}
#endif

#endif /* ZIP_COLL_ALGO_COLL_OPS_H */
