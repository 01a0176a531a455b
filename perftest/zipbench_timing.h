/* SKaMPI-style measurement of one (operation, size) point: warm-up, then repetitions until the
 * standard error of the mean is small or the time budget is spent. Each repetition's time is
 * the maximum over ranks, and every repetition's received data are verified (with a batch of
 * calls per repetition, OSU-style, those of its last call). */
#ifndef ZIPBENCH_TIMING_H
#define ZIPBENCH_TIMING_H

#include "zipbench_ops.h"

typedef struct zb_timing_opts {
    int warmup;      /* untimed repetitions first */
    int min_reps;    /* never fewer timed repetitions */
    int max_reps;    /* never more */
    double rse;      /* stop when stderr / mean falls below this */
    double budget_s; /* stop when the timed repetitions add up to this */
    int batch;       /* calls per repetition, back to back; times are per call */
    /* --evolve: called with evolve_ctx before every repetition but the first, warm-up
     * included, outside the timed region (NULL: the same data every repetition) */
    void (*evolve)(void *evolve_ctx);
    void *evolve_ctx;
} zb_timing_opts;

typedef struct zb_timing {
    /* median: what the CSV reports, robust to the odd descheduled repetition on a shared host */
    double mean_us, stderr_us, min_us, median_us;
    int reps;
    double bad_elements; /* wrong elements summed over repetitions (max over ranks) */
} zb_timing;

/* One repetition of `batch` calls of op with `root`, the ranks lined up by a barrier first:
 * out[0] the slowest rank's time per call in seconds, out[1] the most wrong elements a rank
 * received. Collective over comm, the op's communicator; every rank gets the same out. */
void zb_time_rep(zb_op *op, int root, int batch, MPI_Comm comm, double out[2]);

/* Fills r's reps, mean, stderr, min and median (us) from n repetition times in seconds (sorted
 * in place); bad_elements is left alone. */
void zb_timing_summarize(double *times, int n, zb_timing *r);

/* Collective over the op's communicator; every rank returns the same result. */
zb_timing zb_measure(zb_op *op, const zb_timing_opts *o, MPI_Comm comm);

#endif
