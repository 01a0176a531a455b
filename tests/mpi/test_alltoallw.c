/*
 * MPI_Alltoallw and MPI_Ialltoallw through coll/zip: a datatype and a byte displacement per
 * block. Uneven and zero blocks laid out back to front with gaps that must stay untouched; a
 * strided receive type for some peers; blocks of doubles to some peers and of ints to others
 * (the sender's blocks then differ in element type); the transpose of a row-distributed 2-D
 * array into columns with subarray types, as FFT codes write it; two non-blocking calls in
 * flight while the ranks poll; MPI_IN_PLACE (handed on). Bit-exact against data each rank
 * computes, on MPI_COMM_WORLD, a duplicate and a split (but a split of one rank).
 */
#include "zt_common.h"

#define GAP 3 /* doubles before each block, checked untouched */

/* Doubles in the block from rank `from` to rank `to`: zero for some pairs, some below and some
 * above the 16 KiB threshold. */
static int count_of(int from, int to, int salt)
{
    const int k = (from * 5 + to * 3 + salt) % 6;
    return 0 == k ? 0 : 1 == k ? 37 : 1000 * k + 50 * from + to;
}

static uint64_t salt_of(int from, int to, int salt)
{
    return (uint64_t)(from * 131 + to * 7 + salt);
}

/* The blocks to odd ranks travel as twice as many ints (the same bytes): the sender's blocks
 * then mix doubles and ints, and zip codes them as bytes. */
static MPI_Datatype send_type(int to, int *scale)
{
    *scale = to % 2 ? 2 : 1;
    return to % 2 ? MPI_INT : MPI_DOUBLE;
}

/* With strided, blocks of doubles from odd ranks land one double in two. */
static int stride_of(int strided, int from, int to)
{
    return strided && from % 2 && !(to % 2) ? 2 : 1;
}

/* One alltoallw of `kind` data, blocking or not. */
static void exchange(MPI_Comm comm, int kind, int salt, int strided, int nonblocking)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sc = malloc(4 * (size_t)size * sizeof(int)), *sd = sc + size, *rc = sd + size,
        *rd = rc + size;
    MPI_Datatype *st = malloc(2 * (size_t)size * sizeof(MPI_Datatype)), *rt = st + size;
    MPI_Datatype strided_double = zt_strided_double();
    size_t stotal = 0, rtotal = 0;
    for (int p = size - 1; p >= 0; --p) { /* back to front */
        int scale = 1;
        st[p] = send_type(p, &scale);
        const int n = count_of(rank, p, salt);
        sc[p] = n * scale;
        sd[p] = (int)((stotal + GAP) * sizeof(double));
        stotal += (size_t)n + GAP;
        const int m = count_of(p, rank, salt);
        const int stride = stride_of(strided, p, rank);
        rt[p] = stride > 1 ? strided_double : send_type(rank, &scale);
        rc[p] = stride > 1 ? m : m * scale;
        rd[p] = (int)((rtotal + GAP) * sizeof(double));
        rtotal += (size_t)m * stride + GAP;
    }
    double *sbuf = malloc((stotal + 1) * sizeof(double));
    double *rbuf = malloc((rtotal + 1) * sizeof(double));
    for (size_t i = 0; i < stotal; ++i)
        sbuf[i] = -1.0;
    for (size_t i = 0; i < rtotal; ++i)
        rbuf[i] = -7.0;
    for (int p = 0; p < size; ++p)
        zt_fill(sbuf + sd[p] / (int)sizeof(double), (size_t)count_of(rank, p, salt), kind, rank,
                salt_of(rank, p, salt));
    if (nonblocking) {
        MPI_Request req;
        zt_call(MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm, &req), "MPI_Ialltoallw",
                rank);
        int done = 0;
        while (!done)
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    } else {
        zt_call(MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm), "MPI_Alltoallw", rank);
    }
    for (int p = 0; p < size; ++p) {
        const int stride = stride_of(strided, p, rank);
        const double *block = rbuf + rd[p] / (int)sizeof(double);
        int ok = zt_block_matches(block, stride, (size_t)count_of(p, rank, salt), kind, p,
                                  salt_of(p, rank, salt));
        for (int g = 1; g <= GAP; ++g)
            ok &= -7.0 == block[-g];
        for (int i = 0; stride > 1 && i < count_of(p, rank, salt); ++i)
            ok &= -7.0 == block[2 * i + 1];
        zt_checkf(ok, rank, "%s %s salt %d strided %d from %d",
                  nonblocking ? "ialltoallw" : "alltoallw", zt_kind_name[kind], salt, strided, p);
    }
    MPI_Type_free(&strided_double);
    free(sbuf);
    free(rbuf);
    free(st);
    free(sc);
}

/* Two non-blocking calls in flight, completed in reverse order. */
static void two_in_flight(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 4096;
    int *counts = malloc(2 * (size_t)size * sizeof(int)), *disps = counts + size;
    MPI_Datatype *types = malloc((size_t)size * sizeof(MPI_Datatype));
    for (int p = 0; p < size; ++p) {
        counts[p] = n;
        disps[p] = (int)((size_t)p * n * sizeof(double));
        types[p] = MPI_DOUBLE;
    }
    double *s[2], *r[2];
    MPI_Request req[2];
    for (int c = 0; c < 2; ++c) {
        s[c] = malloc((size_t)n * size * sizeof(double));
        r[c] = malloc((size_t)n * size * sizeof(double));
        for (int p = 0; p < size; ++p)
            zt_fill(s[c] + (size_t)p * n, n, c, rank, salt_of(rank, p, 40 + c));
        zt_call(
            MPI_Ialltoallw(s[c], counts, disps, types, r[c], counts, disps, types, comm, &req[c]),
            "MPI_Ialltoallw", rank);
    }
    for (int c = 1; c >= 0; --c)
        MPI_Wait(&req[c], MPI_STATUS_IGNORE);
    for (int c = 0; c < 2; ++c) {
        for (int p = 0; p < size; ++p)
            zt_checkf(zt_block_matches(r[c] + (size_t)p * n, 1, n, c, p, salt_of(p, rank, 40 + c)),
                      rank, "ialltoallw in flight %d from %d", c, p);
        free(s[c]);
        free(r[c]);
    }
    free(types);
    free(counts);
}

/* A global ROWS x COLS array of doubles, element (i, j) = value(i, j), distributed by rows
 * (rank p holds rows [p*rows, (p+1)*rows)) is transposed into a distribution by columns: rank q
 * sends each rank p the rows-by-cols(p) subarray of its slab and receives its own columns of
 * every slab. */
static double value(int kind, int i, int j)
{
    return zt_value(kind, i, 77, (size_t)j);
}

static void transpose(MPI_Comm comm, int kind, int nonblocking)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int rows = 48, cols = 96; /* per rank: a slab of rows x (cols * size) */
    const int nr = rows * size, nc = cols * size;
    double *slab = malloc((size_t)rows * nc * sizeof(double));
    double *pencil = malloc((size_t)nr * cols * sizeof(double));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < nc; ++j)
            slab[(size_t)i * nc + j] = value(kind, rank * rows + i, j);
    for (size_t i = 0; i < (size_t)nr * cols; ++i)
        pencil[i] = -5.0;
    int *counts = malloc(4 * (size_t)size * sizeof(int)), *sd = counts + size, *rcounts = sd + size,
        *rd = rcounts + size;
    MPI_Datatype *st = malloc(2 * (size_t)size * sizeof(MPI_Datatype)), *rt = st + size;
    for (int p = 0; p < size; ++p) {
        const int ssizes[2] = {rows, nc}, ssub[2] = {rows, cols}, sstart[2] = {0, p * cols};
        MPI_Type_create_subarray(2, ssizes, ssub, sstart, MPI_ORDER_C, MPI_DOUBLE, &st[p]);
        MPI_Type_commit(&st[p]);
        const int rsizes[2] = {nr, cols}, rsub[2] = {rows, cols}, rstart[2] = {p * rows, 0};
        MPI_Type_create_subarray(2, rsizes, rsub, rstart, MPI_ORDER_C, MPI_DOUBLE, &rt[p]);
        MPI_Type_commit(&rt[p]);
        counts[p] = rcounts[p] = 1;
        sd[p] = rd[p] = 0;
    }
    if (nonblocking) {
        MPI_Request req;
        zt_call(MPI_Ialltoallw(slab, counts, sd, st, pencil, rcounts, rd, rt, comm, &req),
                "MPI_Ialltoallw transpose", rank);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        zt_call(MPI_Alltoallw(slab, counts, sd, st, pencil, rcounts, rd, rt, comm),
                "MPI_Alltoallw transpose", rank);
    }
    int ok = 1;
    for (int i = 0; i < nr; ++i)
        for (int j = 0; j < cols; ++j) {
            const double want = value(kind, i, rank * cols + j);
            ok &= 0 == memcmp(&pencil[(size_t)i * cols + j], &want, sizeof want);
        }
    zt_checkf(ok, rank, "%s transpose %s", nonblocking ? "ialltoallw" : "alltoallw",
              zt_kind_name[kind]);
    for (int p = 0; p < size; ++p) {
        MPI_Type_free(&st[p]);
        MPI_Type_free(&rt[p]);
    }
    free(st);
    free(counts);
    free(slab);
    free(pencil);
}

/* MPI_IN_PLACE: the previous component's. */
static void in_place(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 3000;
    int *counts = malloc(2 * (size_t)size * sizeof(int)), *disps = counts + size;
    MPI_Datatype *types = malloc((size_t)size * sizeof(MPI_Datatype));
    double *buf = malloc((size_t)n * size * sizeof(double));
    for (int p = 0; p < size; ++p) {
        counts[p] = n;
        disps[p] = (int)((size_t)p * n * sizeof(double));
        types[p] = MPI_DOUBLE;
        zt_fill(buf + (size_t)p * n, n, ZT_SMOOTH, rank, salt_of(rank, p, 9));
    }
    zt_call(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, disps, types, comm),
            "MPI_Alltoallw in place", rank);
    int ok = 1;
    for (int p = 0; p < size; ++p)
        ok &= zt_block_matches(buf + (size_t)p * n, 1, n, ZT_SMOOTH, p, salt_of(p, rank, 9));
    zt_check(ok, "alltoallw in place", rank);
    free(buf);
    free(types);
    free(counts);
}

static void run_all(MPI_Comm comm)
{
    /* Open MPI 4.1.4's coll/self, which takes every communicator of one rank, scales alltoallw's
     * byte displacements by the datatype's extent: not zip's to test. */
    int size;
    MPI_Comm_size(comm, &size);
    if (1 == size)
        return;
    for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
        for (int kind = 0; kind < ZT_KINDS; ++kind) {
            exchange(comm, kind, 1, 0, nonblocking);
            exchange(comm, kind, 2, 1, nonblocking);
            transpose(comm, kind, nonblocking);
        }
    }
    two_in_flight(comm);
    in_place(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("alltoallw");
}
