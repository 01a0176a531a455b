/*
 * What each communicator costs a process: makes N duplicates of MPI_COMM_WORLD, each followed by
 * one MPI_Bcast of 1 MiB of smooth doubles on it (so that coll/zip routes, samples or codes a
 * call there), and reports rank 0's resident memory before and after (VmRSS) and the time per
 * duplicate and call. Built and run by hand (docs/performance.md, "Codec contexts from a pool"):
 *
 *   mpicc -O2 -o comm_cost perftest/comm_cost.c -lm
 *   mpirun -np 2 [zip's options] ./comm_cost [communicators (200)]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This process's resident set in KiB (-1: unknown). */
static long resident_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (NULL != f && NULL != fgets(line, sizeof line, f)) {
        if (0 == strncmp(line, "VmRSS:", 6)) {
            kib = atol(line + 6);
        }
    }
    if (NULL != f) {
        fclose(f);
    }
    return kib;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int count = argc > 1 ? atoi(argv[1]) : 200;
    const int n = 131072;
    double *buf = malloc(sizeof(double) * (size_t)n);
    MPI_Comm *comms = malloc(sizeof(MPI_Comm) * (size_t)(count > 0 ? count : 1));
    if (NULL == buf || NULL == comms || count < 1) {
        fprintf(stderr, "comm_cost: bad arguments or no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < n; ++i) {
        buf[i] = sin(i * 0.001) * 100.0;
    }
    /* MPI_COMM_WORLD agrees, and every connection is made, before the count. */
    MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const long before = resident_kib();
    const double t0 = MPI_Wtime();
    for (int k = 0; k < count; ++k) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
        MPI_Bcast(buf, n, MPI_DOUBLE, 0, comms[k]);
    }
    const double t1 = MPI_Wtime();
    const long after = resident_kib();
    if (0 == rank) {
        printf("%d communicators: resident %ld KiB before, %ld after (%.1f KiB each), %.3f ms per "
               "MPI_Comm_dup and first MPI_Bcast\n",
               count, before, after, (double)(after - before) / count, (t1 - t0) * 1e3 / count);
    }
    for (int k = 0; k < count; ++k) {
        MPI_Comm_free(&comms[k]);
    }
    free(comms);
    free(buf);
    MPI_Finalize();
    return 0;
}
