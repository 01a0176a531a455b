/*
 * MPI_Alltoallv through coll/zip: uneven counts (zeros, tiny, around the threshold, large),
 * displacements with gaps and in reverse order, smooth and random doubles, a strided receive
 * type, MPI_IN_PLACE, and dup/split communicators. Bit-exact against local data.
 */
#include "zt_common.h"

/* Doubles that rank `from` sends to rank `to` in round `round`: deliberately uneven. */
static int count_for(int from, int to, int round)
{
    static const int menu[] = {0, 1, 17, 2047, 2048, 2049, 6000, 20000};
    return menu[(from * 3 + to * 5 + round) % 8];
}

static uint64_t salt_for(int to, int round)
{
    return (uint64_t)(to * 131 + round);
}

static void exchange(MPI_Comm comm, int round, int kind, int strided_recv)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    /* Send blocks laid out back to front with gaps; receive blocks front to back with gaps. */
    int stotal = 0, rtotal = 0;
    for (int p = size - 1; p >= 0; --p) {
        sc[p] = count_for(rank, p, round);
        sd[p] = stotal + 3;
        stotal += sc[p] + 3;
    }
    for (int p = 0; p < size; ++p) {
        rc[p] = count_for(p, rank, round);
        rd[p] = rtotal + 5;
        rtotal += rc[p] + 5;
    }
    const int stride = strided_recv ? 2 : 1;
    double *sbuf = malloc((stotal + 1) * sizeof(double));
    double *rbuf = malloc(((size_t)rtotal * stride + 1) * sizeof(double));
    for (int p = 0; p < size; ++p)
        zt_fill(sbuf + sd[p], sc[p], kind, rank, salt_for(p, round));
    for (int i = 0; i < rtotal * stride; ++i)
        rbuf[i] = -3.0;

    MPI_Datatype rtype = strided_recv ? zt_strided_double() : MPI_DOUBLE;
    zt_call(MPI_Alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, rtype, comm), "MPI_Alltoallv",
            rank);

    for (int p = 0; p < size; ++p) {
        int ok = zt_block_matches(&rbuf[(size_t)rd[p] * stride], stride, rc[p], kind, p,
                                  salt_for(rank, round));
        /* The gap before each block stays untouched. */
        ok &= rbuf[(size_t)(rd[p] - 1) * stride] == -3.0;
        zt_checkf(ok, rank, "alltoallv round %d %s strided=%d from %d count %d", round,
                  zt_kind_name[kind], strided_recv, p, rc[p]);
    }
    if (strided_recv)
        MPI_Type_free(&rtype);
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

static void exchange_in_place(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* In place needs symmetric counts: rank p and q exchange c(p,q) = c(q,p) doubles. */
    int *c = malloc(size * sizeof(int)), *d = malloc(size * sizeof(int));
    int total = 0;
    for (int p = 0; p < size; ++p) {
        c[p] = 1000 * ((rank + p) % 3);
        d[p] = total;
        total += c[p];
    }
    double *buf = malloc((total + 1) * sizeof(double));
    for (int p = 0; p < size; ++p)
        zt_fill(buf + d[p], c[p], ZT_SMOOTH, rank, p);
    zt_call(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, c, d, MPI_DOUBLE, comm),
            "MPI_Alltoallv in place", rank);
    int ok = 1;
    for (int p = 0; p < size; ++p)
        ok &= zt_block_matches(&buf[d[p]], 1, c[p], ZT_SMOOTH, p, rank);
    zt_check(ok, "alltoallv in place", rank);
    free(buf);
    free(c);
    free(d);
}

static void run_all(MPI_Comm comm)
{
    for (int round = 0; round < 8; ++round)
        for (int kind = 0; kind < ZT_KINDS; ++kind)
            exchange(comm, round, kind, 0);
    exchange(comm, 1, ZT_SMOOTH, 1);
    exchange(comm, 2, ZT_RANDOM, 1);
    exchange_in_place(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("alltoallv");
}
