/*
 * What zip hands on, and what it takes on communicators it did not see created by a dup or
 * split: neighbourhood collectives on Cartesian, graph and distributed-graph communicators
 * (alltoall(v/w) and allgather(v), blocking and non-blocking, which zip compresses, also where a
 * rank is both neighbours of another or its own), Open MPI's persistent collectives
 * (MPIX_*_init + MPI_Start, several starts with new data each time), and zip's own compressed calls
 * on those communicators, also while a persistent or non-blocking collective is in flight on the
 * same communicator. Every result is checked bit for bit against data each rank computes itself,
 * the same with zip on or off.
 */
#include "zt_common.h"

#include <mpi-ext.h>
#include <stdbool.h>

#define NB_BLOCK 20000 /* doubles per neighbour block: above zip's threshold */

/* What `sender` puts in its block `block` in round `round` (the salt names all three). */
static uint64_t block_salt(int round, int block)
{
    return (uint64_t)round * 64 + block;
}

/* Uneven block sizes of Neighbor_alltoallv: some zero, some below zip's threshold. */
static int nbv_count(int sender, int block, int round)
{
    return (3 == (sender + block + round) % 5) ? 0 : 900 + 4100 * ((sender * 7 + block * 3) % 6);
}

/* Sends `out` blocks from `sbuf` (block k: this rank's data for round/k), receives `in` blocks,
 * and checks block k of rbuf against what sources[k] sent as its block src_block[k]. A source of
 * MPI_PROC_NULL leaves its block as it was (-9.0). */
static void check_neighbour_blocks(const double *rbuf, const int *counts, const int *displs, int in,
                                   const int *sources, const int *src_block, int kind, int round,
                                   int rank, const char *what)
{
    for (int k = 0; k < in; ++k) {
        int ok;
        if (MPI_PROC_NULL == sources[k]) {
            ok = rbuf[displs[k]] == -9.0;
        } else {
            ok = zt_block_matches(&rbuf[displs[k]], 1, counts[k], kind, sources[k],
                                  block_salt(round, src_block[k]));
        }
        zt_checkf(ok, rank, "%s round %d %s block %d from %d", what, round, zt_kind_name[kind], k,
                  sources[k]);
    }
}

typedef struct {
    MPI_Comm comm;
    int rank, in, out;
    int *sources, *dests;
    /* src_block[k]: the sender's block index that is mine in a blocking call; nb_src_block[k]
     * in a non-blocking one. They differ only where a rank is more than one neighbour of another
     * (see on_cart). */
    int *src_block, *nb_src_block;
} topo_t;

/* Resets n doubles to -9.0, the mark of a place no block was meant to fill. */
static void unfilled(double *buf, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        buf[i] = -9.0;
}

/* Neighbor_alltoall and Neighbor_allgather, then their non-blocking forms, both in flight at
 * once. */
static void neighbour_collectives(const topo_t *t, int kind, int round)
{
    const int n = NB_BLOCK, in = t->in, out = t->out;
    const int slots = (in > out ? in : out) + 1;
    double *sbuf = malloc((size_t)slots * n * sizeof(double));
    double *rbuf = malloc((size_t)slots * n * sizeof(double));
    double *gbuf = malloc((size_t)slots * n * sizeof(double));
    int *rc = malloc(slots * sizeof(int)), *rd = malloc(slots * sizeof(int));
    int *same = malloc(slots * sizeof(int));

    for (int k = 0; k < out; ++k)
        zt_fill(sbuf + (size_t)k * n, n, kind, t->rank, block_salt(round, k));
    for (int k = 0; k < slots; ++k) {
        rc[k] = n;
        rd[k] = k * n;
        same[k] = 0;
    }
    unfilled(rbuf, (size_t)slots * n);
    unfilled(gbuf, (size_t)slots * n);
    zt_call(MPI_Neighbor_alltoall(sbuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE, t->comm),
            "MPI_Neighbor_alltoall", t->rank);
    /* allgather: every destination gets block 0 */
    zt_call(MPI_Neighbor_allgather(sbuf, n, MPI_DOUBLE, gbuf, n, MPI_DOUBLE, t->comm),
            "MPI_Neighbor_allgather", t->rank);
    check_neighbour_blocks(rbuf, rc, rd, in, t->sources, t->src_block, kind, round, t->rank,
                           "neighbor_alltoall");
    check_neighbour_blocks(gbuf, rc, rd, in, t->sources, same, kind, round, t->rank,
                           "neighbor_allgather");

    unfilled(rbuf, (size_t)slots * n);
    unfilled(gbuf, (size_t)slots * n);
    MPI_Request req[2];
    zt_call(MPI_Ineighbor_alltoall(sbuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE, t->comm, &req[0]),
            "MPI_Ineighbor_alltoall", t->rank);
    zt_call(MPI_Ineighbor_allgather(sbuf, n, MPI_DOUBLE, gbuf, n, MPI_DOUBLE, t->comm, &req[1]),
            "MPI_Ineighbor_allgather", t->rank);
    zt_call(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), "MPI_Waitall", t->rank);
    check_neighbour_blocks(rbuf, rc, rd, in, t->sources, t->nb_src_block, kind, round, t->rank,
                           "ineighbor_alltoall");
    check_neighbour_blocks(gbuf, rc, rd, in, t->sources, same, kind, round, t->rank,
                           "ineighbor_allgather");
    free(sbuf);
    free(rbuf);
    free(gbuf);
    free(rc);
    free(rd);
    free(same);
}

/* Blocks k of a v-call's receive side, placed in reverse order with a gap of one double before
 * each (which stays -9.0): counts rc[k] from count(source, k), displacements into rd; returns
 * the doubles the layout spans. */
static int reversed_layout(const topo_t *t, int *rc, int *rd,
                           int (*count)(const topo_t *, int, int), int round)
{
    int rofs = 0;
    for (int k = t->in - 1; k >= 0; --k) {
        rc[k] = MPI_PROC_NULL == t->sources[k] ? 0 : count(t, k, round);
        rd[k] = rofs + 1;
        rofs += rc[k] + 1;
    }
    return rofs + 1;
}

static int alltoallv_count(const topo_t *t, int k, int round)
{
    return nbv_count(t->sources[k], t->src_block[k], round);
}

static int nb_alltoallv_count(const topo_t *t, int k, int round)
{
    return nbv_count(t->sources[k], t->nb_src_block[k], round);
}

/* Neighbor_allgatherv's block of rank r: block 7 of the menu. */
static int allgatherv_count(const topo_t *t, int k, int round)
{
    return nbv_count(t->sources[k], 7, round);
}

/* Whether block k of a v-call's receive side holds what its source sent as its block `blk`
 * (data salted with salt_block), the gap before it untouched. */
static void check_v_blocks(const topo_t *t, const double *rbuf, const int *rc, const int *rd,
                           const int *blk, int salt_block, int kind, int round, const char *what)
{
    for (int k = 0; k < t->in; ++k) {
        int ok = rbuf[rd[k] - 1] == -9.0;
        if (MPI_PROC_NULL != t->sources[k] && rc[k] > 0)
            ok &= zt_block_matches(&rbuf[rd[k]], 1, rc[k], kind, t->sources[k],
                                   block_salt(round, salt_block >= 0 ? salt_block : blk[k]));
        zt_checkf(ok, t->rank, "%s round %d %s block %d from %d", what, round, zt_kind_name[kind],
                  k, t->sources[k]);
    }
}

/* Neighbor_alltoallv (uneven and zero blocks) and Neighbor_allgatherv (each rank's block of its
 * own size, some zero), blocking, then non-blocking both in flight at once. */
static void neighbour_v_collectives(const topo_t *t, int kind, int round)
{
    const int in = t->in, out = t->out, slots = (in > out ? in : out) + 1;
    int *sc = malloc(slots * sizeof(int)), *sd = malloc(slots * sizeof(int));
    int *rc = malloc(slots * sizeof(int)), *rd = malloc(slots * sizeof(int));
    int *gc = malloc(slots * sizeof(int)), *gd = malloc(slots * sizeof(int));
    int sofs = 0;
    for (int k = 0; k < out; ++k) {
        sc[k] = nbv_count(t->rank, k, round);
        sd[k] = sofs;
        sofs += sc[k];
    }
    const int mine = nbv_count(t->rank, 7, round);
    double *sbuf = malloc(((size_t)sofs + 1) * sizeof(double));
    double *own = malloc(((size_t)mine + 1) * sizeof(double));
    for (int k = 0; k < out; ++k)
        zt_fill(sbuf + sd[k], sc[k], kind, t->rank, block_salt(round, k));
    zt_fill(own, mine, kind, t->rank, block_salt(round, 7));

    for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
        const int *blk = nonblocking ? t->nb_src_block : t->src_block;
        const int rlen =
            reversed_layout(t, rc, rd, nonblocking ? nb_alltoallv_count : alltoallv_count, round);
        const int glen = reversed_layout(t, gc, gd, allgatherv_count, round);
        double *rbuf = malloc((size_t)rlen * sizeof(double));
        double *gbuf = malloc((size_t)glen * sizeof(double));
        unfilled(rbuf, (size_t)rlen);
        unfilled(gbuf, (size_t)glen);
        if (nonblocking) {
            MPI_Request req[2];
            zt_call(MPI_Ineighbor_alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE,
                                            t->comm, &req[0]),
                    "MPI_Ineighbor_alltoallv", t->rank);
            zt_call(MPI_Ineighbor_allgatherv(own, mine, MPI_DOUBLE, gbuf, gc, gd, MPI_DOUBLE,
                                             t->comm, &req[1]),
                    "MPI_Ineighbor_allgatherv", t->rank);
            zt_call(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), "MPI_Waitall", t->rank);
        } else {
            zt_call(
                MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE, t->comm),
                "MPI_Neighbor_alltoallv", t->rank);
            zt_call(
                MPI_Neighbor_allgatherv(own, mine, MPI_DOUBLE, gbuf, gc, gd, MPI_DOUBLE, t->comm),
                "MPI_Neighbor_allgatherv", t->rank);
        }
        check_v_blocks(t, rbuf, rc, rd, blk, -1, kind, round,
                       nonblocking ? "ineighbor_alltoallv" : "neighbor_alltoallv");
        check_v_blocks(t, gbuf, gc, gd, blk, 7, kind, round,
                       nonblocking ? "ineighbor_allgatherv" : "neighbor_allgatherv");
        free(rbuf);
        free(gbuf);
    }
    free(sbuf);
    free(own);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(gc);
    free(gd);
}

/* Neighbor_alltoallw, a datatype per block as a 3-D code's faces have: odd blocks sent from
 * every other double (zt_strided_double), even ones contiguous; received the other way round,
 * each block at its own byte displacement with a gap of two doubles before it that stays -9.0.
 * Uneven and zero blocks (nbv_count). Blocking, then non-blocking. */
static void neighbour_w_collectives(const topo_t *t, int kind, int round)
{
    const int in = t->in, out = t->out, slots = (in > out ? in : out) + 1;
    MPI_Datatype strided = zt_strided_double();
    int *sc = malloc(slots * sizeof(int)), *rc = malloc(slots * sizeof(int));
    MPI_Aint *sd = malloc(slots * sizeof(MPI_Aint)), *rd = malloc(slots * sizeof(MPI_Aint));
    MPI_Datatype *st = malloc(slots * sizeof(MPI_Datatype));
    MPI_Datatype *rt = malloc(slots * sizeof(MPI_Datatype));
    size_t sdoubles = 0;
    for (int k = 0; k < out; ++k) {
        sc[k] = nbv_count(t->rank, k, round + 3);
        st[k] = k % 2 ? strided : MPI_DOUBLE;
        sd[k] = (MPI_Aint)(sdoubles * sizeof(double));
        sdoubles += (size_t)sc[k] * (k % 2 ? 2 : 1);
    }
    double *sbuf = malloc((sdoubles + 1) * sizeof(double));
    unfilled(sbuf, sdoubles + 1);
    for (int k = 0; k < out; ++k) {
        double *block = sbuf + sd[k] / (MPI_Aint)sizeof(double);
        const size_t stride = k % 2 ? 2 : 1;
        for (int i = 0; i < sc[k]; ++i)
            block[(size_t)i * stride] = zt_value(kind, t->rank, block_salt(round + 3, k), i);
    }
    for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
        const int *blk = nonblocking ? t->nb_src_block : t->src_block;
        size_t rdoubles = 0;
        for (int k = 0; k < in; ++k) {
            rc[k] =
                MPI_PROC_NULL == t->sources[k] ? 0 : nbv_count(t->sources[k], blk[k], round + 3);
            rt[k] = k % 2 ? MPI_DOUBLE : strided;
            rdoubles += 2; /* the gap */
            rd[k] = (MPI_Aint)(rdoubles * sizeof(double));
            rdoubles += (size_t)rc[k] * (k % 2 ? 1 : 2);
        }
        double *rbuf = malloc((rdoubles + 1) * sizeof(double));
        unfilled(rbuf, rdoubles + 1);
        if (nonblocking) {
            MPI_Request req;
            zt_call(MPI_Ineighbor_alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, t->comm, &req),
                    "MPI_Ineighbor_alltoallw", t->rank);
            zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", t->rank);
        } else {
            zt_call(MPI_Neighbor_alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, t->comm),
                    "MPI_Neighbor_alltoallw", t->rank);
        }
        for (int k = 0; k < in; ++k) {
            const double *block = rbuf + rd[k] / (MPI_Aint)sizeof(double);
            const size_t stride = k % 2 ? 1 : 2;
            int ok = block[-1] == -9.0 && block[-2] == -9.0;
            for (int i = 0; stride == 2 && i < rc[k]; ++i)
                ok &= block[2 * (size_t)i + 1] == -9.0;
            if (rc[k] > 0)
                ok &= zt_block_matches(block, stride, (size_t)rc[k], kind, t->sources[k],
                                       block_salt(round + 3, blk[k]));
            zt_checkf(ok, t->rank, "%s round %d %s block %d from %d",
                      nonblocking ? "ineighbor_alltoallw" : "neighbor_alltoallw", round,
                      zt_kind_name[kind], k, t->sources[k]);
        }
        free(rbuf);
    }
    MPI_Type_free(&strided);
    free(sbuf);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(st);
    free(rt);
}

/* Neighbor_alltoall into a derived receive type (a double and a hole, zt_strided_double), so
 * that zip unpacks each decoded block into the user's layout, the holes untouched; then from
 * that type as the send type. */
static void neighbour_strided(const topo_t *t, int kind, int round)
{
    const int n = NB_BLOCK, in = t->in, out = t->out;
    double *sbuf = malloc(((size_t)out + 1) * n * sizeof(double));
    double *rbuf = malloc(2 * ((size_t)in + 1) * n * sizeof(double));
    for (int k = 0; k < out; ++k)
        zt_fill(sbuf + (size_t)k * n, n, kind, t->rank, block_salt(round + 50, k));
    for (size_t i = 0; i < 2 * ((size_t)in + 1) * n; ++i)
        rbuf[i] = -9.0;
    MPI_Datatype strided = zt_strided_double();
    zt_call(MPI_Neighbor_alltoall(sbuf, n, MPI_DOUBLE, rbuf, n, strided, t->comm),
            "MPI_Neighbor_alltoall (strided)", t->rank);
    for (int k = 0; k < in; ++k) {
        const double *block = rbuf + 2 * (size_t)k * n;
        int ok = 1;
        for (int i = 0; i < n; ++i)
            ok &= block[2 * i + 1] == -9.0;
        if (MPI_PROC_NULL == t->sources[k])
            ok &= block[0] == -9.0;
        else
            ok &= zt_block_matches(block, 2, n, kind, t->sources[k],
                                   block_salt(round + 50, t->src_block[k]));
        zt_checkf(ok, t->rank, "neighbor_alltoall strided round %d %s block %d from %d", round,
                  zt_kind_name[kind], k, t->sources[k]);
    }
    /* And from a derived send type into plain doubles: zip packs each block before coding. */
    double *spread = malloc(2 * ((size_t)out + 1) * n * sizeof(double));
    for (int k = 0; k < out; ++k)
        for (int i = 0; i < n; ++i) {
            spread[2 * ((size_t)k * n + i)] = sbuf[(size_t)k * n + i];
            spread[2 * ((size_t)k * n + i) + 1] = -7.0;
        }
    for (size_t i = 0; i < ((size_t)in + 1) * n; ++i)
        rbuf[i] = -9.0;
    zt_call(MPI_Neighbor_alltoall(spread, n, strided, rbuf, n, MPI_DOUBLE, t->comm),
            "MPI_Neighbor_alltoall (strided send)", t->rank);
    for (int k = 0; k < in; ++k) {
        const double *block = rbuf + (size_t)k * n;
        const int ok = MPI_PROC_NULL == t->sources[k]
                           ? block[0] == -9.0
                           : zt_block_matches(block, 1, n, kind, t->sources[k],
                                              block_salt(round + 50, t->src_block[k]));
        zt_checkf(ok, t->rank, "neighbor_alltoall strided send round %d %s block %d from %d", round,
                  zt_kind_name[kind], k, t->sources[k]);
    }
    free(spread);
    MPI_Type_free(&strided);
    free(sbuf);
    free(rbuf);
}

/* zip's own collectives on the topology communicator: a bcast from every root, a gatherv to
 * the last rank and an alltoallv (compressed by zip where it is on). */
static void zip_collectives(MPI_Comm comm, int kind, int round)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 30000;
    double *buf = malloc((size_t)n * size * sizeof(double));
    double *rbuf = malloc((size_t)n * size * sizeof(double));
    for (int root = 0; root < size; ++root) {
        if (rank == root)
            zt_fill(buf, n, kind, root, round);
        else
            for (int i = 0; i < n; ++i)
                buf[i] = -9.0;
        zt_call(MPI_Bcast(buf, n, MPI_DOUBLE, root, comm), "MPI_Bcast", rank);
        zt_checkf(zt_block_matches(buf, 1, n, kind, root, round), rank, "bcast round %d %s root %d",
                  round, zt_kind_name[kind], root);
    }
    int *c = malloc(size * sizeof(int)), *d = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        c[p] = n / 2 + 97 * p;
        d[p] = p * n;
    }
    zt_fill(buf, c[rank], kind, rank, round);
    for (size_t i = 0; i < (size_t)n * size; ++i)
        rbuf[i] = -9.0;
    zt_call(MPI_Gatherv(buf, c[rank], MPI_DOUBLE, rbuf, c, d, MPI_DOUBLE, size - 1, comm),
            "MPI_Gatherv", rank);
    if (rank == size - 1)
        for (int p = 0; p < size; ++p)
            zt_checkf(zt_block_matches(rbuf + d[p], 1, c[p], kind, p, round) &&
                          rbuf[d[p] + c[p]] == -9.0,
                      rank, "gatherv round %d %s from %d", round, zt_kind_name[kind], p);

    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        sc[p] = n / size;
        sd[p] = p * (n / size);
        zt_fill(buf + sd[p], sc[p], kind, rank, block_salt(round, p));
    }
    for (size_t i = 0; i < (size_t)n * size; ++i)
        rbuf[i] = -9.0;
    zt_call(MPI_Alltoallv(buf, sc, sd, MPI_DOUBLE, rbuf, sc, sd, MPI_DOUBLE, comm), "MPI_Alltoallv",
            rank);
    for (int p = 0; p < size; ++p)
        zt_checkf(zt_block_matches(rbuf + sd[p], 1, sc[p], kind, p, block_salt(round, rank)), rank,
                  "alltoallv round %d %s from %d", round, zt_kind_name[kind], p);
    free(buf);
    free(rbuf);
    free(c);
    free(d);
    free(sc);
    free(sd);
}

/* Both kinds of calls on the topology communicator t->comm, which it then frees. */
static void exercise(topo_t *t, int kind, int round)
{
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(t->comm, &t->rank);
    neighbour_collectives(t, kind, round);
    neighbour_v_collectives(t, kind, round);
    neighbour_w_collectives(t, kind, round);
    neighbour_strided(t, kind, round);
    zip_collectives(t->comm, kind, round);
    MPI_Comm_free(&t->comm);
}

/* A Cartesian communicator of ndims dimensions (ranks reordered as Open MPI likes; ranks left
 * out get none). Neighbour k = 2 d + 0 is the source of a shift by +1 in dimension d, 2 d + 1
 * its destination; what I receive from my -1 neighbour is its block for its +1 neighbour. Where
 * both neighbours in a dimension are one rank (a periodic dimension of two ranks) or this rank
 * itself (a periodic dimension of one), Open MPI's two components differ, and zip must give
 * what each gives: the blocking calls (coll/basic: a tag per direction) still pair the blocks by
 * direction; the non-blocking ones (libnbc: one tag) pair them in the order they were posted,
 * so my block 2 d comes from the other's block 2 d. */
static void on_cart(int ndims, const int *dims, const int *periods, int kind, int round)
{
    MPI_Comm comm;
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &comm);
    if (MPI_COMM_NULL == comm)
        return;
    int sources[6], dests[6], src_block[6], nb_src_block[6];
    topo_t t = {.comm = comm, .in = 2 * ndims, .out = 2 * ndims};
    for (int d = 0; d < ndims; ++d) {
        MPI_Cart_shift(comm, d, 1, &sources[2 * d], &sources[2 * d + 1]);
        dests[2 * d] = sources[2 * d];
        dests[2 * d + 1] = sources[2 * d + 1];
        src_block[2 * d] = 2 * d + 1;
        src_block[2 * d + 1] = 2 * d;
        const bool coinciding = periods[d] && dims[d] <= 2;
        nb_src_block[2 * d] = coinciding ? 2 * d : 2 * d + 1;
        nb_src_block[2 * d + 1] = coinciding ? 2 * d + 1 : 2 * d;
    }
    t.sources = sources;
    t.dests = dests;
    t.src_block = src_block;
    t.nb_src_block = nb_src_block;
    exercise(&t, kind, round);
}

/* A 2-D grid of all ranks, periodic in every dimension of 3 or more ranks; a ring of the first
 * two ranks, each both neighbours of the other; a 3-D grid of all ranks in one dimension whose
 * two others are periodic and one rank long, so every rank is four of its own neighbours. */
static void on_cartesian(int kind, int round)
{
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int dims[3] = {0, 0}, periods[3];
    MPI_Dims_create(wsize, 2, dims);
    for (int d = 0; d < 2; ++d)
        periods[d] = dims[d] >= 3;
    on_cart(2, dims, periods, kind, round);

    const int pair[1] = {2}, periodic[1] = {1};
    if (wsize >= 2)
        on_cart(1, pair, periodic, kind, round);

    const int line[3] = {wsize, 1, 1}, self_periodic[3] = {wsize >= 3, 1, 1};
    on_cart(3, line, self_periodic, kind, round);
}

/* A graph (MPI_Graph_create) of a ring of all ranks, from 3 ranks on: each rank's neighbours
 * are r - 1 and r + 1 in that order, for sending and receiving alike; r - 1 lists r second. */
static void on_graph(int kind, int round)
{
    int wsize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 3)
        return;
    int *index = malloc(wsize * sizeof(int)), *edges = malloc(2 * wsize * sizeof(int));
    for (int r = 0; r < wsize; ++r) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r - 1 + wsize) % wsize;
        edges[2 * r + 1] = (r + 1) % wsize;
    }
    topo_t t = {.in = 2, .out = 2};
    MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &t.comm);
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    int neighbours[2] = {edges[2 * wrank], edges[2 * wrank + 1]}, src_block[2] = {1, 0};
    t.sources = neighbours;
    t.dests = neighbours;
    t.src_block = src_block;
    t.nb_src_block = src_block;
    exercise(&t, kind, round);
    free(index);
    free(edges);
}

/* A distributed graph: rank r sends to r + 1 and r + 2 (one neighbour on 2 ranks) and receives
 * from r - 1 and r - 2, in that order, so block k from source r - 1 - k is its block k. */
static void on_dist_graph(int kind, int round)
{
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const int degree = wsize >= 3 ? 2 : 1;
    int sources[2], dests[2], src_block[2] = {0, 1};
    for (int k = 0; k < degree; ++k) {
        dests[k] = (wrank + 1 + k) % wsize;
        sources[k] = (wrank - 1 - k + 2 * wsize) % wsize;
    }
    topo_t t = {.in = degree,
                .out = degree,
                .sources = sources,
                .dests = dests,
                .src_block = src_block,
                .nb_src_block = src_block};
    /* weights given: GCC takes MPI_UNWEIGHTED ((int *) 2) for an empty array that is read */
    int weights[2] = {1, 1};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, sources, weights, degree, dests, weights,
                                   MPI_INFO_NULL, 0, &t.comm);
    exercise(&t, kind, round);
}

/* Persistent collectives (Open MPI's MPIX_*_init): three starts each, new data before every
 * start, and one of zip's compressed bcasts in flight beside each persistent alltoallv. */
static void persistent_collectives(MPI_Comm comm, int kind)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 24000;
    double *bbuf = malloc(n * sizeof(double)), *side = malloc(n * sizeof(double));
    double *sbuf = malloc((size_t)n * size * sizeof(double));
    double *rbuf = malloc((size_t)n * size * sizeof(double));
    long long *isum = malloc(n * sizeof(long long)), *iin = malloc(n * sizeof(long long));
    int *c = malloc(size * sizeof(int)), *d = malloc(size * sizeof(int));
    for (int p = 0; p < size; ++p) {
        c[p] = n / size;
        d[p] = p * (n / size);
    }
    MPI_Request bcast, a2av, sum;
    const int root = size - 1;
    zt_call(MPIX_Bcast_init(bbuf, n, MPI_DOUBLE, root, comm, MPI_INFO_NULL, &bcast),
            "MPIX_Bcast_init", rank);
    zt_call(MPIX_Alltoallv_init(sbuf, c, d, MPI_DOUBLE, rbuf, c, d, MPI_DOUBLE, comm, MPI_INFO_NULL,
                                &a2av),
            "MPIX_Alltoallv_init", rank);
    zt_call(MPIX_Allreduce_init(iin, isum, n, MPI_LONG_LONG, MPI_SUM, comm, MPI_INFO_NULL, &sum),
            "MPIX_Allreduce_init", rank);
    for (int start = 0; start < 3; ++start) {
        const int round = 100 + start;
        if (rank == root)
            zt_fill(bbuf, n, kind, root, round);
        else
            for (int i = 0; i < n; ++i)
                bbuf[i] = -9.0;
        zt_call(MPI_Start(&bcast), "MPI_Start (bcast)", rank);
        zt_call(MPI_Wait(&bcast, MPI_STATUS_IGNORE), "MPI_Wait (bcast)", rank);
        zt_checkf(zt_block_matches(bbuf, 1, n, kind, root, round), rank,
                  "persistent bcast start %d %s", start, zt_kind_name[kind]);

        for (int p = 0; p < size; ++p)
            zt_fill(sbuf + d[p], c[p], kind, rank, block_salt(round, p));
        for (size_t i = 0; i < (size_t)n * size; ++i)
            rbuf[i] = -9.0;
        const int side_root = start % size;
        if (rank == side_root)
            zt_fill(side, n, kind, side_root, round + 50);
        zt_call(MPI_Start(&a2av), "MPI_Start (alltoallv)", rank);
        zt_call(MPI_Bcast(side, n, MPI_DOUBLE, side_root, comm), "MPI_Bcast beside", rank);
        zt_call(MPI_Wait(&a2av, MPI_STATUS_IGNORE), "MPI_Wait (alltoallv)", rank);
        for (int p = 0; p < size; ++p)
            zt_checkf(zt_block_matches(rbuf + d[p], 1, c[p], kind, p, block_salt(round, rank)),
                      rank, "persistent alltoallv start %d %s from %d", start, zt_kind_name[kind],
                      p);
        zt_checkf(zt_block_matches(side, 1, n, kind, side_root, round + 50), rank,
                  "bcast beside a persistent alltoallv, start %d %s", start, zt_kind_name[kind]);

        for (int i = 0; i < n; ++i)
            iin[i] = (long long)(rank + 1) * (i + start);
        zt_call(MPI_Start(&sum), "MPI_Start (allreduce)", rank);
        zt_call(MPI_Wait(&sum, MPI_STATUS_IGNORE), "MPI_Wait (allreduce)", rank);
        int ok = 1;
        const long long ranks_sum = (long long)size * (size + 1) / 2;
        for (int i = 0; i < n; ++i)
            ok &= isum[i] == ranks_sum * (i + start);
        zt_checkf(ok, rank, "persistent allreduce start %d", start);
    }
    MPI_Request_free(&bcast);
    MPI_Request_free(&a2av);
    MPI_Request_free(&sum);
    free(bbuf);
    free(side);
    free(sbuf);
    free(rbuf);
    free(isum);
    free(iin);
    free(c);
    free(d);
}

static int kind_now = ZT_SMOOTH;
static void persistent_on(MPI_Comm comm)
{
    persistent_collectives(comm, kind_now);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int kind = 0; kind < ZT_KINDS; ++kind) {
        for (int round = 0; round < 2; ++round) {
            on_cartesian(kind, round);
            on_graph(kind, round);
            on_dist_graph(kind, round);
        }
        kind_now = kind;
        zt_on_world_dup_split(persistent_on);
    }
    return zt_finish("topo_persistent");
}
