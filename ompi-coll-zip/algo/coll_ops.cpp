// The collectives coll/zip takes (coll_ops.h): names, blocking twins, data flows, and the
// algorithm behind each.
#include "coll_ops.h"

extern "C" {

#define ZIP_OP_NAME(OP, name, Call) #name,
#define ZIP_OP_CALL(OP, name, Call) "MPI_" #Call,
const char *const zip_coll_op_names[COLL_ZIP_OP_COUNT] = {COLL_ZIP_COLLECTIVES(ZIP_OP_NAME)};
const char *const zip_coll_op_calls[COLL_ZIP_OP_COUNT] = {COLL_ZIP_COLLECTIVES(ZIP_OP_CALL)};
#undef ZIP_OP_NAME
#undef ZIP_OP_CALL

int zip_coll_op_blocking(int op)
{
    switch (op) {
    case COLL_ZIP_OP_IBCAST:
        return COLL_ZIP_OP_BCAST;
    case COLL_ZIP_OP_IALLREDUCE:
        return COLL_ZIP_OP_ALLREDUCE;
    case COLL_ZIP_OP_IALLTOALL:
        return COLL_ZIP_OP_ALLTOALL;
    case COLL_ZIP_OP_IALLTOALLV:
        return COLL_ZIP_OP_ALLTOALLV;
    case COLL_ZIP_OP_IALLTOALLW:
        return COLL_ZIP_OP_ALLTOALLW;
    case COLL_ZIP_OP_IREDUCE_SCATTER_BLOCK:
        return COLL_ZIP_OP_REDUCE_SCATTER_BLOCK;
    case COLL_ZIP_OP_IREDUCE_SCATTER:
        return COLL_ZIP_OP_REDUCE_SCATTER;
    case COLL_ZIP_OP_IREDUCE:
        return COLL_ZIP_OP_REDUCE;
    case COLL_ZIP_OP_ISCAN:
        return COLL_ZIP_OP_SCAN;
    case COLL_ZIP_OP_IEXSCAN:
        return COLL_ZIP_OP_EXSCAN;
    case COLL_ZIP_OP_IGATHER:
        return COLL_ZIP_OP_GATHER;
    case COLL_ZIP_OP_IGATHERV:
        return COLL_ZIP_OP_GATHERV;
    case COLL_ZIP_OP_ISCATTER:
        return COLL_ZIP_OP_SCATTER;
    case COLL_ZIP_OP_ISCATTERV:
        return COLL_ZIP_OP_SCATTERV;
    case COLL_ZIP_OP_IALLGATHER:
        return COLL_ZIP_OP_ALLGATHER;
    case COLL_ZIP_OP_IALLGATHERV:
        return COLL_ZIP_OP_ALLGATHERV;
    case COLL_ZIP_OP_INEIGHBOR_ALLTOALL:
        return COLL_ZIP_OP_NEIGHBOR_ALLTOALL;
    case COLL_ZIP_OP_INEIGHBOR_ALLTOALLV:
        return COLL_ZIP_OP_NEIGHBOR_ALLTOALLV;
    case COLL_ZIP_OP_INEIGHBOR_ALLGATHER:
        return COLL_ZIP_OP_NEIGHBOR_ALLGATHER;
    case COLL_ZIP_OP_INEIGHBOR_ALLGATHERV:
        return COLL_ZIP_OP_NEIGHBOR_ALLGATHERV;
    case COLL_ZIP_OP_INEIGHBOR_ALLTOALLW:
        return COLL_ZIP_OP_NEIGHBOR_ALLTOALLW;
    default:
        return op;
    }
}

zip_algo_flow_t zip_coll_op_flow(int op)
{
    switch (zip_coll_op_blocking(op)) {
    case COLL_ZIP_OP_BCAST:
        return ZIP_FLOW_PIPELINE;
    case COLL_ZIP_OP_ALLTOALLV:
    case COLL_ZIP_OP_ALLTOALL:
    case COLL_ZIP_OP_ALLTOALLW:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALL:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALLV:
    case COLL_ZIP_OP_NEIGHBOR_ALLGATHER:
    case COLL_ZIP_OP_NEIGHBOR_ALLGATHERV:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALLW:
        return ZIP_FLOW_ALL_SEND;
    case COLL_ZIP_OP_ALLGATHERV:
    case COLL_ZIP_OP_ALLGATHER:
        return ZIP_FLOW_RING;
    case COLL_ZIP_OP_REDUCE:
    case COLL_ZIP_OP_SCAN: // the reduce's chain
    case COLL_ZIP_OP_EXSCAN:
    case COLL_ZIP_OP_REDUCE_SCATTER_BLOCK: // the ring's hops decode, reduce and encode in turn
    case COLL_ZIP_OP_REDUCE_SCATTER:
        return ZIP_FLOW_REDUCE;
    case COLL_ZIP_OP_ALLREDUCE:
        return ZIP_FLOW_ALLREDUCE;
    case COLL_ZIP_OP_GATHERV:
    case COLL_ZIP_OP_GATHER:
        return ZIP_FLOW_INTO_ROOT;
    default: // scatter(v)
        return ZIP_FLOW_OUT_OF_ROOT;
    }
}

int zip_coll_op_run(int op, const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                    const void *args, zip_algo_result_t *result)
{
    const auto *exchange = static_cast<const zip_exchange_args_t *>(args);
    const auto *reduce = static_cast<const zip_allreduce_args_t *>(args);
    switch (zip_coll_op_blocking(op)) {
    case COLL_ZIP_OP_BCAST:
        return zip_algo_bcast(t, codec, static_cast<const zip_bcast_args_t *>(args), result);
    case COLL_ZIP_OP_ALLTOALLV:
    case COLL_ZIP_OP_ALLTOALL:
    case COLL_ZIP_OP_ALLTOALLW:
        return zip_algo_alltoallv(t, codec, exchange, result);
    case COLL_ZIP_OP_GATHERV:
    case COLL_ZIP_OP_GATHER:
        return zip_algo_gatherv(t, codec, root, exchange, result);
    case COLL_ZIP_OP_SCATTERV:
    case COLL_ZIP_OP_SCATTER:
        return zip_algo_scatterv(t, codec, root, exchange, result);
    case COLL_ZIP_OP_ALLGATHERV:
    case COLL_ZIP_OP_ALLGATHER:
        return zip_algo_allgatherv(t, codec, exchange, result);
    case COLL_ZIP_OP_ALLREDUCE:
        return zip_algo_allreduce(t, codec, reduce, result);
    case COLL_ZIP_OP_REDUCE:
        return zip_algo_reduce(t, codec, root, reduce, result);
    case COLL_ZIP_OP_SCAN:
    case COLL_ZIP_OP_EXSCAN:
        return zip_algo_scan(t, codec, zip_coll_op_blocking(op) == COLL_ZIP_OP_EXSCAN, reduce,
                             result);
    case COLL_ZIP_OP_REDUCE_SCATTER_BLOCK:
    case COLL_ZIP_OP_REDUCE_SCATTER:
        return zip_algo_reduce_scatter(t, codec, reduce, result);
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALL:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALLV:
    case COLL_ZIP_OP_NEIGHBOR_ALLGATHER:
    case COLL_ZIP_OP_NEIGHBOR_ALLGATHERV:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALLW:
        return zip_algo_neighbor_alltoallv(t, codec, exchange, result);
    default:
        return ZIP_ALGO_ERR_ARG;
    }
}

zip_algo_call_t *zip_coll_op_start(int op, const zip_transport_t *t, const zip_codec_ops_t *codec,
                                   int root, const void *args, zip_algo_result_t *result)
{
    const auto *exchange = static_cast<const zip_exchange_args_t *>(args);
    switch (zip_coll_op_blocking(op)) {
    case COLL_ZIP_OP_BCAST:
        return zip_algo_ibcast(t, codec, static_cast<const zip_bcast_args_t *>(args), result);
    case COLL_ZIP_OP_ALLREDUCE:
        return zip_algo_iallreduce(t, codec, static_cast<const zip_allreduce_args_t *>(args),
                                   result);
    case COLL_ZIP_OP_REDUCE:
        return zip_algo_ireduce(t, codec, root, static_cast<const zip_allreduce_args_t *>(args),
                                result);
    case COLL_ZIP_OP_SCAN:
    case COLL_ZIP_OP_EXSCAN:
        return zip_algo_iscan(t, codec, zip_coll_op_blocking(op) == COLL_ZIP_OP_EXSCAN,
                              static_cast<const zip_allreduce_args_t *>(args), result);
    case COLL_ZIP_OP_REDUCE_SCATTER_BLOCK:
    case COLL_ZIP_OP_REDUCE_SCATTER:
        return zip_algo_ireduce_scatter(t, codec, static_cast<const zip_allreduce_args_t *>(args),
                                        result);
    case COLL_ZIP_OP_ALLTOALL:
    case COLL_ZIP_OP_ALLTOALLV:
    case COLL_ZIP_OP_ALLTOALLW:
        return zip_algo_ialltoallv(t, codec, exchange, result);
    case COLL_ZIP_OP_GATHER:
    case COLL_ZIP_OP_GATHERV:
        return zip_algo_igatherv(t, codec, root, exchange, result);
    case COLL_ZIP_OP_SCATTER:
    case COLL_ZIP_OP_SCATTERV:
        return zip_algo_iscatterv(t, codec, root, exchange, result);
    case COLL_ZIP_OP_ALLGATHER:
    case COLL_ZIP_OP_ALLGATHERV:
        return zip_algo_iallgatherv(t, codec, exchange, result);
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALL:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALLV:
    case COLL_ZIP_OP_NEIGHBOR_ALLGATHER:
    case COLL_ZIP_OP_NEIGHBOR_ALLGATHERV:
    case COLL_ZIP_OP_NEIGHBOR_ALLTOALLW:
        return zip_algo_ineighbor_alltoallv(t, codec, exchange, result);
    default:
        return nullptr;
    }
}

const char *zip_coll_error_text(int algo_rc)
{
    switch (algo_rc) {
    case ZIP_ALGO_OK:
        return "no error";
    case ZIP_ALGO_ERR_NOMEM:
        return "out of memory for compression buffers";
    case ZIP_ALGO_ERR_CODEC:
        return "a received frame was corrupt or did not decode to the expected length";
    case ZIP_ALGO_ERR_ARG:
        return "invalid arguments";
    case ZIP_ALGO_ERR_STATE:
        return "a temporal frame was coded against a block this rank does not hold (is "
               "coll_zip_alltoallv_temporal, or its _memory, set differently on some ranks, or "
               "did this rank run out of memory?)";
    default:
        return "a point-to-point transfer failed";
    }
}

} // extern "C"
