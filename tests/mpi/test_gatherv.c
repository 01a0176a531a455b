/*
 * MPI_Gatherv through coll/zip: every root, uneven and zero counts (up to blocks that travel in
 * segments on two ranks), displacements with gaps
 * in reverse order, MPI_IN_PLACE at the root, floats and ints next to doubles, dup/split
 * communicators. Bit-exact against local data.
 */
#include "zt_common.h"

static int count_of(int rank, int round)
{
    /* 70001: on two ranks a block in segments (exchange.hpp), the last one shorter */
    static const int menu[] = {0, 5, 2048, 3000, 25000, 1, 9000, 70001};
    return menu[(rank * 2 + round) % 8];
}

static void gather(MPI_Comm comm, int round, int kind, int in_place)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    const int total = zt_reversed_layout(size, count_of, round, 2, rc, rd);
    const int mine = count_of(rank, round);
    double *sbuf = malloc((mine + 1) * sizeof(double));
    double *rbuf = malloc((total + 1) * sizeof(double));
    for (int root = 0; root < size; ++root) {
        zt_fill(sbuf, mine, kind, rank, round);
        for (int i = 0; i < total; ++i)
            rbuf[i] = -9.0;
        const void *send = sbuf;
        if (rank == root && in_place) {
            zt_fill(rbuf + rd[rank], mine, kind, rank, round);
            send = MPI_IN_PLACE;
        }
        zt_call(MPI_Gatherv(send, mine, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, root, comm),
                "MPI_Gatherv", rank);
        if (rank != root)
            continue;
        for (int p = 0; p < size; ++p) {
            int ok = zt_block_matches(&rbuf[rd[p]], 1, rc[p], kind, p, round);
            ok &= rbuf[rd[p] - 1] == -9.0;
            zt_checkf(ok, rank, "gatherv round %d %s in_place=%d root %d from %d", round,
                      zt_kind_name[kind], in_place, root, p);
        }
    }
    free(sbuf);
    free(rbuf);
    free(rc);
    free(rd);
}

static void gather_floats(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 12000;
    float *s = malloc(n * sizeof(float)), *r = malloc((size_t)n * size * sizeof(float));
    int *c = malloc(size * sizeof(int)), *d = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        c[p] = n;
        d[p] = p * n;
    }
    for (int i = 0; i < n; ++i)
        s[i] = (float)zt_value(ZT_SMOOTH, rank, 3, i);
    zt_call(MPI_Gatherv(s, n, MPI_FLOAT, r, c, d, MPI_FLOAT, size - 1, comm), "gatherv float",
            rank);
    if (rank == size - 1) {
        int ok = 1;
        for (int p = 0; p < size; ++p)
            for (int i = 0; i < n; ++i) {
                const float want = (float)zt_value(ZT_SMOOTH, p, 3, i);
                ok &= 0 == memcmp(&r[p * n + i], &want, sizeof want);
            }
        zt_check(ok, "gatherv float", rank);
    }
    free(s);
    free(r);
    free(c);
    free(d);
}

static void run_all(MPI_Comm comm)
{
    for (int round = 0; round < 8; ++round)
        for (int kind = 0; kind < ZT_KINDS; ++kind)
            gather(comm, round, kind, round % 2);
    gather_floats(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("gatherv");
}
