/*
 * Calls on data no rank codes are handed on for a while (zip_algo_uncoded_t): 40 calls of
 * random doubles, then 40 of smooth ones, then 8 non-blocking calls of smooth ones, every result
 * checked; MPI_Alltoallv, or with an argument MPI_Gatherv or MPI_Scatterv (root 1). Under
 * policy auto over a fast link the ranks share at their 4th call that nothing was coded and
 * hand on calls 5-20, take zip's path for 21-24, share again and hand on 25-56 (the smooth
 * calls 41-56 among them), share at 60 that the smooth data coded, and keep zip's path from
 * there (the run script reads the handed-on calls from coll_zip_stats: 48 per rank). Over a
 * slow link and under policy always nothing is handed on.
 */
#include "zt_common.h"

enum op { ALLTOALLV, GATHERV, SCATTERV };
static const int root = 1;

/* MPI_Gatherv into the root or MPI_Scatterv out of it: the root's blocks are sbuf's (scatter)
 * or rbuf's (gather), every other rank's the one at its own place in the other buffer. */
static void rooted(enum op op, double *sbuf, double *rbuf, int *counts, int *displs, int rank,
                   int nonblocking)
{
    const int count = counts[0];
    MPI_Request req = MPI_REQUEST_NULL;
    if (op == GATHERV && nonblocking)
        zt_call(MPI_Igatherv(sbuf + (size_t)rank * count, count, MPI_DOUBLE, rbuf, counts, displs,
                             MPI_DOUBLE, root, MPI_COMM_WORLD, &req),
                "MPI_Igatherv", rank);
    else if (op == GATHERV)
        zt_call(MPI_Gatherv(sbuf + (size_t)rank * count, count, MPI_DOUBLE, rbuf, counts, displs,
                            MPI_DOUBLE, root, MPI_COMM_WORLD),
                "MPI_Gatherv", rank);
    else if (nonblocking)
        zt_call(MPI_Iscatterv(sbuf, counts, displs, MPI_DOUBLE, rbuf + (size_t)rank * count, count,
                              MPI_DOUBLE, root, MPI_COMM_WORLD, &req),
                "MPI_Iscatterv", rank);
    else
        zt_call(MPI_Scatterv(sbuf, counts, displs, MPI_DOUBLE, rbuf + (size_t)rank * count, count,
                             MPI_DOUBLE, root, MPI_COMM_WORLD),
                "MPI_Scatterv", rank);
    zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", rank);
}

static void exchange(enum op op, int kind, int call, int rank, int size, int nonblocking)
{
    const int count = 8192; /* 64 KiB of doubles per peer: above coll_zip_threshold */
    double *sbuf = malloc(sizeof(double) * (size_t)count * size);
    double *rbuf = malloc(sizeof(double) * (size_t)count * size);
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    for (int p = 0; p < size; ++p) {
        counts[p] = count;
        displs[p] = p * count;
        zt_fill(sbuf + (size_t)p * count, (size_t)count, kind, rank, (uint64_t)(call * size + p));
    }
    memset(rbuf, 0, sizeof(double) * (size_t)count * size);
    if (op != ALLTOALLV) {
        /* Block p of a gatherv is rank p's; of a scatterv, the root's for rank p. */
        for (int p = 0; p < size; ++p)
            zt_fill(sbuf + (size_t)p * count, (size_t)count, kind, op == GATHERV ? rank : root,
                    (uint64_t)(call * size + p));
        rooted(op, sbuf, rbuf, counts, displs, rank, nonblocking);
        int ok = 1;
        for (int p = 0; p < size; ++p) {
            const int from = op == GATHERV ? p : root;
            if (op == GATHERV ? rank == root : p == rank)
                ok &= zt_block_matches(rbuf + (size_t)p * count, 1, (size_t)count, kind, from,
                                       (uint64_t)(call * size + p));
        }
        zt_checkf(ok, rank, "%s call %d", op == GATHERV ? "gatherv" : "scatterv", call);
    } else if (nonblocking) {
        MPI_Request req;
        zt_call(MPI_Ialltoallv(sbuf, counts, displs, MPI_DOUBLE, rbuf, counts, displs, MPI_DOUBLE,
                               MPI_COMM_WORLD, &req),
                "MPI_Ialltoallv", rank);
        zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", rank);
    } else {
        zt_call(MPI_Alltoallv(sbuf, counts, displs, MPI_DOUBLE, rbuf, counts, displs, MPI_DOUBLE,
                              MPI_COMM_WORLD),
                "MPI_Alltoallv", rank);
    }
    if (op == ALLTOALLV) {
        int ok = 1;
        for (int p = 0; p < size; ++p) {
            ok &= zt_block_matches(rbuf + (size_t)p * count, 1, (size_t)count, kind, p,
                                   (uint64_t)(call * size + rank));
        }
        zt_checkf(ok, rank, "alltoallv call %d", call);
    }
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const enum op op = argc > 1 && !strcmp(argv[1], "gatherv")    ? GATHERV
                       : argc > 1 && !strcmp(argv[1], "scatterv") ? SCATTERV
                                                                  : ALLTOALLV;
    int call = 0;
    for (int i = 0; i < 40; ++i) {
        exchange(op, ZT_RANDOM, ++call, rank, size, 0);
    }
    for (int i = 0; i < 40; ++i) {
        exchange(op, ZT_SMOOTH, ++call, rank, size, 0);
    }
    for (int i = 0; i < 8; ++i) {
        exchange(op, ZT_SMOOTH, ++call, rank, size, 1);
    }
    return zt_finish("uncoded");
}
