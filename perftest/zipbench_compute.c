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

long zb_compute_iters_for(double us, MPI_Comm comm)
{
    enum { TRIALS = 5 };
    /* A first guess of the rate, then trials of about 10 ms each, all ranks at once after a
     * barrier: where ranks share cores (8 ranks on 2 here) a short probe would run on a core of
     * its own while the others wait, and measure a rate the computation never gets. */
    long probe = 10000;
    double t0 = MPI_Wtime();
    kernel(probe);
    double first = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MAX, comm);
    probe = (long)(probe * 0.01 / (first > 1e-7 ? first : 1e-7));
    if (probe < 1000)
        probe = 1000;
    double t[TRIALS];
    for (int k = 0; k < TRIALS; k++) {
        MPI_Barrier(comm);
        t0 = MPI_Wtime();
        kernel(probe);
        t[k] = MPI_Wtime() - t0;
    }
    qsort(t, TRIALS, sizeof *t, cmp_double);
    /* The slowest rank's rate: every rank then runs the same iterations in about `us`. */
    double per_iter = t[TRIALS / 2] / (double)probe;
    MPI_Allreduce(MPI_IN_PLACE, &per_iter, 1, MPI_DOUBLE, MPI_MAX, comm);
    long iters = (long)(us * 1e-6 / per_iter);
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
