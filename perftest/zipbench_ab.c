#include "zipbench_ab.h"

#include <stdio.h>
#include <stdlib.h>

const char *const zb_ab_modes[ZB_AB_COMMS] = {"default", "zip", "default-again"};

/* Every order of the three communicators: block b runs them in orders[b % 6], so each goes
 * first, second and last equally often, and after each of the others equally often. */
enum { ORDERS = 6, MAX_BLOCK_REPS = 3 };
static const int orders[ORDERS][ZB_AB_COMMS] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1},
                                                {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};

static void dup_without_zip(MPI_Comm parent, MPI_Comm *comm)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "zip_coll", "false");
    MPI_Comm_dup_with_info(parent, info, comm);
    MPI_Info_free(&info);
}

void zb_ab_open(MPI_Comm parent, MPI_Comm comms[ZB_AB_COMMS])
{
    dup_without_zip(parent, &comms[ZB_AB_DEFAULT]);
    MPI_Comm_dup(parent, &comms[ZB_AB_ZIP]);
    dup_without_zip(parent, &comms[ZB_AB_AGAIN]);
}

void zb_ab_close(MPI_Comm comms[ZB_AB_COMMS])
{
    for (int c = 0; c < ZB_AB_COMMS; c++)
        MPI_Comm_free(&comms[c]);
}

/* One communicator's side: repetitions run (the root rotates with them, warm-up included),
 * timed ones kept (seconds per call), wrong elements seen. */
typedef struct ab_side {
    zb_op *op;
    int size, rep, n;
    double *times, bad;
} ab_side;

static double run_rep(ab_side *s, int batch)
{
    double v[2];
    zb_time_rep(s->op, zb_op_rooted(s->op) ? s->rep % s->size : 0, batch, zb_op_comm(s->op), v);
    s->rep++;
    s->bad += v[1];
    return v[0];
}

/* Blocks and repetitions per block for repetitions of about rep_s seconds each: as many
 * repetitions per block (1 to MAX_BLOCK_REPS) as budget_s allows in min_blocks blocks, then as
 * many blocks as the budget and max_reps allow, in whole rounds of the six orders. Several
 * repetitions per block where they are short: a block's first repetition finds the other
 * communicators' buffers in the cache, the next ones their own, as in zb_measure's runs, and
 * the median is then one of those. */
static void plan(double rep_s, const zb_timing_opts *o, int min_blocks, int *blocks, int *k)
{
    const int least = (min_blocks + ORDERS - 1) / ORDERS * ORDERS;
    const double reps = rep_s > 0 ? o->budget_s / rep_s : o->max_reps;
    const double fit = reps / least;
    *k = fit >= MAX_BLOCK_REPS ? MAX_BLOCK_REPS : fit >= 2 ? 2 : 1;
    double b = reps / *k;
    if (b > (double)o->max_reps / *k)
        b = (double)o->max_reps / *k;
    *blocks = (int)b / ORDERS * ORDERS;
    if (*blocks < least)
        *blocks = least;
}

void zb_ab_measure(zb_op *const ops[ZB_AB_COMMS], const zb_timing_opts *o, int min_blocks,
                   MPI_Comm all, zb_timing out[ZB_AB_COMMS])
{
    ab_side side[ZB_AB_COMMS];
    for (int c = 0; c < ZB_AB_COMMS; c++) {
        side[c] = (ab_side){.op = ops[c]};
        MPI_Comm_size(zb_op_comm(ops[c]), &side[c].size);
    }
    /* Warm-up, interleaved too. Its median time (the same on every rank) sizes the blocks: the
     * zip communicator's first call, which runs coll/zip's speed probe, does not count. */
    const int warmup = o->warmup > 0 ? o->warmup : 1;
    double warm[ZB_AB_COMMS * 64];
    int nwarm = 0;
    for (int w = 0; w < warmup; w++)
        for (int c = 0; c < ZB_AB_COMMS; c++) {
            const double t = run_rep(&side[(c + w) % ZB_AB_COMMS], o->batch);
            if (nwarm < (int)(sizeof warm / sizeof *warm))
                warm[nwarm++] = t;
        }
    zb_timing warm_summary = {0};
    zb_timing_summarize(warm, nwarm, &warm_summary);
    int blocks, k;
    plan(warm_summary.median_us * 1e-6 * o->batch, o, min_blocks, &blocks, &k);
    for (int c = 0; c < ZB_AB_COMMS; c++) {
        side[c].times = malloc((size_t)blocks * k * sizeof *side[c].times);
        if (!side[c].times)
            MPI_Abort(all, 2);
    }
    for (int b = 0; b < blocks; b++) {
        MPI_Barrier(all);
        for (int i = 0; i < ZB_AB_COMMS; i++) {
            ab_side *s = &side[orders[b % ORDERS][i]];
            for (int j = 0; j < k; j++)
                s->times[s->n++] = run_rep(s, o->batch);
        }
    }
    for (int c = 0; c < ZB_AB_COMMS; c++) {
        out[c] = (zb_timing){.bad_elements = side[c].bad};
        zb_timing_summarize(side[c].times, side[c].n, &out[c]);
        free(side[c].times);
    }
}

int zb_ab_check(zb_op *const ops[ZB_AB_COMMS], const char *stats_op, const char *label,
                zb_zipstats *stats)
{
    /* counted[0..2]: calls per communicator; counted[3]: ranks that could not read them. */
    double counted[ZB_AB_COMMS + 1] = {0, 0, 0, stats == NULL};
    for (int c = 0; c < ZB_AB_COMMS; c++) {
        unsigned long long before = 0, after = 0;
        counted[ZB_AB_COMMS] += stats && zb_zipstats_calls(stats, stats_op, &before);
        zb_op_prepare(ops[c], 0); /* on every rank, whatever its counters say */
        zb_op_run(ops[c], 0);
        counted[ZB_AB_COMMS] += stats && zb_zipstats_calls(stats, stats_op, &after);
        counted[c] = (double)(after - before);
    }
    MPI_Allreduce(MPI_IN_PLACE, counted, ZB_AB_COMMS + 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const int unread = counted[ZB_AB_COMMS] > 0;
    const int bad = unread || counted[ZB_AB_DEFAULT] > 0 || counted[ZB_AB_AGAIN] > 0 ||
                    !(counted[ZB_AB_ZIP] > 0);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!rank && unread)
        fprintf(stderr, "zipbench: --ab %s: coll/zip's counter %s_calls cannot be read\n", label,
                stats_op);
    else if (!rank)
        printf("# ab %s: coll/zip calls default %.0f zip %.0f default-again %.0f\n", label,
               counted[ZB_AB_DEFAULT], counted[ZB_AB_ZIP], counted[ZB_AB_AGAIN]);
    if (!rank && bad)
        fprintf(stderr,
                "zipbench: --ab %s: coll/zip must take the calls of the zip communicator and no "
                "other (coll_zip_priority 40? a coll/zip that knows zip_coll?): rows not "
                "written\n",
                label);
    return bad;
}
