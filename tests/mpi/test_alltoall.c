/*
 * MPI_Alltoall through coll/zip: blocks from empty and below the threshold (handed on whole)
 * to large, smooth and random doubles, a strided receive type, MPI_IN_PLACE (handed on), and
 * dup/split communicators. Bit-exact against local data.
 */
#include "zt_common.h"

static uint64_t salt_for(int to, int count)
{
    return (uint64_t)(to * 7 + count);
}

static void exchange(MPI_Comm comm, int count, int kind, int strided_recv)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int stride = strided_recv ? 2 : 1;
    const size_t n = (size_t)count * size;
    double *sbuf = malloc((n + 1) * sizeof(double));
    double *rbuf = malloc((n * stride + 1) * sizeof(double));
    for (int p = 0; p < size; ++p)
        zt_fill(sbuf + (size_t)p * count, count, kind, rank, salt_for(p, count));
    for (size_t i = 0; i < n * stride; ++i)
        rbuf[i] = -3.0;
    MPI_Datatype rtype = strided_recv ? zt_strided_double() : MPI_DOUBLE;
    zt_call(MPI_Alltoall(sbuf, count, MPI_DOUBLE, rbuf, count, rtype, comm), "MPI_Alltoall", rank);
    for (int p = 0; p < size; ++p) {
        const int ok = zt_block_matches(&rbuf[(size_t)p * count * stride], stride, count, kind, p,
                                        salt_for(rank, count));
        zt_checkf(ok, rank, "alltoall count %d %s strided=%d from %d", count, zt_kind_name[kind],
                  strided_recv, p);
    }
    if (strided_recv)
        MPI_Type_free(&rtype);
    free(sbuf);
    free(rbuf);
}

static void exchange_in_place(MPI_Comm comm, int count)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *buf = malloc(((size_t)count * size + 1) * sizeof(double));
    for (int p = 0; p < size; ++p)
        zt_fill(buf + (size_t)p * count, count, ZT_SMOOTH, rank, salt_for(p, count));
    zt_call(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, MPI_DOUBLE, comm),
            "MPI_Alltoall in place", rank);
    int ok = 1;
    for (int p = 0; p < size; ++p)
        ok &= zt_block_matches(&buf[(size_t)p * count], 1, count, ZT_SMOOTH, p,
                               salt_for(rank, count));
    zt_check(ok, "alltoall in place", rank);
    free(buf);
}

static void run_all(MPI_Comm comm)
{
    /* 2048 doubles are the 16 KiB threshold. */
    static const int counts[] = {0, 1, 100, 2048, 5000, 20000};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c)
        for (int kind = 0; kind < ZT_KINDS; ++kind)
            exchange(comm, counts[c], kind, 0);
    exchange(comm, 5000, ZT_SMOOTH, 1);
    exchange(comm, 2048, ZT_RANDOM, 1);
    exchange_in_place(comm, 3000);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("alltoall");
}
