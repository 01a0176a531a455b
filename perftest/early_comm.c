/*
 * Non-blocking collectives on a communicator made before any collective ran: MPI_Comm_dup of
 * MPI_COMM_WORLD right after MPI_Init (or, with `world`, MPI_COMM_WORLD itself), then `rounds`
 * MPI_Ialltoall of smooth doubles on it, each waited for at once, and no other collective until
 * all are timed. Under coll/zip's policy auto such a communicator compresses only if its ranks
 * agreed before its first call (the link rates given, coll_zip_link_gbps_*: MPI_COMM_WORLD
 * inside MPI_Init, the duplicate as it was made); otherwise every call is handed on. Prints the
 * slowest rank's MPI_Init, first call and median call, in ms. With `barrier` after `world` or
 * `dup`, an MPI_Barrier on MPI_COMM_WORLD right after MPI_Init is timed too (where the ranks of a
 * job that did not agree inside MPI_Init agree). Built and run by hand (docs/performance.md,
 * "Communicators that agree as they are made"):
 *
 *   mpicc -O2 -o early_comm perftest/early_comm.c -lm
 *   mpirun -np 8 [zip's options] ./early_comm [doubles per rank (131072)] [rounds (10)]
 *          [world|dup] [barrier]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    MPI_Init(&argc, &argv);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double init_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    const int on_world = argc > 3 && 0 == strcmp(argv[3], "world");
    double barrier_s = 0.0;
    if (argc > 4 && 0 == strcmp(argv[4], "barrier")) {
        const double b0 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        barrier_s = MPI_Wtime() - b0;
    }
    MPI_Comm comm = MPI_COMM_WORLD;
    if (!on_world) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    }
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = argc > 1 ? atoi(argv[1]) : 131072, rounds = argc > 2 ? atoi(argv[2]) : 10;
    const int block = n / size;
    double *send = malloc(sizeof(double) * (size_t)block * (size_t)size);
    double *recv = malloc(sizeof(double) * (size_t)block * (size_t)size);
    double *t = malloc(sizeof(double) * (size_t)rounds);
    if (NULL == send || NULL == recv || NULL == t || rounds < 1 || block < 1) {
        fprintf(stderr, "early_comm: bad arguments or out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < (size_t)block * (size_t)size; ++i) {
        send[i] = 100.0 * sin(1e-3 * (double)i + (double)rank);
    }
    for (int r = 0; r < rounds; ++r) {
        MPI_Request req;
        const double t0 = MPI_Wtime();
        MPI_Ialltoall(send, block, MPI_DOUBLE, recv, block, MPI_DOUBLE, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        t[r] = MPI_Wtime() - t0;
    }
    MPI_Allreduce(MPI_IN_PLACE, t, rounds, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &init_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &barrier_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double first = t[0];
    qsort(t, (size_t)rounds, sizeof *t, by_value);
    if (0 == rank) {
        printf("early_comm: %d ranks, %s, %zu bytes per rank, MPI_Init %.1f ms, first barrier "
               "%.1f ms, first %.2f ms, median of %d %.2f ms\n",
               size, on_world ? "MPI_COMM_WORLD" : "a duplicate",
               sizeof(double) * (size_t)block * (size_t)size, 1e3 * init_s, 1e3 * barrier_s,
               1e3 * first, rounds, 1e3 * t[rounds / 2]);
    }
    free(send);
    free(recv);
    free(t);
    if (!on_world) {
        MPI_Comm_free(&comm);
    }
    MPI_Finalize();
    return 0;
}
