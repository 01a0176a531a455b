/*
 * Repeated MPI_Allgatherv of one field, as a time loop makes them: blocks of unequal sizes
 * (n -/+ n/8 doubles), random data for RANDOM_CALLS calls, then smooth data for SMOOTH_CALLS;
 * every result checked bit-exact. Under policy auto over a slow link coll/zip weighs the ratio
 * the communicator's last blocking allgather(v) achieved (zip_algo_seen_t): run-mpi-tests.sh
 * reads from its verbose lines which schedule each call took.
 */
#include "zt_common.h"

enum { RANDOM_CALLS = 4, SMOOTH_CALLS = 20, BLOCK = 65536 };

static int count_of(int owner)
{
    return owner % 2 ? BLOCK + BLOCK / 8 : BLOCK - BLOCK / 8;
}

static void allgatherv(MPI_Comm comm, int kind, int call)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    int total = 0;
    for (int p = 0; p < size; ++p) {
        rc[p] = count_of(p);
        rd[p] = total;
        total += rc[p];
    }
    double *sbuf = malloc((size_t)rc[rank] * sizeof(double));
    double *rbuf = malloc((size_t)total * sizeof(double));
    zt_fill(sbuf, rc[rank], kind, rank, (uint64_t)call);
    zt_call(MPI_Allgatherv(sbuf, rc[rank], MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, comm),
            "MPI_Allgatherv", rank);
    for (int p = 0; p < size; ++p)
        zt_checkf(zt_block_matches(&rbuf[rd[p]], 1, rc[p], kind, p, (uint64_t)call), rank,
                  "allgatherv call %d %s from %d", call, zt_kind_name[kind], p);
    free(sbuf);
    free(rbuf);
    free(rc);
    free(rd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int call = 0;
    for (int k = 0; k < RANDOM_CALLS; ++k)
        allgatherv(MPI_COMM_WORLD, ZT_RANDOM, call++);
    for (int k = 0; k < SMOOTH_CALLS; ++k)
        allgatherv(MPI_COMM_WORLD, ZT_SMOOTH, call++);
    return zt_finish("allgather_seen");
}
