/*
 * The hand-on path under callgrind (perftest/handon-instructions): n calls each of MPI_Bcast,
 * MPI_Gatherv and MPI_Alltoallv of `count` doubles per rank on a duplicate of MPI_COMM_WORLD.
 * One MPI_Gather first makes coll/zip agree on speeds outside the counted calls.
 *
 *   handon_loop N COUNT
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int n = argc > 1 ? atoi(argv[1]) : 100, count = argc > 2 ? atoi(argv[2]) : 8192;
    int size;
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_size(c, &size);
    double *a = calloc((size_t)count * size, sizeof(double));
    double *b = calloc((size_t)count * size, sizeof(double));
    int *counts = malloc(size * sizeof(int)), *disps = malloc(size * sizeof(int));
    if (!a || !b || !counts || !disps)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int p = 0; p < size; p++) {
        counts[p] = count;
        disps[p] = p * count;
    }
    MPI_Gather(a, count, MPI_DOUBLE, b, count, MPI_DOUBLE, 0, c);
    for (int i = 0; i < n; i++)
        MPI_Bcast(a, count, MPI_DOUBLE, 0, c);
    for (int i = 0; i < n; i++)
        MPI_Gatherv(a, count, MPI_DOUBLE, b, counts, disps, MPI_DOUBLE, 0, c);
    for (int i = 0; i < n; i++)
        MPI_Alltoallv(a, counts, disps, MPI_DOUBLE, b, counts, disps, MPI_DOUBLE, c);
    free(a);
    free(b);
    free(counts);
    free(disps);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return 0;
}
