/*
 * One-sided communication over point-to-point: run with --mca osc pt2pt, which carries every
 * MPI_Get, MPI_Put and MPI_Accumulate as PML messages on a duplicate of the window's
 * communicator (so through pml/zip when it is in front). Each rank exposes a window of 100000
 * doubles; rank r reads from and writes to rank r+1 (mod size), with fences around every
 * operation:
 *
 *   get8        MPI_Get of 8 doubles (from displacement 100)
 *   get         MPI_Get of the whole window (800 KB)
 *   put         MPI_Put of the whole window
 *   accumulate  MPI_Accumulate(MPI_SUM) of the whole window
 *
 * Usage: p2p_osc [case...] (every case without arguments). Each case reports its own line and
 * fails on a deadline instead of hanging.
 */
#include "p2p_cases.h"

#define WIN_N 100000

static double *base;
static MPI_Win win;
static int target, origin; /* the rank this one accesses, the rank that accesses this one */

/* Window contents of rank r for case k, smooth (compressible) data. */
static void window_data(double *x, size_t n, int r, int k)
{
    pt_fill_f64(x, n, 2 * (uint64_t)(100 * k + r));
}

static void get_case(int k, int disp, int n, const char *what)
{
    double *got = malloc(n * sizeof(double)), *ref = malloc(WIN_N * sizeof(double));
    window_data(base, WIN_N, pt_rank, k);
    window_data(ref, WIN_N, target, k);
    memset(got, 0, n * sizeof(double));
    pt_call(MPI_Win_fence(0, win), "fence");
    pt_call(MPI_Get(got, n, MPI_DOUBLE, target, disp, n, MPI_DOUBLE, win), what);
    pt_call(MPI_Win_fence(0, win), "fence");
    pt_check(pt_same(got, ref + disp, n * sizeof(double)), what);
    free(got);
    free(ref);
}

static void get8(void)
{
    get_case(1, 100, 8, "MPI_Get of 8 doubles");
}

static void get_all(void)
{
    get_case(2, 0, WIN_N, "MPI_Get of 100000 doubles");
}

static void put(void)
{
    double *src = malloc(WIN_N * sizeof(double)), *ref = malloc(WIN_N * sizeof(double));
    window_data(src, WIN_N, pt_rank, 3);
    window_data(ref, WIN_N, origin, 3);
    memset(base, 0, WIN_N * sizeof(double));
    pt_call(MPI_Win_fence(0, win), "fence");
    pt_call(MPI_Put(src, WIN_N, MPI_DOUBLE, target, 0, WIN_N, MPI_DOUBLE, win), "MPI_Put");
    pt_call(MPI_Win_fence(0, win), "fence");
    pt_check(pt_same(base, ref, WIN_N * sizeof(double)), "MPI_Put of 100000 doubles");
    free(src);
    free(ref);
}

static void accumulate(void)
{
    double *src = malloc(WIN_N * sizeof(double)), *ref = malloc(WIN_N * sizeof(double)),
           *add = malloc(WIN_N * sizeof(double));
    window_data(base, WIN_N, pt_rank, 4);
    window_data(src, WIN_N, pt_rank, 5);
    /* One addition per element: the sum is exact to the bit whoever computes it. */
    window_data(ref, WIN_N, pt_rank, 4);
    window_data(add, WIN_N, origin, 5);
    for (int i = 0; i < WIN_N; ++i)
        ref[i] += add[i];
    pt_call(MPI_Win_fence(0, win), "fence");
    pt_call(MPI_Accumulate(src, WIN_N, MPI_DOUBLE, target, 0, WIN_N, MPI_DOUBLE, MPI_SUM, win),
            "MPI_Accumulate");
    pt_call(MPI_Win_fence(0, win), "fence");
    pt_check(pt_same(base, ref, WIN_N * sizeof(double)),
             "MPI_Accumulate(MPI_SUM) of 100000 doubles");
    free(src);
    free(ref);
    free(add);
}

static const struct pt_case cases[] = {
    {"get8", get8, 3},
    {"get", get_all, 3},
    {"put", put, 3},
    {"accumulate", accumulate, 3},
};

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    target = (pt_rank + 1) % pt_size;
    origin = (pt_rank + pt_size - 1) % pt_size;
    /* Window creation and release talk too: under deadlines of their own. */
    pt_deadline("p2p_osc", "MPI_Win_create", 10);
    MPI_Alloc_mem(WIN_N * sizeof(double), MPI_INFO_NULL, &base);
    pt_call(MPI_Win_create(base, WIN_N * sizeof(double), sizeof(double), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win),
            "MPI_Win_create");
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    pt_deadline("p2p_osc", "MPI_Win_create", 0);
    pt_failures += pt_run_cases("p2p_osc", cases, sizeof cases / sizeof cases[0], argc, argv);
    pt_deadline("p2p_osc", "MPI_Win_free and MPI_Finalize", 10);
    MPI_Win_free(&win);
    MPI_Free_mem(base);
    return pt_finish("p2p_osc");
}
