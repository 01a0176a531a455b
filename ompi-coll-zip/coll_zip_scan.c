/*
 * MPI_Scan, MPI_Exscan, MPI_Iscan and MPI_Iexscan of doubles or floats with MPI_SUM, MPI_PROD,
 * MPI_MIN or MPI_MAX: the reduce's pipelined chain run from rank 0 up (algo/reduce_chain.cpp),
 * every rank keeping its prefix and passing the next one on in segments that travel compressed.
 * Open MPI's own scans (coll/basic's linear and tuned's recursive doubling, libnbc's likewise)
 * move the whole message in each of p - 1 (or log2 p) steps one after the other; the chain
 * moves it about once over every link. Each element is summed in Open MPI's linear order
 * (algo/zip_algo.h, zip_algo_scan). Every other call goes to the previous component; count,
 * datatype, op and the policy's agreed speeds are the same on every rank, so every rank takes
 * the same branch.
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"

#include "coll_zip.h"
#include "algo/zip_algo.h"

/* Whether zip takes the call (otherwise counted as handed on), and then the chain's segment.
 * Where the chain's hops cannot compress (a link faster than the codec), zip still runs it raw
 * if its pipeline alone takes at most ZIP_SCAN_RAW_SHARE of Open MPI's whole-message steps and
 * every rank has a core (ranks sharing cores gain nothing from a pipeline's overlap: 4 ranks on
 * this host's 2 cores, shared memory, ran zip's raw chain at 0.82-0.90x of coll/basic's linear
 * scan). */
static bool takes(const void *mine, int count, struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                  struct ompi_communicator_t *comm, mca_coll_zip_module_t *m, int op_index,
                  size_t *segment)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op_index);
    const size_t bytes = mca_coll_zip_reduce_bytes(count, dtype, op);
    const int size = ompi_comm_size(comm);
    /* Every rank sends its whole prefix once: the threshold applies to the message. */
    if (0 == bytes || size < 2 || bytes < mca_coll_zip_component.threshold) {
        mca_coll_zip_stats_handed_on(op_index, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    }
    const bool link_faster = mca_coll_zip_policy_link_faster(m, comm, op_index);
    if (!link_faster && !mca_coll_zip_policy_takes(m, comm, op_index, mine, count, dtype, bytes)) {
        return false;
    }
    /* The chain's segment as a reduce's (coll_zip_allreduce.c), from the route's speeds. */
    const double link_Bps = mca_coll_zip_schedule_link_Bps(m);
    const double latency_s = mca_coll_zip_component.bcast_latency_us * 1e-6;
    const size_t floor = zip_algo_reduce_segment_floor(link_Bps, latency_s,
                                                       m->agreed ? m->speeds.ranks_per_core : 0.0);
    *segment = zip_algo_reduce_segment(bytes, size, dtype->super.size, floor, link_Bps, latency_s,
                                       m->agreed ? &m->speeds : NULL);
    const bool may_compress =
        !link_faster && zip_algo_reduce_may_compress(&m->call_policy, *segment);
    switch (zip_algo_scan_route(link_faster, may_compress,
                                m->agreed && m->speeds.ranks_per_core <= 1.0, bytes, size,
                                dtype->super.size, floor, link_Bps, latency_s)) {
    case ZIP_SCAN_CHAIN:
    case ZIP_SCAN_CHAIN_RAW: /* raw: the hops judge the link faster themselves, no codec work */
        return true;
    case ZIP_SCAN_HAND_ON_SLOWER: /* recursive doubling would be faster */
        mca_coll_zip_stats_handed_on(op_index, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    default:
        if (link_faster) { /* hands on, counted (and the meter's probe taken) as the route says */
            return mca_coll_zip_policy_takes(m, comm, op_index, mine, count, dtype, bytes);
        }
        mca_coll_zip_stats_handed_on(op_index, ZIP_VERDICT_LINK_FASTER, 0.0, 0);
        return false;
    }
}

/* A scan (exclusive false) or exscan, blocking with request NULL: zip's chain, or the previous
 * component's call. In place the contribution is in rbuf and the result replaces it: the chain
 * reads it there. An exscan leaves rank 0's receive buffer as it is. */
static int scan_or_hand_on(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                           struct ompi_op_t *op, struct ompi_communicator_t *comm,
                           struct ompi_request_t **request, mca_coll_base_module_t *module,
                           bool exclusive)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op_index = exclusive ? (NULL == request ? COLL_ZIP_OP_EXSCAN : COLL_ZIP_OP_IEXSCAN)
                                   : (NULL == request ? COLL_ZIP_OP_SCAN : COLL_ZIP_OP_ISCAN);
    const void *mine = MPI_IN_PLACE == sbuf ? NULL : sbuf;
    size_t segment = 0;
    if (!takes(NULL != mine ? mine : rbuf, count, dtype, op, comm, m, op_index, &segment)) {
        return exclusive ? COLL_ZIP_HAND_ON(m, request, exscan, sbuf, rbuf, count, dtype, op, comm)
                         : COLL_ZIP_HAND_ON(m, request, scan, sbuf, rbuf, count, dtype, op, comm);
    }
    return mca_coll_zip_reduce_schedule(m, comm, op_index, 0, rbuf, mine,
                                        (size_t)count * dtype->super.size, dtype, op,
                                        ZIP_ALLREDUCE_RING, segment, request);
}

int mca_coll_zip_scan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                      struct ompi_op_t *op, struct ompi_communicator_t *comm,
                      mca_coll_base_module_t *module)
{
    return scan_or_hand_on(sbuf, rbuf, count, dtype, op, comm, NULL, module, false);
}

int mca_coll_zip_exscan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                        struct ompi_op_t *op, struct ompi_communicator_t *comm,
                        mca_coll_base_module_t *module)
{
    return scan_or_hand_on(sbuf, rbuf, count, dtype, op, comm, NULL, module, true);
}

int mca_coll_zip_iscan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                       struct ompi_op_t *op, struct ompi_communicator_t *comm,
                       struct ompi_request_t **request, mca_coll_base_module_t *module)
{
    return scan_or_hand_on(sbuf, rbuf, count, dtype, op, comm, request, module, false);
}

int mca_coll_zip_iexscan(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                         struct ompi_op_t *op, struct ompi_communicator_t *comm,
                         struct ompi_request_t **request, mca_coll_base_module_t *module)
{
    return scan_or_hand_on(sbuf, rbuf, count, dtype, op, comm, request, module, true);
}
