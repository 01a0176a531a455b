/*
 * MPI_Gather, MPI_Scatter and MPI_Scatterv through coll/zip: every root; gather's and
 * scatter's blocks from empty and below the threshold (handed on whole) to large, scatterv's
 * uneven (zeros, tiny, around the threshold, large) with displacements in reverse order and
 * gaps; smooth and random doubles, MPI_IN_PLACE at the root, strided types, dup/split
 * communicators. Bit-exact against local data.
 */
#include "zt_common.h"

/* 2048 doubles are the 16 KiB threshold. */
/* 70001: on two ranks a block in segments (exchange.hpp), the last one shorter */
static const int counts[] = {0, 1, 100, 2048, 5000, 20000, 70001};
#define NCOUNTS (int)(sizeof(counts) / sizeof(counts[0]))

static void gather(MPI_Comm comm, int count, int kind, int root, int in_place, int strided)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    zt_gathered_t g;
    zt_gathered_init(&g, count, kind, rank, size, rank == root && in_place, strided);
    zt_call(MPI_Gather(g.send, count, MPI_DOUBLE, g.rbuf, count, g.rtype, root, comm), "MPI_Gather",
            rank);
    for (int p = 0; rank == root && p < size; ++p)
        zt_checkf(zt_gathered_ok(&g, p, kind), rank,
                  "gather count %d %s root %d in_place=%d strided=%d from %d", count,
                  zt_kind_name[kind], root, in_place, strided, p);
    zt_gathered_free(&g);
}

static void scatter(MPI_Comm comm, int count, int kind, int root, int in_place, int strided)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int stride = strided ? 2 : 1;
    double *sbuf = malloc(((size_t)count * size + 1) * sizeof(double));
    double *rbuf = malloc(((size_t)count * stride + 1) * sizeof(double));
    for (int p = 0; p < size; ++p)
        zt_fill(sbuf + (size_t)p * count, count, kind, p, (uint64_t)count);
    for (int i = 0; i < count * stride; ++i)
        rbuf[i] = -5.0;
    MPI_Datatype rtype = strided ? zt_strided_double() : MPI_DOUBLE;
    void *recv = rank == root && in_place ? MPI_IN_PLACE : rbuf;
    zt_call(MPI_Scatter(sbuf, count, MPI_DOUBLE, recv, count, rtype, root, comm), "MPI_Scatter",
            rank);
    const double *got = recv == MPI_IN_PLACE ? sbuf + (size_t)rank * count : rbuf;
    const int ok = zt_block_matches(got, recv == MPI_IN_PLACE ? 1 : stride, count, kind, rank,
                                    (uint64_t)count);
    zt_checkf(ok, rank, "scatter count %d %s root %d in_place=%d strided=%d", count,
              zt_kind_name[kind], root, in_place, strided);
    if (strided)
        MPI_Type_free(&rtype);
    free(sbuf);
    free(rbuf);
}

/* Doubles the root of round `round` sends rank `to`: deliberately uneven. */
static int scatterv_count(int to, int round)
{
    /* 70001: on two ranks a block in segments (exchange.hpp), the last one shorter */
    static const int menu[] = {0, 1, 17, 2047, 2048, 6000, 20000, 70001};
    return menu[(to * 3 + round) % 8];
}

static void scatterv(MPI_Comm comm, int round, int kind, int root, int in_place, int strided)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    const int total = zt_reversed_layout(size, scatterv_count, round, 3, sc, sd);
    const int mine = sc[rank], stride = strided ? 2 : 1;
    double *sbuf = malloc(((size_t)total + 1) * sizeof(double));
    double *rbuf = malloc(((size_t)mine * stride + 1) * sizeof(double));
    for (int p = 0; p < size; ++p)
        zt_fill(sbuf + sd[p], sc[p], kind, p, (uint64_t)round);
    for (int i = 0; i < mine * stride; ++i)
        rbuf[i] = -7.0;
    MPI_Datatype rtype = strided ? zt_strided_double() : MPI_DOUBLE;
    void *recv = rank == root && in_place ? MPI_IN_PLACE : rbuf;
    zt_call(MPI_Scatterv(sbuf, sc, sd, MPI_DOUBLE, recv, mine, rtype, root, comm), "MPI_Scatterv",
            rank);
    const double *got = recv == MPI_IN_PLACE ? sbuf + sd[rank] : rbuf;
    const int ok =
        zt_block_matches(got, recv == MPI_IN_PLACE ? 1 : stride, mine, kind, rank, (uint64_t)round);
    zt_checkf(ok, rank, "scatterv round %d %s root %d in_place=%d strided=%d count %d", round,
              zt_kind_name[kind], root, in_place, strided, mine);
    if (strided)
        MPI_Type_free(&rtype);
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
}

static void run_all(MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    for (int root = 0; root < size; ++root) {
        for (int c = 0; c < NCOUNTS; ++c) {
            gather(comm, counts[c], (root + c) % ZT_KINDS, root, 0, 0);
            scatter(comm, counts[c], (root + c + 1) % ZT_KINDS, root, 0, 0);
        }
        scatter(comm, 5000, ZT_SMOOTH, root, 1, 0);
        scatter(comm, 3000, ZT_SMOOTH, root, root % 2, 1);
        gather(comm, 5000, ZT_SMOOTH, root, 1, 0);
        gather(comm, 3000, ZT_SMOOTH, root, root % 2, 1);
        for (int round = 0; round < 8; ++round)
            scatterv(comm, round, (root + round) % ZT_KINDS, root, round == 3, round == 5);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("gather_scatter");
}
