/*
 * Non-blocking collectives one after the other: `reps` MPI_Ibcast, then `reps` MPI_Ialltoall,
 * of `doubles` smooth doubles (per block for the alltoall), each waited for at once; per call,
 * the slowest rank's mean, best of three passes. What a call costs beyond its data (its codec
 * context, its request). Built and run by hand (docs/performance.md, "Codec contexts from a
 * pool"):
 *
 *   mpicc -O2 -o nb_loop perftest/nb_loop.c -lm
 *   mpirun -np 2 [zip's options] ./nb_loop [doubles (8192)] [reps (100)]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = argc > 1 ? atoi(argv[1]) : 8192;
    const int reps = argc > 2 ? atoi(argv[2]) : 100;
    const size_t all = (size_t)n * (size_t)size;
    double *sbuf = malloc(sizeof(double) * all), *rbuf = malloc(sizeof(double) * all);
    if (NULL == sbuf || NULL == rbuf || n < 1 || reps < 1) {
        fprintf(stderr, "nb_loop: bad arguments or no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < all; ++i) {
        sbuf[i] = sin((double)i * 0.001) * 100.0 + rank;
    }
    double best[2] = {1e30, 1e30};
    for (int op = 0; op < 2; ++op) {
        for (int pass = 0; pass < 3; ++pass) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            for (int i = 0; i < reps; ++i) {
                MPI_Request req;
                if (0 == op) {
                    MPI_Ibcast(sbuf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req);
                } else {
                    MPI_Ialltoall(sbuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE, MPI_COMM_WORLD, &req);
                }
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
            double t = (MPI_Wtime() - t0) / reps;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            best[op] = t < best[op] ? t : best[op];
        }
    }
    if (0 == rank) {
        printf("%zu bytes: MPI_Ibcast %.1f us, MPI_Ialltoall %.1f us a call (slowest rank, best of "
               "3 x %d)\n",
               sizeof(double) * (size_t)n, best[0] * 1e6, best[1] * 1e6, reps);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
