/*
 * Time steps of a code whose large collectives are all non-blocking: on a duplicate of
 * MPI_COMM_WORLD, each step an MPI_Ialltoall of smooth doubles and then a one-value
 * MPI_Allreduce (a residual, a time step's minimum). Under coll/zip's policy auto the
 * non-blocking calls compress only once the ranks have agreed on speeds, which only a blocking
 * call can do. Prints the slowest rank's mean step time after two warm-up steps. Built and run
 * by hand (docs/performance.md, "Non-blocking calls and the agreement"):
 *
 *   mpicc -O2 -o nb_steps perftest/nb_steps.c -lm
 *   mpirun -np 4 [zip's options] ./nb_steps [bytes per rank (4194304)] [steps (20)]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int n = (argc > 1 ? atoi(argv[1]) : 4194304) / (int)sizeof(double);
    const int steps = argc > 2 ? atoi(argv[2]) : 20, block = n / p;
    double *send = malloc(sizeof(double) * (size_t)n), *recv = malloc(sizeof(double) * (size_t)n);
    double start = 0.0;
    for (int k = 0; k < steps + 2; ++k) {
        for (int i = 0; i < n; ++i)
            send[i] = sin(0.001 * i + 0.01 * k + rank);
        if (2 == k)
            start = MPI_Wtime();
        MPI_Request req;
        MPI_Ialltoall(send, block, MPI_DOUBLE, recv, block, MPI_DOUBLE, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        double local = recv[0], sum = 0.0;
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    }
    const double mine = (MPI_Wtime() - start) / steps;
    double slowest = 0.0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (0 == rank)
        printf("nb_steps: %d ranks, %d bytes per rank, %d steps: %.3f ms per step\n", p,
               n * (int)sizeof(double), steps, slowest * 1e3);
    free(send);
    free(recv);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
