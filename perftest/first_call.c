/*
 * The first collective on a new communicator against the second: each round duplicates
 * MPI_COMM_WORLD and times MPI_Comm_dup, then two MPI_Bcast (or, with `ibcast`, two MPI_Ibcast
 * each waited for at once) of smooth doubles on the duplicate. Under coll/zip's policy auto the
 * first call is where the ranks agree on speeds; the figures are the slowest rank's, medians
 * over the rounds. Built and run by hand (docs/performance.md, "The first call on a new
 * communicator"):
 *
 *   mpicc -O2 -o first_call perftest/first_call.c -lm
 *   mpirun -np 4 [zip's options] ./first_call [doubles (131072)] [rounds (10)] [bcast|ibcast]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bcast(double *buf, int n, MPI_Comm comm, int nonblocking)
{
    if (!nonblocking) {
        MPI_Bcast(buf, n, MPI_DOUBLE, 0, comm);
        return;
    }
    MPI_Request req;
    MPI_Ibcast(buf, n, MPI_DOUBLE, 0, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median over the rounds of the slowest rank's times t[0..rounds). */
static double slowest_median(double *t, int rounds)
{
    MPI_Allreduce(MPI_IN_PLACE, t, rounds, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(t, (size_t)rounds, sizeof *t, by_value);
    return t[rounds / 2];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = argc > 1 ? atoi(argv[1]) : 131072;
    const int rounds = argc > 2 ? atoi(argv[2]) : 10;
    const int nonblocking = argc > 3 && 0 == strcmp(argv[3], "ibcast");
    double *buf = malloc(sizeof(double) * (size_t)n);
    double *dup_s = calloc((size_t)rounds, sizeof(double));
    double *first_s = calloc((size_t)rounds, sizeof(double));
    double *second_s = calloc((size_t)rounds, sizeof(double));
    if (NULL == buf || NULL == dup_s || NULL == first_s || NULL == second_s || n < 1 ||
        rounds < 1) {
        fprintf(stderr, "first_call: bad arguments or no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* MPI_COMM_WORLD agrees and every connection is made before the rounds. */
    for (int k = 0; k < 3; ++k) {
        MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    for (int r = 0; r < rounds; ++r) {
        for (int j = 0; j < n; ++j) {
            buf[j] = 0 == rank ? sin(j * 0.001 + r) * 100.0 : 0.0;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        const double t1 = MPI_Wtime();
        bcast(buf, n, comm, nonblocking);
        const double t2 = MPI_Wtime();
        bcast(buf, n, comm, nonblocking);
        const double t3 = MPI_Wtime();
        MPI_Comm_free(&comm);
        dup_s[r] = t1 - t0;
        first_s[r] = t2 - t1;
        second_s[r] = t3 - t2;
    }
    const double dup = slowest_median(dup_s, rounds), first = slowest_median(first_s, rounds),
                 second = slowest_median(second_s, rounds);
    if (0 == rank) {
        const char *call = nonblocking ? "ibcast" : "bcast";
        printf("%d ranks, %zu bytes: MPI_Comm_dup %.3f ms, first %s %.3f ms, second %.3f ms "
               "(slowest rank, median of %d rounds)\n",
               size, sizeof(double) * (size_t)n, dup * 1e3, call, first * 1e3, second * 1e3,
               rounds);
    }
    free(buf);
    free(dup_s);
    free(first_s);
    free(second_s);
    MPI_Finalize();
    return 0;
}
