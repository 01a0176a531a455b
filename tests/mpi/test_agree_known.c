/*
 * A communicator's ranks agree on speeds without probing the links again where earlier
 * agreements of theirs, on other communicators, already measured them. With coll_zip_agree_early
 * 0 a duplicate of MPI_COMM_WORLD agrees first (its ranks know no link: they probe), then
 * MPI_COMM_WORLD and a split of it agree (every rank knows the links from the duplicate: no
 * probe); by default MPI_COMM_WORLD probes inside MPI_Init and the others agree as they are
 * made. A bcast on each is checked bit-exact. The run script reads coll_zip_verbose's agreement
 * lines: one probe per rank, on the first communicator to agree, and the same link rate agreed
 * on all three.
 */
#include "zt_common.h"

static void bcast_checked(MPI_Comm comm, const char *what, int world_rank)
{
    const int count = 1 << 17; /* 1 MiB of doubles */
    int rank;
    MPI_Comm_rank(comm, &rank);
    double *buf = malloc(sizeof(double) * (size_t)count);
    if (0 == rank) {
        zt_fill(buf, (size_t)count, ZT_SMOOTH, 0, 7);
    } else {
        memset(buf, 0, sizeof(double) * (size_t)count);
    }
    zt_call(MPI_Bcast(buf, count, MPI_DOUBLE, 0, comm), "MPI_Bcast", world_rank);
    zt_check(zt_block_matches(buf, 1, (size_t)count, ZT_SMOOTH, 0, 7), what, world_rank);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm dup, half;
    zt_call(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup", rank);
    zt_call(MPI_Barrier(dup), "MPI_Barrier on the duplicate", rank); /* agrees: probes */
    zt_call(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier", rank);       /* agrees: knows */
    zt_call(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half), "MPI_Comm_split", rank);
    zt_call(MPI_Barrier(half), "MPI_Barrier on the split", rank); /* agrees: knows */
    bcast_checked(dup, "bcast on the duplicate", rank);
    bcast_checked(MPI_COMM_WORLD, "bcast on MPI_COMM_WORLD", rank);
    bcast_checked(half, "bcast on the split", rank);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    return zt_finish("agree_known");
}
