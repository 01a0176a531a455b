#include "zipbench_timing.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void zb_time_rep(zb_op *op, int root, int batch, MPI_Comm comm, double out[2])
{
    zb_op_prepare(op, root);
    /* The barrier lines the ranks up so that max(t1 - t0) is the collective's latency and not
     * the skew left over from the previous repetition's verification. */
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int b = 0; b < batch; b++)
        zb_op_run(op, root);
    double t1 = MPI_Wtime();
    double local[2] = {(t1 - t0) / batch, (double)zb_op_verify(op, root)};
    MPI_Allreduce(local, out, 2, MPI_DOUBLE, MPI_MAX, comm);
}

void zb_timing_summarize(double *times, int n, zb_timing *r)
{
    double sum = 0, sumsq = 0, min = INFINITY;
    for (int i = 0; i < n; i++) {
        sum += times[i];
        sumsq += times[i] * times[i];
        min = times[i] < min ? times[i] : min;
    }
    const double mean = n ? sum / n : 0, var = n > 1 ? (sumsq - n * mean * mean) / (n - 1) : 0;
    r->reps = n;
    r->mean_us = mean * 1e6;
    r->stderr_us = n > 1 ? sqrt(var > 0 ? var : 0) / sqrt((double)n) * 1e6 : 0;
    r->min_us = n ? min * 1e6 : 0;
    qsort(times, (size_t)n, sizeof *times, cmp_double);
    r->median_us = !n      ? 0
                   : n & 1 ? 1e6 * times[n / 2]
                           : 1e6 * 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

zb_timing zb_measure(zb_op *op, const zb_timing_opts *o, MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    zb_timing r = {0};
    double v[2], sum = 0, sumsq = 0;
    double *times = malloc((size_t)o->max_reps * sizeof *times);
    if (!times)
        MPI_Abort(comm, 2);
    int rep = 0;
    /* Root rotation runs through warm-up too, so that each root's path is warm. */
    for (int w = 0; w < o->warmup; w++, rep++) {
        if (rep && o->evolve)
            o->evolve(o->evolve_ctx);
        zb_time_rep(op, zb_op_rooted(op) ? rep % size : 0, o->batch, comm, v);
        r.bad_elements += v[1];
    }
    /* A rooted operation stops only after whole rotations of the root, so that every root is
     * timed as often: the chain of a reduce differs by root, and a median of the first five
     * roots alone read 10 % off the one of 50 repetitions (netemu, 8 ranks, 4 MiB). */
    const int rotation = zb_op_rooted(op) ? size : 1;
    /* Decisions use only allreduced values, so all ranks stop at the same repetition. */
    for (int k = 1; k <= o->max_reps; k++, rep++) {
        if (rep && o->evolve)
            o->evolve(o->evolve_ctx);
        zb_time_rep(op, zb_op_rooted(op) ? rep % size : 0, o->batch, comm, v);
        r.bad_elements += v[1];
        times[k - 1] = v[0];
        sum += v[0];
        sumsq += v[0] * v[0];
        r.reps = k;
        double mean = sum / k;
        double var = k > 1 ? (sumsq - k * mean * mean) / (k - 1) : 0;
        double se = k > 1 ? sqrt(var > 0 ? var : 0) / sqrt((double)k) : INFINITY;
        if (k >= o->min_reps && k % rotation == 0 &&
            (se < o->rse * mean || sum * o->batch >= o->budget_s))
            break;
    }
    zb_timing_summarize(times, r.reps, &r);
    free(times);
    return r;
}
