/* The collectives zipbench measures, each with its buffers, its per-repetition preparation
 * (refill send data, poison receive buffers) and a check of what arrived. */
#ifndef ZIPBENCH_OPS_H
#define ZIPBENCH_OPS_H

#include <mpi.h>
#include <stddef.h>

#include "zipbench_compute.h"

typedef struct zb_op zb_op;

/* Names accepted by zb_op_create. Point-to-point ops run between ranks 0 and 1: "pingpong" is
 * one message 0 -> 1 plus a one-byte ack, "bandwidth" a window of messages 0 -> 1 plus an ack.
 * The i-names are the non-blocking calls, timed from the call to the end of MPI_Wait.
 * "compute" is no communication, only the overlap benchmark's computation. */
extern const char *const zb_op_names;

/* A collective's name followed by this is the overlap benchmark's form: the blocking call and
 * then the computation, or the non-blocking call, the computation (calling MPI_Test now and
 * then) and MPI_Wait. */
#define ZB_COMPUTE_SUFFIX "+compute"

/* Sets up `name` for `n` doubles per rank, drawing data from field F[0..n) (kept by the
 * caller); `compute` (kept by the caller) is the computation of "+compute" names and of
 * "compute", may be NULL otherwise. Returns NULL for an unknown name; aborts on allocation
 * failure. */
zb_op *zb_op_create(const char *name, const double *F, size_t n, const zb_compute *compute,
                    MPI_Comm comm);
void zb_op_destroy(zb_op *op);

/* Untimed: put fresh data in send buffers and poison receive buffers for a run with `root`. */
void zb_op_prepare(zb_op *op, int root);
/* Timed: the collective itself. */
void zb_op_run(zb_op *op, int root);
/* Untimed: number of wrong elements this rank received in the last run (0 = correct). */
size_t zb_op_verify(const zb_op *op, int root);
/* Bytes of one message the operation hands to the network: the broadcast buffer, one
 * alltoall(v) block, one gatherv contribution. Compression decisions are made per message. */
size_t zb_op_message_bytes(const zb_op *op);
/* Messages of zb_op_message_bytes one run sends (bandwidth: the window; others 1), so that
 * a run's time divided by it is the time per message. */
int zb_op_messages(const zb_op *op);
/* Whether operation `name` is point-to-point (compressed by pml/zip, not coll/zip). */
int zb_op_name_p2p(const char *name);
/* Whether `name` needs a computation (is "compute" or ends in ZB_COMPUTE_SUFFIX). */
int zb_op_name_compute(const char *name);
/* The statistics row zip counts `name` in: the name without ZB_COMPUTE_SUFFIX. */
void zb_op_stats_name(const char *name, char *out, size_t len);
/* The communicator the operation runs on (zb_op_create's comm). */
MPI_Comm zb_op_comm(const zb_op *op);
/* Whether the operation has a root that should rotate between repetitions. */
int zb_op_rooted(const zb_op *op);

#endif
