/*
 * MPI_Allreduce, MPI_Reduce and MPI_Iallreduce of doubles or floats with MPI_SUM, MPI_PROD, MPI_MIN
 * or MPI_MAX. Allreduce: a reduce-scatter whose partial chunks travel compressed, then an
 * allgather of the finished chunks, each compressed once, along a ring
 * (algo/allreduce_algo.cpp) or by recursive halving and doubling (algo/allreduce_halving.cpp),
 * whichever the cost model predicts faster (coll_zip_allreduce_algorithm). Reduce:
 * a pipelined chain to the root whose partial segments travel compressed
 * (algo/reduce_chain.cpp). Each file states its summation order. Every other call, and calls
 * whose chunks would be below the threshold, go to the previous component. count, datatype,
 * op and the policy's agreed speeds are the same on every rank, so every rank takes the same
 * branch.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "ompi/mca/bml/bml.h"
#include "ompi/mca/pml/base/base.h"
#include "ompi/proc/proc.h"
#include "opal/mca/btl/base/base.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"
#include "algo/zip_algo.h"

/* inout = in op inout. Through PMPI_ (ompi/op/op.h needs Fortran headers Debian does not
 * ship), so that a profiling tool does not see zip's own calls; chunks hold at most INT_MAX
 * elements (the call's count is an int). */
static void reduce_with_op(void *ctx, const void *in, void *inout, size_t bytes)
{
    const mca_coll_zip_reduce_binding_t *b = ctx;
    (void)PMPI_Reduce_local(in, inout, (int)(bytes / b->dtype->super.size), b->dtype, b->op);
}

/* Bytes of the call when zip can take it: a predefined float or double type (MPI_DOUBLE,
 * MPI_REAL8, ...: one element per type, no padding) with an arithmetic predefined op; else 0.
 * Complex types and MINLOC/MAXLOC pairs are not elementwise on one float, so they go on;
 * integer types (I32/I64 to the codecs since issue 11) go on as before: not measured here. */
size_t mca_coll_zip_reduce_bytes(int count, struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    const zip_elem_type_t elem = zip_ompi_elem_type(dtype);
    if (count <= 0 || !ompi_datatype_is_predefined(dtype) ||
        (ZIP_TYPE_F64 != elem && ZIP_TYPE_F32 != elem) ||
        dtype->super.size != zip_elem_size(elem)) {
        return 0;
    }
    if (op != MPI_SUM && op != MPI_PROD && op != MPI_MIN && op != MPI_MAX) {
        return 0;
    }
    return (size_t)count * dtype->super.size;
}

static bool is_tcp(const struct mca_btl_base_module_t *btl)
{
    return 0 == strcmp(btl->btl_component->btl_version.mca_component_name, "tcp");
}

/* Whether ob1 moves this communicator's messages between nodes over the TCP BTL, whose one
 * connection per pair serialises a pair's exchanges both ways: recursive halving loses to the
 * ring there (zip_algo_allreduce_choose), Bruck's exchange step too (zip_algo_allgatherv_choose).
 * Read from the BTLs ob1 chose for the first peer on another node; if ob1 has not set that peer up
 * yet, whether the TCP BTL is open at all. pml/ucx (alone or behind pml/zip) has no BML endpoints
 * and its own transports: no. */
bool mca_coll_zip_pairs_serialise(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    if (m->pairs_serialise >= 0) {
        return 1 == m->pairs_serialise;
    }
    bool tcp = false, looked = false;
    for (int p = 0; p < ompi_comm_size(comm) && !looked; ++p) {
        if (p == ompi_comm_rank(comm) || (NULL != m->peer_on_node && m->peer_on_node[p])) {
            continue;
        }
        looked = true;
        ompi_proc_t *proc = ompi_comm_peer_lookup(comm, p);
        mca_bml_base_endpoint_t *ep =
            NULL != proc
                ? (mca_bml_base_endpoint_t *)proc->proc_endpoints[OMPI_PROC_ENDPOINT_TAG_BML]
                : NULL;
        if (NULL == ep) {
            looked = false;
            break;
        }
        for (size_t i = 0; i < mca_bml_base_btl_array_get_size(&ep->btl_send); ++i) {
            tcp = tcp || is_tcp(mca_bml_base_btl_array_get_index(&ep->btl_send, i)->btl);
        }
    }
    if (!looked &&
        0 != strcmp(mca_pml_base_selected_component.pmlm_version.mca_component_name, "ucx")) {
        mca_btl_base_selected_module_t *sm;
        OPAL_LIST_FOREACH(sm, &mca_btl_base_modules_initialized, mca_btl_base_selected_module_t)
        {
            tcp = tcp || is_tcp(sm->btl_module);
        }
    }
    m->pairs_serialise = tcp ? 1 : 0;
    return tcp;
}

/* Each of the p chunks reaches the threshold, and the policy finds that compressing can pay. */
bool mca_coll_zip_reduce_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                               int op_index, size_t bytes, const void *sample, int count,
                               struct ompi_datatype_t *dtype)
{
    const int size = ompi_comm_size(comm);
    if (0 == bytes || size < 2 || bytes / (size_t)size < mca_coll_zip_component.threshold) {
        /* A code whose only collectives are small allreduces (a time step's minimum, a dot
         * product) would never agree on MPI_COMM_WORLD, and pml/zip takes the link rate from
         * that agreement (its halos are too small or too late to time): agree at the first
         * blocking one there, once per job. */
        if (COLL_ZIP_OP_ALLREDUCE == op_index && &ompi_mpi_comm_world.comm == comm) {
            mca_coll_zip_policy_agree_now(m, comm);
        }
        mca_coll_zip_stats_handed_on(op_index, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    }
    return mca_coll_zip_policy_takes(m, comm, op_index, sample, count, dtype, bytes);
}

/* The agreed rate, or where policy always agreed none the configured rate, as bcast's plan
 * does. The same on every rank. */
double mca_coll_zip_schedule_link_Bps(const mca_coll_zip_module_t *m)
{
    return m->call_policy.speeds.link_Bps > 0.0
               ? m->call_policy.speeds.link_Bps
               : mca_coll_zip_component.link_gbps_remote * 1e9 / 8.0;
}

void mca_coll_zip_reduce_args(zip_allreduce_args_t *args, zip_reduce_ops_t *reduce,
                              mca_coll_zip_reduce_binding_t *binding, mca_coll_zip_module_t *m,
                              void *buf, size_t bytes, struct ompi_datatype_t *dtype,
                              struct ompi_op_t *op, int algorithm)
{
    *binding = (mca_coll_zip_reduce_binding_t){op, dtype};
    *reduce = (zip_reduce_ops_t){binding, dtype->super.size, reduce_with_op, NULL};
    *args = (zip_allreduce_args_t){
        .buf = buf,
        .bytes = bytes,
        .elem_type = mca_coll_zip_elem_type(dtype),
        .threshold = mca_coll_zip_component.threshold,
        .policy = &m->call_policy,
        .reduce = reduce,
        .peer_on_node = m->peer_on_node,
        .algorithm = algorithm,
    };
}

/* The tag of a blocking reduction's messages: its own collective's in Open MPI's range. */
static int blocking_tag(int op_index)
{
    switch (op_index) {
    case COLL_ZIP_OP_ALLREDUCE:
        return MCA_COLL_BASE_TAG_ALLREDUCE;
    case COLL_ZIP_OP_SCAN:
        return MCA_COLL_BASE_TAG_SCAN;
    case COLL_ZIP_OP_EXSCAN:
        return MCA_COLL_BASE_TAG_EXSCAN;
    default:
        return MCA_COLL_BASE_TAG_REDUCE;
    }
}

/* Runs a blocking reduction now, on buf (allreduce: root -1; reduce: of mine, into buf at the
 * root; scans: of mine, into buf everywhere). */
static int run_schedule(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op_index,
                        int root, void *buf, const void *mine, size_t bytes,
                        struct ompi_datatype_t *dtype, struct ompi_op_t *op, int algorithm,
                        size_t segment)
{
    mca_coll_zip_reduce_binding_t binding;
    zip_reduce_ops_t reduce;
    zip_allreduce_args_t args;
    mca_coll_zip_reduce_args(&args, &reduce, &binding, m, buf, bytes, dtype, op, algorithm);
    args.contribution = mine;
    args.segment = segment;
    args.tag = blocking_tag(op_index);
    return mca_coll_zip_run(m, comm, op_index, root, &args, NULL);
}

/* MPI_Iallreduce and MPI_Ireduce: the same ring and chain, advanced by Open MPI's progress
 * engine (coll_zip_nb.h). */
typedef struct iallreduce {
    mca_coll_zip_nb_t nb; /* first: released as a whole */
    mca_coll_zip_reduce_binding_t binding;
    zip_reduce_ops_t reduce;
    zip_allreduce_args_t args;
} iallreduce_t;

static void iallreduce_release(mca_coll_zip_nb_t *nb)
{
    free(nb);
}

/* Starts the non-blocking reduction of `op_index` (the arguments are run_schedule's). */
static int start_schedule(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op_index,
                          int root, void *buf, const void *mine, size_t bytes,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op, int algorithm,
                          size_t segment, struct ompi_request_t **request)
{
    const char *call_name = zip_coll_op_calls[op_index];
    iallreduce_t *c = calloc(1, sizeof(*c));
    if (NULL == c) {
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, call_name, comm);
    }
    c->nb.release = iallreduce_release;
    if (OMPI_SUCCESS != mca_coll_zip_nb_begin(&c->nb, m, comm, op_index)) {
        mca_coll_zip_nb_release(&c->nb);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, call_name, comm);
    }
    mca_coll_zip_reduce_args(&c->args, &c->reduce, &c->binding, m, buf, bytes, dtype, op,
                             algorithm);
    c->args.contribution = mine;
    c->args.segment = segment;
    c->args.tag = c->nb.tag;
    c->args.policy = &c->nb.policy;
    zip_algo_call_t *call =
        zip_coll_op_start(op_index, &c->nb.transport, &c->nb.codec, root, &c->args, &c->nb.result);
    const int rc = mca_coll_zip_nb_start(&c->nb, call, request);
    return OMPI_SUCCESS == rc ? rc : mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, call_name, comm);
}

/* A reduction of op_index's now (request NULL) or started as a non-blocking call. */
int mca_coll_zip_reduce_schedule(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                 int op_index, int root, void *buf, const void *mine, size_t bytes,
                                 struct ompi_datatype_t *dtype, struct ompi_op_t *op, int algorithm,
                                 size_t segment, struct ompi_request_t **request)
{
    return NULL == request ? run_schedule(m, comm, op_index, root, buf, mine, bytes, dtype, op,
                                          algorithm, segment)
                           : start_schedule(m, comm, op_index, root, buf, mine, bytes, dtype, op,
                                            algorithm, segment, request);
}

int mca_coll_zip_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                           struct ompi_op_t *op, struct ompi_communicator_t *comm,
                           mca_coll_base_module_t *module)
{
    return mca_coll_zip_iallreduce(sbuf, rbuf, count, dtype, op, comm, NULL, module);
}

int mca_coll_zip_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                        struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                        mca_coll_base_module_t *module)
{
    return mca_coll_zip_ireduce(sbuf, rbuf, count, dtype, op, root, comm, NULL, module);
}

/* MPI_Reduce too, with request NULL. */
int mca_coll_zip_ireduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                         struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                         struct ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op_index = NULL == request ? COLL_ZIP_OP_REDUCE : COLL_ZIP_OP_IREDUCE;
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op_index);
    const bool is_root = ompi_comm_rank(comm) == root;
    const void *mine = (is_root && MPI_IN_PLACE == sbuf) ? rbuf : sbuf;
    const size_t bytes = mca_coll_zip_reduce_bytes(count, dtype, op);
    if (!mca_coll_zip_reduce_takes(m, comm, op_index, bytes, mine, count, dtype)) {
        return COLL_ZIP_HAND_ON(m, request, reduce, sbuf, rbuf, count, dtype, op, root, comm);
    }
    /* Too few segments for the chain's hops: tuned's trees are faster (zip_algo_reduce_suits). */
    const size_t segment_floor = zip_algo_reduce_segment_floor(
        mca_coll_zip_schedule_link_Bps(m), mca_coll_zip_component.bcast_latency_us * 1e-6,
        m->agreed ? m->speeds.ranks_per_core : 0.0);
    if (!zip_algo_reduce_suits(bytes, ompi_comm_size(comm), dtype->super.size, segment_floor)) {
        mca_coll_zip_stats_handed_on(op_index, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return COLL_ZIP_HAND_ON(m, request, reduce, sbuf, rbuf, count, dtype, op, root, comm);
    }
    const size_t segment = zip_algo_reduce_segment(bytes, ompi_comm_size(comm), dtype->super.size,
                                                   segment_floor, mca_coll_zip_schedule_link_Bps(m),
                                                   mca_coll_zip_component.bcast_latency_us * 1e-6,
                                                   m->agreed ? &m->speeds : NULL);
    /* Segments whose coding and messages outlast their raw wire never pay compressed. */
    if (!zip_algo_reduce_may_compress(&m->call_policy, segment)) {
        mca_coll_zip_stats_handed_on(op_index, ZIP_VERDICT_LINK_FASTER, 0.0, 0);
        return COLL_ZIP_HAND_ON(m, request, reduce, sbuf, rbuf, count, dtype, op, root, comm);
    }
    opal_output_verbose(10, mca_coll_zip_component.output,
                        "coll:zip: reduce of %zu bytes on %d ranks: chain of %zu-byte segments",
                        bytes, ompi_comm_size(comm), segment);
    /* The chain reads each rank's contribution where it is and writes the result into the
     * root's receive buffer only (MPI leaves the others' undefined, and it may be NULL). */
    return mca_coll_zip_reduce_schedule(m, comm, op_index, root, is_root ? rbuf : NULL, mine, bytes,
                                        dtype, op, ZIP_ALLREDUCE_RING, segment, request);
}

/* MPI_Allreduce too, with request NULL. */
int mca_coll_zip_iallreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm,
                            struct ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op_index = NULL == request ? COLL_ZIP_OP_ALLREDUCE : COLL_ZIP_OP_IALLREDUCE;
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op_index);
    const size_t bytes = mca_coll_zip_reduce_bytes(count, dtype, op);
    if (!mca_coll_zip_reduce_takes(m, comm, op_index, bytes, MPI_IN_PLACE == sbuf ? rbuf : sbuf,
                                   count, dtype)) {
        return COLL_ZIP_HAND_ON(m, request, allreduce, sbuf, rbuf, count, dtype, op, comm);
    }
    /* Many ranks over a link with latency: the ring pays p latencies where recursive halving
     * pays log2 p; where neither suits, tuned's rabenseifner or pipelines are faster
     * (zip_algo_allreduce_choose; the latency is the cost models' parameter). */
    int algorithm = mca_coll_zip_component.allreduce_algorithm;
    if (ZIP_ALLREDUCE_AUTO == algorithm) {
        algorithm = zip_algo_allreduce_choose(
            bytes, ompi_comm_size(comm), mca_coll_zip_schedule_link_Bps(m),
            mca_coll_zip_component.bcast_latency_us * 1e-6, mca_coll_zip_pairs_serialise(m, comm),
            m->agreed ? &m->speeds : NULL);
    }
    opal_output_verbose(10, mca_coll_zip_component.output,
                        "coll:zip: allreduce of %zu bytes on %d ranks: %s (pairs serialise: %d)",
                        bytes, ompi_comm_size(comm),
                        ZIP_ALLREDUCE_RING == algorithm      ? "ring"
                        : ZIP_ALLREDUCE_HALVING == algorithm ? "halving"
                                                             : "handed on",
                        m->pairs_serialise);
    if (ZIP_ALLREDUCE_HAND_ON == algorithm) {
        mca_coll_zip_stats_handed_on(op_index, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return COLL_ZIP_HAND_ON(m, request, allreduce, sbuf, rbuf, count, dtype, op, comm);
    }
    if (MPI_IN_PLACE != sbuf) {
        const int rc = ompi_datatype_copy_content_same_ddt(dtype, count, rbuf, (char *)sbuf);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return mca_coll_zip_reduce_schedule(m, comm, op_index, -1, rbuf, NULL, bytes, dtype, op,
                                        algorithm, 0, request);
}
