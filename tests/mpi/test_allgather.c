/*
 * MPI_Allgather and MPI_Allgatherv through coll/zip: allgather's blocks from empty and below the
 * threshold (handed on whole) to large; allgatherv's uneven counts (zeros, tiny, around the
 * threshold, large; rounds where every block is below the threshold are handed on whole),
 * displacements in reverse order with gaps, smooth and random doubles, a strided receive type,
 * MPI_IN_PLACE, dup/split communicators. Bit-exact against local data.
 */
#include "zt_common.h"

/* Doubles rank `owner` contributes in round `round`: deliberately uneven (2048: the threshold). */
static int allgatherv_count(int owner, int round)
{
    static const int menu[] = {0, 1, 17, 2047, 2048, 6000, 20000};
    if (round == 7)
        return 100 + owner; /* every block small */
    return menu[(owner * 3 + round) % 7];
}

static void allgatherv(MPI_Comm comm, int round, int kind, int in_place, int strided)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    const int total = zt_reversed_layout(size, allgatherv_count, round, 4, rc, rd);
    const int mine = rc[rank], stride = strided ? 2 : 1;
    double *sbuf = malloc(((size_t)mine + 1) * sizeof(double));
    double *rbuf = malloc(((size_t)total * stride + 1) * sizeof(double));
    zt_fill(sbuf, mine, kind, rank, (uint64_t)round);
    for (int i = 0; i < total * stride; ++i)
        rbuf[i] = -2.0;
    MPI_Datatype rtype = strided ? zt_strided_double() : MPI_DOUBLE;
    const void *send = sbuf;
    if (in_place) {
        for (int i = 0; i < mine; ++i)
            rbuf[((size_t)rd[rank] + i) * stride] = sbuf[i];
        send = MPI_IN_PLACE;
    }
    zt_call(MPI_Allgatherv(send, mine, MPI_DOUBLE, rbuf, rc, rd, rtype, comm), "MPI_Allgatherv",
            rank);
    for (int p = 0; p < size; ++p) {
        int ok = zt_block_matches(&rbuf[(size_t)rd[p] * stride], stride, rc[p], kind, p,
                                  (uint64_t)round);
        ok &= rbuf[((size_t)rd[p] - 1) * stride] == -2.0; /* the gap stays untouched */
        zt_checkf(ok, rank, "allgatherv round %d %s in_place=%d strided=%d from %d count %d", round,
                  zt_kind_name[kind], in_place, strided, p, rc[p]);
    }
    if (strided)
        MPI_Type_free(&rtype);
    free(sbuf);
    free(rbuf);
    free(rc);
    free(rd);
}

static void allgather(MPI_Comm comm, int count, int kind, int in_place, int strided)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    zt_gathered_t g;
    zt_gathered_init(&g, count, kind, rank, size, in_place, strided);
    zt_call(MPI_Allgather(g.send, count, MPI_DOUBLE, g.rbuf, count, g.rtype, comm), "MPI_Allgather",
            rank);
    for (int p = 0; p < size; ++p)
        zt_checkf(zt_gathered_ok(&g, p, kind), rank,
                  "allgather count %d %s in_place=%d strided=%d from %d", count, zt_kind_name[kind],
                  in_place, strided, p);
    zt_gathered_free(&g);
}

static void run_all(MPI_Comm comm)
{
    /* 2048 doubles are the 16 KiB threshold. */
    static const int counts[] = {0, 1, 100, 2048, 5000, 20000};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c)
        for (int kind = 0; kind < ZT_KINDS; ++kind)
            allgather(comm, counts[c], kind, 0, 0);
    allgather(comm, 5000, ZT_SMOOTH, 1, 0);
    allgather(comm, 3000, ZT_RANDOM, 0, 1);
    allgather(comm, 4000, ZT_SMOOTH, 1, 1);
    for (int round = 0; round < 8; ++round)
        for (int kind = 0; kind < ZT_KINDS; ++kind)
            allgatherv(comm, round, kind, 0, 0);
    allgatherv(comm, 1, ZT_SMOOTH, 1, 0);
    allgatherv(comm, 2, ZT_SMOOTH, 0, 1);
    allgatherv(comm, 4, ZT_RANDOM, 1, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("allgather");
}
