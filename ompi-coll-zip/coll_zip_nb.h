/*
 * The engine of coll/zip's non-blocking collectives (coll_zip_nb.c): a call's state, started
 * with its algorithm's coroutine and advanced by Open MPI's progress engine.
 */
#ifndef MCA_COLL_ZIP_NB_H
#define MCA_COLL_ZIP_NB_H

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

/* What every non-blocking call keeps while in flight; an operation embeds it first in its own
 * state (buffers, arguments) and frees the whole in `release`. */
typedef struct mca_coll_zip_nb_t {
    struct mca_coll_zip_nb_t *next;
    struct ompi_request_t *request;
    bool handed_out; /* the application holds request */
    zip_algo_call_t *call;
    zip_transport_t transport;
    zip_codec_ops_t codec;
    zip_algo_codec_binding_t binding;
    zip_ctx_t *codec_ctx; /* this call's own: others may run at the same time */
    zip_algo_policy_t policy;
    zip_algo_result_t result;
    struct ompi_communicator_t *comm;
    int op;  /* COLL_ZIP_OP_* */
    int tag; /* this call's own */
    /* Optional: runs when the algorithm has finished, before the request completes (e.g. moves
     * packed data into a derived datatype); returns an MPI error code. */
    int (*complete)(struct mca_coll_zip_nb_t *nb);
    void (*release)(struct mca_coll_zip_nb_t *nb);
} mca_coll_zip_nb_t;

/* Fills the common part for a call of `op` on comm (after the policy took it: m->call_policy
 * is copied). Fails only for lack of memory; then release nb. */
int mca_coll_zip_nb_begin(mca_coll_zip_nb_t *nb, mca_coll_zip_module_t *m,
                          struct ompi_communicator_t *comm, int op);
/* Runs `call` (made from nb's transport, codec, policy and result) as far as it goes now and
 * leaves the rest to progress; *request completes when it has finished. call NULL (no memory):
 * releases nb and fails. */
int mca_coll_zip_nb_start(mca_coll_zip_nb_t *nb, zip_algo_call_t *call,
                          struct ompi_request_t **request);
/* Frees what begin made, then calls nb->release. */
void mca_coll_zip_nb_release(mca_coll_zip_nb_t *nb);
/* A call of alltoall(v), gather(v), scatter(v) or allgather(v) (blocking or not) that the policy
 * took: its blocks and its algorithm's arguments but for tag and policy, which
 * mca_coll_zip_exchange sets. */
typedef struct mca_coll_zip_exchange_t {
    mca_coll_zip_blocks_t sent;     /* released after the call */
    mca_coll_zip_blocks_t received; /* unpacked (on success), then released, after the call */
    zip_exchange_args_t args;
    int root; /* gather(v), scatter(v) */
    /* Blocking allgather(v): where a call that succeeded records what it moved (NULL: nowhere;
     * non-blocking calls never record, zip_algo_seen_t). */
    zip_algo_seen_t *seen;
    /* Alltoall(v): where the call records whether it coded (zip_algo_uncoded_t; NULL: other
     * collectives), and for a blocking one whether the ranks share that after it. */
    zip_algo_uncoded_t *uncoded;
    bool share;
    /* Arrays args points into (a neighbourhood call's peers, its shared send block), freed with
     * the blocks: a non-blocking call keeps them until it completes. */
    void *owned[3];
} mca_coll_zip_exchange_t;

/* After a blocking alltoall(v) due to share (zip_algo_uncoded_shares): whether any rank coded
 * since the ranks last shared, by one allreduce through the previous component. `failed`: this
 * rank's call failed (it counts as coded: nothing is handed on for it). */
void mca_coll_zip_uncoded_share(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                zip_algo_uncoded_t *u, bool failed);

/* Runs x's algorithm for a call of `op`: now when request is NULL, else started as a
 * non-blocking call that owns a copy of x until *request completes. `rc` is the status of
 * preparing x: on error nothing runs. x is released either way; returns an MPI error code. */
int mca_coll_zip_exchange(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                          mca_coll_zip_exchange_t *x, int rc, struct ompi_request_t **request);

/* At component close. */
void mca_coll_zip_nb_fini(void);

#endif
