/* The computation of the overlap benchmark: a fixed amount of floating-point work (a loop
 * calibrated once to take about a chosen time) that calls MPI_Test on the pending collective
 * every so often, as an application overlapping communication with computation does. The work
 * is fixed, not a deadline: when progressing the collective inside MPI_Test costs time (zip's
 * codec work happens there), the whole takes longer, which is what the benchmark must see. */
#ifndef ZIPBENCH_COMPUTE_H
#define ZIPBENCH_COMPUTE_H

#include <mpi.h>

typedef struct zb_compute {
    long iters;      /* kernel iterations in one computation */
    long test_every; /* iterations between two MPI_Test calls */
} zb_compute;

/* Kernel iterations that take `us` microseconds on the slowest rank of `comm` while every rank
 * computes, timed at that length. Collective: every rank returns the same number. */
long zb_compute_iters_for(double us, MPI_Comm comm);

/* Runs c's iterations, calling MPI_Test(req) every c->test_every of them while *req is pending;
 * req may be NULL (the computation after a blocking call: same work, no request). */
void zb_compute_run(const zb_compute *c, MPI_Request *req);

#endif
