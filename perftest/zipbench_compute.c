#include "zipbench_compute.h"

#include <stdlib.h>

enum { LANES = 16 };

/* Written by every run so that the compiler cannot drop the loop. */
static volatile double sink;

/* `iters` rounds of a multiply-add over LANES values held in registers: compute-bound, no memory
 * traffic, so it does not compete with the collective for memory bandwidth more than an
 * application's stencil would (it competes less; the benchmark measures progress, not caches). */
static void kernel(long iters)
{
    double v[LANES];
    for (int l = 0; l < LANES; l++)
        v[l] = 1.0 + l * 1e-3;
    for (long i = 0; i < iters; i++)
        for (int l = 0; l < LANES; l++)
            v[l] = v[l] * 0.9999999 + 1e-7;
    double s = 0;
    for (int l = 0; l < LANES; l++)
        s += v[l];
    sink = s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The time of `iters` iterations as zipbench times an operation: ranks lined up by a barrier,
 * the slowest rank's time; median of three. */
static double timed_run(long iters, MPI_Comm comm)
{
    double t[3];
    for (int k = 0; k < 3; k++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        kernel(iters);
        t[k] = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t[k], 1, MPI_DOUBLE, MPI_MAX, comm);
    }
    qsort(t, 3, sizeof *t, cmp_double);
    return t[1];
}

long zb_compute_iters_for(double us, MPI_Comm comm)
{
    /* A guess from a short run, then the computation itself timed at full length and rescaled,
     * three times. Where ranks share cores (8 ranks on 2 here) only a run of the real length
     * says what it costs: a short probe may get a core to itself while a long one shares it
     * (on a loaded host a rate from 10 ms probes was off 7x for a 15 ms computation). */
    const long probe = 10000;
    double per_iter = timed_run(probe, comm) / (double)probe;
    long iters = (long)(us * 1e-6 / (per_iter > 1e-12 ? per_iter : 1e-12));
    for (int round = 0; round < 3 && iters > 0; round++) {
        const double t = timed_run(iters, comm);
        if (t > 0)
            iters = (long)((double)iters * us * 1e-6 / t);
    }
    return iters > 0 ? iters : 1;
}

void zb_compute_run(const zb_compute *c, MPI_Request *req)
{
    const long step = c->test_every > 0 ? c->test_every : c->iters;
    int done = req == NULL || *req == MPI_REQUEST_NULL;
    for (long i = 0; i < c->iters; i += step) {
        kernel(c->iters - i < step ? c->iters - i : step);
        if (!done)
            MPI_Test(req, &done, MPI_STATUS_IGNORE);
    }
}
