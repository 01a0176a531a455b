/*
 * A frame that fails its checks must end in MPI's error handler on the rank that received it,
 * never in a silently wrong result and never in an abort: run with
 * --mca coll_zip_inject_corruption 1, which corrupts every frame zip sends. Every receiver of
 * compressed data gets an error from MPI_Bcast, MPI_Gatherv and MPI_Alltoallv; the job then
 * goes on (a later collective works) and ends normally.
 */
#include "zt_common.h"

enum { N = 1 << 17 }; /* 1 MiB of doubles: far above the threshold */

/* A call that reports success must have delivered exact data. */
static int failed_or_exact(int rc, const double *got, int n, int owner, uint64_t salt)
{
    return MPI_SUCCESS != rc || zt_block_matches(got, 1, n, ZT_SMOOTH, owner, salt);
}

static void bcast(int rank)
{
    double *buf = malloc(N * sizeof *buf);
    if (0 == rank)
        zt_fill(buf, N, ZT_SMOOTH, 0, 1);
    else
        memset(buf, 0, N * sizeof *buf);
    const int rc = MPI_Bcast(buf, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (0 != rank)
        zt_check(MPI_SUCCESS != rc, "bcast receiver saw an error", rank);
    zt_check(failed_or_exact(rc, buf, N, 0, 1), "bcast never silently wrong", rank);
    free(buf);
}

static void gatherv(int rank, int size)
{
    const int n = N / size;
    double *mine = malloc(n * sizeof *mine), *all = NULL;
    int *counts = malloc(size * sizeof(int)), *disps = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        counts[p] = n;
        disps[p] = p * n;
    }
    zt_fill(mine, n, ZT_SMOOTH, rank, 2);
    if (0 == rank)
        all = calloc((size_t)n * size, sizeof *all);
    const int rc =
        MPI_Gatherv(mine, n, MPI_DOUBLE, all, counts, disps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        zt_check(MPI_SUCCESS != rc, "gatherv root saw an error", rank);
        for (int p = 1; p < size; ++p)
            zt_check(failed_or_exact(rc, all + disps[p], n, p, 2), "gatherv never silently wrong",
                     rank);
    }
    free(mine);
    free(all);
    free(counts);
    free(disps);
}

static void alltoallv(int rank, int size)
{
    const int n = N / size;
    double *sbuf = malloc((size_t)n * size * sizeof *sbuf);
    double *rbuf = calloc((size_t)n * size, sizeof *rbuf);
    int *counts = malloc(size * sizeof(int)), *disps = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        counts[p] = n;
        disps[p] = p * n;
        zt_fill(sbuf + disps[p], n, ZT_SMOOTH, rank, 3 + (uint64_t)p);
    }
    const int rc = MPI_Alltoallv(sbuf, counts, disps, MPI_DOUBLE, rbuf, counts, disps, MPI_DOUBLE,
                                 MPI_COMM_WORLD);
    zt_check(MPI_SUCCESS != rc, "alltoallv receiver saw an error", rank);
    for (int p = 0; p < size; ++p)
        if (p != rank)
            zt_check(failed_or_exact(rc, rbuf + disps[p], n, p, 3 + (uint64_t)rank),
                     "alltoallv never silently wrong", rank);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(disps);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bcast(rank);
    gatherv(rank, size);
    alltoallv(rank, size);
    /* The communicator still works afterwards: nothing of the failed calls is left behind. */
    int one = 1, sum = 0;
    zt_call(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce", rank);
    zt_check(sum == size, "allreduce after the failed calls", rank);
    return zt_finish("corruption");
}
