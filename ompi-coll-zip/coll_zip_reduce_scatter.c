/*
 * MPI_Reduce_scatter_block, MPI_Reduce_scatter and their non-blocking forms, of doubles or floats
 * with MPI_SUM, MPI_PROD, MPI_MIN or MPI_MAX: the allreduce ring's first half on the callers'
 * blocks (algo/allreduce_algo.cpp), whose partial results travel compressed; block b ends on rank
 * b, reduced from rank b + 1 onwards, (...((x_{b+1} op x_{b+2}) op ...) op x_b). The ring
 * reduces in a buffer of all the blocks (the receive buffer in place, else a copy of the send
 * buffer from the algorithms' cache) and this rank's block is then copied out. Handed on: other
 * types and ops, blocks below the threshold on average, and rings whose p - 1 latencies would
 * cost more than 1/32 of their wire time (tuned's recursive halving pays log2 p).
 */
#include "ompi_config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_nb.h"
#include "algo/zip_algo.h"

/* A call zip takes, blocking or not: what the ring reads and writes. */
typedef struct reduce_scatter {
    mca_coll_zip_nb_t nb; /* first: released as a whole (the non-blocking calls) */
    mca_coll_zip_reduce_binding_t binding;
    zip_reduce_ops_t reduce;
    zip_allreduce_args_t args;
    char *work;      /* every block: rbuf in place, else from the buffer cache */
    size_t work_cap; /* its capacity, 0 where it is rbuf */
    char *rbuf;
    size_t mine_at, mine_bytes; /* this rank's block in work */
    size_t block_bytes[];       /* per rank */
} reduce_scatter_t;

static void reduce_scatter_free(reduce_scatter_t *c)
{
    if (c->work_cap > 0) {
        zip_algo_buffer_give(c->work, c->work_cap);
    }
    free(c);
}

static void release(mca_coll_zip_nb_t *nb)
{
    reduce_scatter_free((reduce_scatter_t *)nb);
}

/* This rank's block to where MPI wants it: the receive buffer (in place: its start). */
static int deliver(mca_coll_zip_nb_t *nb)
{
    reduce_scatter_t *c = (reduce_scatter_t *)nb;
    if (c->mine_bytes > 0 && c->rbuf != c->work + c->mine_at) {
        memmove(c->rbuf, c->work + c->mine_at, c->mine_bytes);
    }
    return OMPI_SUCCESS;
}

/* The call's state for counts (rcounts, or rcount for every rank), or NULL where zip cannot take
 * it: a negative count, more than INT_MAX elements in all, or no memory. *total: the elements. */
static reduce_scatter_t *describe(struct ompi_communicator_t *comm, const int *rcounts, int rcount,
                                  struct ompi_datatype_t *dtype, size_t *total)
{
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    reduce_scatter_t *c = calloc(1, sizeof(*c) + (size_t)size * sizeof(c->block_bytes[0]));
    if (NULL == c) {
        return NULL;
    }
    *total = 0;
    for (int b = 0; b < size; ++b) {
        const int n = NULL != rcounts ? rcounts[b] : rcount;
        if (n < 0) {
            free(c);
            return NULL;
        }
        c->block_bytes[b] = (size_t)n * dtype->super.size;
        if (b == rank) {
            c->mine_at = *total * dtype->super.size;
            c->mine_bytes = c->block_bytes[b];
        }
        *total += (size_t)n;
    }
    if (*total > INT_MAX) {
        free(c);
        return NULL;
    }
    return c;
}

/* Whether the ring suits the call (zip_algo_ring_suits: p - 1 steps of 1/p of it each). */
static bool ring_suits(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, size_t bytes)
{
    const int size = ompi_comm_size(comm);
    return zip_algo_ring_suits(bytes / (size_t)size * (size_t)(size - 1), size - 1,
                               mca_coll_zip_schedule_link_Bps(m),
                               mca_coll_zip_component.bcast_latency_us * 1e-6);
}

/* Runs the call (request NULL: now) if zip takes it: true, *rc its result; false: the caller
 * hands it on (counted so). */
static bool reduce_scatter_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                 int op_index, const void *sbuf, void *rbuf, const int *rcounts,
                                 int rcount, struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                 struct ompi_request_t **request, int *rc)
{
    mca_coll_zip_stats_arm_finalize_summary(comm);
    mca_coll_zip_policy_count_call(m, comm, op_index);
    size_t total = 0;
    reduce_scatter_t *c = describe(comm, rcounts, rcount, dtype, &total);
    const size_t bytes = NULL != c ? mca_coll_zip_reduce_bytes((int)total, dtype, op) : 0;
    const bool in_place = MPI_IN_PLACE == sbuf;
    if (!mca_coll_zip_reduce_takes(m, comm, op_index, bytes, in_place ? rbuf : sbuf, (int)total,
                                   dtype)) {
        free(c);
        return false;
    }
    if (!ring_suits(m, comm, bytes)) {
        mca_coll_zip_stats_handed_on(op_index, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        free(c);
        return false;
    }
    c->rbuf = rbuf;
    c->work = in_place ? (char *)rbuf : zip_algo_buffer_take(bytes, &c->work_cap);
    if (NULL == c->work) {
        free(c);
        *rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op_index], comm);
        return true;
    }
    if (!in_place) {
        memcpy(c->work, sbuf, bytes); /* a predefined type: contiguous from its address */
    }
    mca_coll_zip_reduce_args(&c->args, &c->reduce, &c->binding, m, c->work, bytes, dtype, op,
                             ZIP_ALLREDUCE_RING);
    c->args.block_bytes = c->block_bytes;
    if (NULL == request) {
        c->args.tag = NULL != rcounts ? MCA_COLL_BASE_TAG_REDUCE_SCATTER
                                      : MCA_COLL_BASE_TAG_REDUCE_SCATTER_BLOCK;
        *rc = mca_coll_zip_run(m, comm, op_index, -1, &c->args, NULL);
        if (OMPI_SUCCESS == *rc) {
            *rc = deliver(&c->nb);
        }
        reduce_scatter_free(c);
        return true;
    }
    c->nb.complete = deliver;
    c->nb.release = release;
    if (OMPI_SUCCESS != mca_coll_zip_nb_begin(&c->nb, m, comm, op_index)) {
        mca_coll_zip_nb_release(&c->nb);
        *rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op_index], comm);
        return true;
    }
    c->args.tag = c->nb.tag;
    c->args.policy = &c->nb.policy;
    *rc = mca_coll_zip_nb_start(
        &c->nb, zip_algo_ireduce_scatter(&c->nb.transport, &c->nb.codec, &c->args, &c->nb.result),
        request);
    if (OMPI_SUCCESS != *rc) {
        *rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, zip_coll_op_calls[op_index], comm);
    }
    return true;
}

int mca_coll_zip_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                      struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                      struct ompi_communicator_t *comm,
                                      mca_coll_base_module_t *module)
{
    return mca_coll_zip_ireduce_scatter_block(sbuf, rbuf, rcount, dtype, op, comm, NULL, module);
}

int mca_coll_zip_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                       struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                       struct ompi_communicator_t *comm,
                                       struct ompi_request_t **request,
                                       mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op_index =
        NULL == request ? COLL_ZIP_OP_REDUCE_SCATTER_BLOCK : COLL_ZIP_OP_IREDUCE_SCATTER_BLOCK;
    int rc = OMPI_SUCCESS;
    if (reduce_scatter_takes(m, comm, op_index, sbuf, rbuf, NULL, rcount, dtype, op, request,
                             &rc)) {
        return rc;
    }
    return COLL_ZIP_HAND_ON(m, request, reduce_scatter_block, sbuf, rbuf, rcount, dtype, op, comm);
}

int mca_coll_zip_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return mca_coll_zip_ireduce_scatter(sbuf, rbuf, rcounts, dtype, op, comm, NULL, module);
}

int mca_coll_zip_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                 struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                 struct ompi_communicator_t *comm, struct ompi_request_t **request,
                                 mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const int op_index = NULL == request ? COLL_ZIP_OP_REDUCE_SCATTER : COLL_ZIP_OP_IREDUCE_SCATTER;
    int rc = OMPI_SUCCESS;
    if (reduce_scatter_takes(m, comm, op_index, sbuf, rbuf, rcounts, 0, dtype, op, request, &rc)) {
        return rc;
    }
    return COLL_ZIP_HAND_ON(m, request, reduce_scatter, sbuf, rbuf, rcounts, dtype, op, comm);
}
