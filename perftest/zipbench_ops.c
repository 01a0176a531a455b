/* Each rank's payload is the data set rotated by a rank-dependent shift: every rank sends
 * different bytes (so a bug that delivers the wrong block is caught) while the data keep the
 * smoothness of the data set. Receivers rebuild the expected bytes from F locally. */
#include "zipbench_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const zb_op_names =
    "bcast,alltoallv,gatherv,allreduce,reduce,alltoall,gather,scatter,scatterv,allgather,"
    "allgatherv,ibcast,iallreduce,ialltoall,ialltoallv,igather,igatherv,iscatter,iscatterv,"
    "iallgather,iallgatherv,neighbor_alltoall,neighbor_allgather,ineighbor_alltoall,"
    "ineighbor_allgather,neighbor_alltoallw,ineighbor_alltoallw,alltoallw,ialltoallw,"
    "reduce_scatter_block,ireduce_scatter_block,reduce_scatter,ireduce_scatter,ireduce,scan,"
    "exscan,iscan,iexscan,pingpong,bandwidth,compute";

enum kind {
    BCAST,
    ALLTOALLV,
    GATHERV,
    ALLREDUCE,
    REDUCE,
    ALLTOALL,
    GATHER,
    SCATTER,
    SCATTERV,
    ALLGATHER,
    ALLGATHERV,
    NEIGHBOR_ALLTOALL,  /* a halo exchange on a periodic ring: half of the n doubles each way */
    NEIGHBOR_ALLGATHER, /* the same ring: all n doubles to both neighbours */
    /* A 3-D halo: a periodic grid of the ranks (MPI_Dims_create), each holding a cube of L^3 <= n
     * doubles, whose six faces (subarray types) go to the six neighbours, received into
     * contiguous halos: MPI_Neighbor_alltoallw. */
    NEIGHBOR_ALLTOALLW,
    /* A transpose, as FFT codes write it with MPI_Alltoallw: each rank's slab of R rows by C
     * columns per rank goes to rank j as the subarray of j's C columns (a row's C doubles, then
     * the next row's), received as contiguous R x C blocks. */
    ALLTOALLW,
    /* MPI_SUM of each rank's n doubles, rank j getting block j: n / size doubles each
     * (reduce_scatter_block), or alltoallv's uneven sizes (reduce_scatter). */
    REDUCE_SCATTER_BLOCK,
    REDUCE_SCATTER,
    SCAN, /* MPI_SUM of the n doubles of ranks 0 .. rank (exscan: .. rank - 1) */
    EXSCAN,
    PINGPONG,
    BANDWIDTH,
    COMPUTE /* no communication: the overlap benchmark's computation alone */
};

/* Every name: its kind and whether it is the non-blocking call (MPI_I<name> + MPI_Wait). */
static const struct {
    const char *name;
    enum kind kind;
    int nb;
} op_table[] = {
    {"bcast", BCAST, 0},
    {"alltoallv", ALLTOALLV, 0},
    {"gatherv", GATHERV, 0},
    {"allreduce", ALLREDUCE, 0},
    {"reduce", REDUCE, 0},
    {"alltoall", ALLTOALL, 0},
    {"gather", GATHER, 0},
    {"scatter", SCATTER, 0},
    {"scatterv", SCATTERV, 0},
    {"allgather", ALLGATHER, 0},
    {"allgatherv", ALLGATHERV, 0},
    {"ibcast", BCAST, 1},
    {"iallreduce", ALLREDUCE, 1},
    {"ireduce", REDUCE, 1},
    {"ialltoall", ALLTOALL, 1},
    {"ialltoallv", ALLTOALLV, 1},
    {"igather", GATHER, 1},
    {"igatherv", GATHERV, 1},
    {"iscatter", SCATTER, 1},
    {"iscatterv", SCATTERV, 1},
    {"iallgather", ALLGATHER, 1},
    {"iallgatherv", ALLGATHERV, 1},
    {"pingpong", PINGPONG, 0},
    {"bandwidth", BANDWIDTH, 0},
    {"compute", COMPUTE, 0},
    {"neighbor_alltoall", NEIGHBOR_ALLTOALL, 0},
    {"neighbor_allgather", NEIGHBOR_ALLGATHER, 0},
    {"ineighbor_alltoall", NEIGHBOR_ALLTOALL, 1},
    {"ineighbor_allgather", NEIGHBOR_ALLGATHER, 1},
    {"neighbor_alltoallw", NEIGHBOR_ALLTOALLW, 0},
    {"ineighbor_alltoallw", NEIGHBOR_ALLTOALLW, 1},
    {"alltoallw", ALLTOALLW, 0},
    {"ialltoallw", ALLTOALLW, 1},
    {"reduce_scatter_block", REDUCE_SCATTER_BLOCK, 0},
    {"ireduce_scatter_block", REDUCE_SCATTER_BLOCK, 1},
    {"reduce_scatter", REDUCE_SCATTER, 0},
    {"ireduce_scatter", REDUCE_SCATTER, 1},
    {"scan", SCAN, 0},
    {"exscan", EXSCAN, 0},
    {"iscan", SCAN, 1},
    {"iexscan", EXSCAN, 1},
};

/* Messages in flight in a bandwidth run: enough to keep a 1 Gbit/s pipe busy at 64 KiB, and
 * ob1's default tcp send queue handles it without flow-control stalls. */
#define BW_WINDOW 16

struct zb_op {
    enum kind kind;
    MPI_Comm comm;
    MPI_Comm ring; /* neighbor_alltoall: a periodic 1-D Cartesian communicator of comm's ranks */
    int rank, size;
    int nb;                    /* the non-blocking call */
    const zb_compute *compute; /* "+compute": computation after the call / before the wait */
    const double *F;
    size_t n;
    double *sbuf, *rbuf;
    int *scount, *sdispl, *rcount, *rdispl; /* per peer, in doubles */
    MPI_Request req[BW_WINDOW];
    /* neighbor_alltoallw: the cube's edge, the grid, the neighbours (MPI's order: per dimension
     * the source and the destination of a shift by +1), the faces sent to them and the
     * arguments of the call. */
    int L, dims[3], nbr[6];
    MPI_Datatype face[6];
    int wcount[6], rcount_w[6];
    MPI_Aint sdisp_w[6], rdisp_w[6];
    MPI_Datatype rtype_w[6];
    /* alltoallw: the slab's rows and columns per rank, and per peer the subarray sent and the
     * type received (scount, sdispl, rcount, rdispl hold its counts and byte displacements). */
    int R, C;
    MPI_Datatype *cols, *rtypes;
};

/* 0xFF bytes are a NaN pattern that no data set produces, so stale buffers cannot pass. */
#define POISON 0xFF

static size_t shift_of(const zb_op *op, int r)
{
    return ((size_t)r * (op->n / 7 + 13)) % op->n;
}

/* dst[k] = rotated(F, s)[start + k] for k < len, where rotated(F, s)[i] = F[(i + s) % n]. */
static void rot_copy(double *dst, const double *F, size_t n, size_t s, size_t start, size_t len)
{
    size_t from = (start + s) % n, first = n - from < len ? n - from : len;
    memcpy(dst, F + from, first * sizeof *F);
    if (len > first)
        memcpy(dst + first, F, (len - first) * sizeof *F);
}

static size_t rot_mismatch(const double *got, const double *F, size_t n, size_t s, size_t start,
                           size_t len)
{
    size_t from = (start + s) % n, first = n - from < len ? n - from : len, bad = 0;
    /* memcmp, not ==: a codec must return the exact bits (and -0.0 / NaN compare badly). */
    for (size_t k = 0; k < len; k++) {
        const double *want = k < first ? F + from + k : F + (k - first);
        bad += memcmp(got + k, want, sizeof *got) != 0;
    }
    return bad;
}

/* Page-aligned, so that a buffer's place on the heap does not depend on what else the process
 * allocated: with malloc's placement a 64 KiB gatherv on shared memory took 16-21 us or 54-57
 * us depending on the heap (MALLOC_TOP_PAD_ alone moved stock Open MPI from one to the other),
 * and loading a component that allocates moved it too. */
static void *xmalloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes ? bytes : 1) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

/* Alltoallv block sizes: alternating q +- q/4 so the "v" matters, last block takes the rest. */
static int a2a_count(size_t n, int p, int i, int j)
{
    size_t q = n / (size_t)p, d = q / 4, sum = 0;
    for (int k = 0; k < p - 1; k++) {
        size_t c = ((i + k) & 1) ? q + d : q - d;
        if (k == j)
            return (int)c;
        sum += c;
    }
    return (int)(n - sum);
}

/* Gatherv contributions: odd ranks send n + n/8, even ranks n - n/8 (the last even rank of an
 * odd-sized communicator sends n), so the root's total is size * n. */
static int gv_count(size_t n, int p, int i)
{
    if ((p & 1) && i == p - 1)
        return (int)n;
    return (int)((i & 1) ? n + n / 8 : n - n / 8);
}

zb_op *zb_op_create(const char *name, const double *F, size_t n, const zb_compute *compute,
                    MPI_Comm comm)
{
    const char *plus = strchr(name, '+');
    const size_t base = plus ? (size_t)(plus - name) : strlen(name);
    if (plus && strcmp(plus, ZB_COMPUTE_SUFFIX))
        return NULL;
    int t = -1;
    for (int i = 0; i < (int)(sizeof op_table / sizeof op_table[0]); i++)
        if (strlen(op_table[i].name) == base && !strncmp(name, op_table[i].name, base))
            t = i;
    /* "+compute" goes with collectives only; "compute" is the computation alone. */
    if (t < 0 || (plus && (op_table[t].kind >= PINGPONG)))
        return NULL;
    zb_op *op = calloc(1, sizeof *op);
    if (!op)
        MPI_Abort(MPI_COMM_WORLD, 2);
    op->kind = op_table[t].kind;
    op->nb = op_table[t].nb;
    op->compute = plus || op->kind == COMPUTE ? compute : NULL;
    op->comm = comm;
    MPI_Comm_rank(comm, &op->rank);
    MPI_Comm_size(comm, &op->size);
    op->F = F;
    op->n = n;
    int p = op->size;
    op->scount = xmalloc(4 * (size_t)p * sizeof(int));
    op->sdispl = op->scount + p;
    op->rcount = op->sdispl + p;
    op->rdispl = op->rcount + p;
    switch (op->kind) {
    case COMPUTE:
        break;
    case BCAST:
    case PINGPONG:
        op->sbuf = xmalloc(n * sizeof(double));
        break;
    case ALLREDUCE:
    case REDUCE:
    case REDUCE_SCATTER_BLOCK:
    case SCAN:
    case EXSCAN:
        op->sbuf = xmalloc(n * sizeof(double));
        op->rbuf = xmalloc(n * sizeof(double));
        break;
    case REDUCE_SCATTER: {
        /* The same on every rank, as MPI requires: rank 0's alltoallv sends. */
        int at = 0;
        for (int j = 0; j < p; j++) {
            op->rcount[j] = a2a_count(n, p, 0, j);
            op->rdispl[j] = at;
            at += op->rcount[j];
        }
        op->sbuf = xmalloc(n * sizeof(double));
        op->rbuf = xmalloc(n * sizeof(double));
        break;
    }
    case BANDWIDTH:
        /* One buffer per message in flight, each with its own data (a rotation of F), so a
         * message delivered into the wrong slot is caught. Only ranks 0 and 1 take part. */
        if (op->rank == 0)
            op->sbuf = xmalloc(BW_WINDOW * n * sizeof(double));
        else if (op->rank == 1)
            op->rbuf = xmalloc(BW_WINDOW * n * sizeof(double));
        break;
    case ALLTOALLV: {
        int s = 0, r = 0;
        for (int j = 0; j < p; j++) {
            op->scount[j] = a2a_count(n, p, op->rank, j);
            op->sdispl[j] = s;
            s += op->scount[j];
            op->rcount[j] = a2a_count(n, p, j, op->rank);
            op->rdispl[j] = r;
            r += op->rcount[j];
        }
        op->sbuf = xmalloc(n * sizeof(double));
        op->rbuf = xmalloc((size_t)r * sizeof(double));
        break;
    }
    case ALLTOALL:
        /* n / size doubles to each peer: the rank's n doubles, split evenly. */
        op->sbuf = xmalloc(n * sizeof(double));
        op->rbuf = xmalloc(n * sizeof(double));
        break;
    case NEIGHBOR_ALLTOALL:
    case NEIGHBOR_ALLGATHER: {
        const int periodic = 1;
        MPI_Cart_create(comm, 1, &p, &periodic, 0, &op->ring);
        /* The timing's barriers are on comm, and a communicator that sees only non-blocking
         * collectives never lets coll/zip's ranks agree on speeds (policy auto): one barrier
         * after creating it does, as docs/user-guide.md tells such codes. */
        MPI_Barrier(op->ring);
        op->sbuf = xmalloc(n * sizeof(double));
        op->rbuf = xmalloc((op->kind == NEIGHBOR_ALLGATHER ? 2 : 1) * n * sizeof(double));
        break;
    }
    case NEIGHBOR_ALLTOALLW: {
        int periods[3] = {1, 1, 1};
        MPI_Dims_create(p, 3, op->dims);
        MPI_Cart_create(comm, 3, op->dims, periods, 0, &op->ring);
        MPI_Barrier(op->ring); /* as for the ring above */
        op->L = (int)cbrt((double)n);
        while ((size_t)(op->L + 1) * (op->L + 1) * (op->L + 1) <= n)
            ++op->L;
        while (op->L > 1 && (size_t)op->L * op->L * op->L > n)
            --op->L;
        const int L = op->L, sizes[3] = {L, L, L};
        for (int d = 0; d < 3; ++d) {
            MPI_Cart_shift(op->ring, d, 1, &op->nbr[2 * d], &op->nbr[2 * d + 1]);
            for (int side = 0; side < 2; ++side) {
                /* Block 2d goes to the -1 neighbour: the low face; 2d + 1 the high one. */
                int sub[3] = {L, L, L}, start[3] = {0, 0, 0};
                sub[d] = 1;
                start[d] = side ? L - 1 : 0;
                MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE,
                                         &op->face[2 * d + side]);
                MPI_Type_commit(&op->face[2 * d + side]);
            }
        }
        for (int k = 0; k < 6; ++k) {
            op->wcount[k] = 1;
            op->rcount_w[k] = L * L;
            op->sdisp_w[k] = 0;
            op->rdisp_w[k] = (MPI_Aint)k * L * L * (MPI_Aint)sizeof(double);
            op->rtype_w[k] = MPI_DOUBLE;
        }
        op->sbuf = xmalloc((size_t)L * L * L * sizeof(double));
        op->rbuf = xmalloc(6 * (size_t)L * L * sizeof(double));
        break;
    }
    case ALLTOALLW: {
        op->C = n / (size_t)p >= 128 ? 128 : (int)(n / (size_t)p > 0 ? n / (size_t)p : 1);
        op->R = (int)(n / ((size_t)op->C * p)) > 0 ? (int)(n / ((size_t)op->C * p)) : 1;
        const int R = op->R, C = op->C, sizes[2] = {R, C * p}, sub[2] = {R, C};
        op->cols = xmalloc(2 * (size_t)p * sizeof(MPI_Datatype));
        op->rtypes = op->cols + p;
        for (int j = 0; j < p; j++) {
            const int start[2] = {0, j * C};
            MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &op->cols[j]);
            MPI_Type_commit(&op->cols[j]);
            op->rtypes[j] = MPI_DOUBLE;
            op->scount[j] = 1;
            op->sdispl[j] = 0;
            op->rcount[j] = R * C;
            op->rdispl[j] = j * R * C * (int)sizeof(double);
        }
        op->sbuf = xmalloc((size_t)R * C * p * sizeof(double));
        op->rbuf = xmalloc((size_t)R * C * p * sizeof(double));
        break;
    }
    case GATHER:
    case ALLGATHER:
        op->sbuf = xmalloc(n * sizeof(double));
        op->rbuf = xmalloc((size_t)p * n * sizeof(double));
        break;
    case SCATTER:
        op->sbuf = xmalloc((size_t)p * n * sizeof(double));
        op->rbuf = xmalloc(n * sizeof(double));
        break;
    case GATHERV:
    case SCATTERV:
    case ALLGATHERV: {
        /* The root's side: gatherv's blocks, which scatterv sends out (rcount, rdispl) and
         * allgatherv gathers everywhere. */
        int r = 0;
        for (int j = 0; j < p; j++) {
            op->rcount[j] = gv_count(n, p, j);
            op->rdispl[j] = r;
            r += op->rcount[j];
        }
        const int gathers = op->kind != SCATTERV;
        op->sbuf = xmalloc((size_t)(gathers ? op->rcount[op->rank] : r) * sizeof(double));
        op->rbuf = xmalloc((size_t)(gathers ? r : op->rcount[op->rank]) * sizeof(double));
        break;
    }
    }
    return op;
}

void zb_op_destroy(zb_op *op)
{
    if (!op)
        return;
    if (op->kind == NEIGHBOR_ALLTOALL || op->kind == NEIGHBOR_ALLGATHER ||
        op->kind == NEIGHBOR_ALLTOALLW)
        MPI_Comm_free(&op->ring);
    for (int k = 0; op->kind == NEIGHBOR_ALLTOALLW && k < 6; ++k)
        MPI_Type_free(&op->face[k]);
    for (int j = 0; op->kind == ALLTOALLW && j < op->size; ++j)
        MPI_Type_free(&op->cols[j]);
    free(op->cols);
    free(op->sbuf);
    free(op->rbuf);
    free(op->scount);
    free(op);
}

size_t zb_op_message_bytes(const zb_op *op)
{
    const int split = op->kind == ALLTOALLV || op->kind == ALLTOALL ||
                      op->kind == REDUCE_SCATTER_BLOCK || op->kind == REDUCE_SCATTER;
    if (op->kind == NEIGHBOR_ALLTOALL)
        return op->n / 2 * sizeof(double);
    if (op->kind == NEIGHBOR_ALLTOALLW) /* a face */
        return (size_t)op->L * op->L * sizeof(double);
    if (op->kind == ALLTOALLW)
        return (size_t)op->R * op->C * sizeof(double);
    return (split ? op->n / (size_t)op->size : op->n) * sizeof(double);
}

int zb_op_messages(const zb_op *op)
{
    return op->kind == BANDWIDTH ? BW_WINDOW : 1;
}

int zb_op_name_p2p(const char *name)
{
    return !strcmp(name, "pingpong") || !strcmp(name, "bandwidth");
}

int zb_op_name_compute(const char *name)
{
    return !strcmp(name, "compute") || strstr(name, ZB_COMPUTE_SUFFIX) != NULL;
}

void zb_op_stats_name(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%.*s", (int)strcspn(name, "+"), name);
}

MPI_Comm zb_op_comm(const zb_op *op)
{
    return op->kind == NEIGHBOR_ALLTOALL || op->kind == NEIGHBOR_ALLGATHER ||
                   op->kind == NEIGHBOR_ALLTOALLW
               ? op->ring
               : op->comm;
}

int zb_op_rooted(const zb_op *op)
{
    return op->kind == BCAST || op->kind == GATHERV || op->kind == GATHER || op->kind == SCATTERV ||
           op->kind == SCATTER || op->kind == REDUCE;
}

static size_t recv_total(const zb_op *op)
{
    return (size_t)(op->rdispl[op->size - 1] + op->rcount[op->size - 1]);
}

void zb_op_prepare(zb_op *op, int root)
{
    size_t n = op->n;
    switch (op->kind) {
    case BCAST:
        if (op->rank == root)
            rot_copy(op->sbuf, op->F, n, shift_of(op, root), 0, n);
        else
            memset(op->sbuf, POISON, n * sizeof(double));
        break;
    case PINGPONG:
        if (op->rank == 0)
            rot_copy(op->sbuf, op->F, n, 0, 0, n);
        else
            memset(op->sbuf, POISON, n * sizeof(double));
        break;
    case BANDWIDTH:
        for (int i = 0; op->rank == 0 && i < BW_WINDOW; i++)
            rot_copy(op->sbuf + (size_t)i * n, op->F, n, shift_of(op, i), 0, n);
        if (op->rank == 1)
            memset(op->rbuf, POISON, BW_WINDOW * n * sizeof(double));
        break;
    case ALLTOALLV:
        rot_copy(op->sbuf, op->F, n, shift_of(op, op->rank), 0, n);
        memset(op->rbuf, POISON, recv_total(op) * sizeof(double));
        break;
    case ALLREDUCE:
    case REDUCE:
    case REDUCE_SCATTER_BLOCK:
    case REDUCE_SCATTER:
    case SCAN:
    case EXSCAN:
    case ALLTOALL:
    case NEIGHBOR_ALLTOALL:
        rot_copy(op->sbuf, op->F, n, shift_of(op, op->rank), 0, n);
        memset(op->rbuf, POISON, n * sizeof(double));
        break;
    case NEIGHBOR_ALLGATHER:
        rot_copy(op->sbuf, op->F, n, shift_of(op, op->rank), 0, n);
        memset(op->rbuf, POISON, 2 * n * sizeof(double));
        break;
    case NEIGHBOR_ALLTOALLW: {
        const size_t cube = (size_t)op->L * op->L * op->L;
        rot_copy(op->sbuf, op->F, n, shift_of(op, op->rank), 0, cube);
        memset(op->rbuf, POISON, 6 * (size_t)op->L * op->L * sizeof(double));
        break;
    }
    case COMPUTE:
        break;
    case ALLTOALLW: {
        const size_t slab = (size_t)op->R * op->C * op->size;
        rot_copy(op->sbuf, op->F, n, shift_of(op, op->rank), 0, slab);
        memset(op->rbuf, POISON, slab * sizeof(double));
        break;
    }
    case GATHER:
    case ALLGATHER:
        rot_copy(op->sbuf, op->F, n, shift_of(op, op->rank), 0, n);
        if (op->rank == root || op->kind == ALLGATHER)
            memset(op->rbuf, POISON, (size_t)op->size * n * sizeof(double));
        break;
    case SCATTER:
        for (int i = 0; op->rank == root && i < op->size; i++)
            rot_copy(op->sbuf + (size_t)i * n, op->F, n, shift_of(op, i), 0, n);
        memset(op->rbuf, POISON, n * sizeof(double));
        break;
    case SCATTERV:
        /* Block i is rank i's gatherv contribution: rotated(F, shift of i). */
        for (int i = 0; op->rank == root && i < op->size; i++)
            rot_copy(op->sbuf + op->rdispl[i], op->F, n, shift_of(op, i), 0, (size_t)op->rcount[i]);
        memset(op->rbuf, POISON, (size_t)op->rcount[op->rank] * sizeof(double));
        break;
    case ALLGATHERV:
        rot_copy(op->sbuf, op->F, n, shift_of(op, op->rank), 0, (size_t)op->rcount[op->rank]);
        memset(op->rbuf, POISON, recv_total(op) * sizeof(double));
        break;
    case GATHERV:
        rot_copy(op->sbuf, op->F, n, shift_of(op, op->rank), 0, (size_t)op->rcount[op->rank]);
        if (op->rank == root)
            memset(op->rbuf, POISON, recv_total(op) * sizeof(double));
        break;
    }
}

static void run_blocking(zb_op *op, int root)
{
    int n = (int)op->n;
    switch (op->kind) {
    case COMPUTE:
        break;
    case NEIGHBOR_ALLTOALL:
        MPI_Neighbor_alltoall(op->sbuf, n / 2, MPI_DOUBLE, op->rbuf, n / 2, MPI_DOUBLE, op->ring);
        break;
    case NEIGHBOR_ALLGATHER:
        MPI_Neighbor_allgather(op->sbuf, n, MPI_DOUBLE, op->rbuf, n, MPI_DOUBLE, op->ring);
        break;
    case NEIGHBOR_ALLTOALLW:
        MPI_Neighbor_alltoallw(op->sbuf, op->wcount, op->sdisp_w, op->face, op->rbuf, op->rcount_w,
                               op->rdisp_w, op->rtype_w, op->ring);
        break;
    case ALLTOALLW:
        MPI_Alltoallw(op->sbuf, op->scount, op->sdispl, op->cols, op->rbuf, op->rcount, op->rdispl,
                      op->rtypes, op->comm);
        break;
    case REDUCE:
        MPI_Reduce(op->sbuf, op->rbuf, n, MPI_DOUBLE, MPI_SUM, root, op->comm);
        break;
    case REDUCE_SCATTER_BLOCK:
        MPI_Reduce_scatter_block(op->sbuf, op->rbuf, n / op->size, MPI_DOUBLE, MPI_SUM, op->comm);
        break;
    case REDUCE_SCATTER:
        MPI_Reduce_scatter(op->sbuf, op->rbuf, op->rcount, MPI_DOUBLE, MPI_SUM, op->comm);
        break;
    case SCAN:
        MPI_Scan(op->sbuf, op->rbuf, n, MPI_DOUBLE, MPI_SUM, op->comm);
        break;
    case EXSCAN:
        MPI_Exscan(op->sbuf, op->rbuf, n, MPI_DOUBLE, MPI_SUM, op->comm);
        break;
    case BCAST:
        MPI_Bcast(op->sbuf, n, MPI_DOUBLE, root, op->comm);
        break;
    case ALLTOALLV:
        MPI_Alltoallv(op->sbuf, op->scount, op->sdispl, MPI_DOUBLE, op->rbuf, op->rcount,
                      op->rdispl, MPI_DOUBLE, op->comm);
        break;
    case GATHERV:
        MPI_Gatherv(op->sbuf, op->rcount[op->rank], MPI_DOUBLE, op->rbuf, op->rcount, op->rdispl,
                    MPI_DOUBLE, root, op->comm);
        break;
    case ALLREDUCE:
        MPI_Allreduce(op->sbuf, op->rbuf, n, MPI_DOUBLE, MPI_SUM, op->comm);
        break;
    case GATHER:
        MPI_Gather(op->sbuf, n, MPI_DOUBLE, op->rbuf, n, MPI_DOUBLE, root, op->comm);
        break;
    case ALLGATHER:
        MPI_Allgather(op->sbuf, n, MPI_DOUBLE, op->rbuf, n, MPI_DOUBLE, op->comm);
        break;
    case ALLGATHERV:
        MPI_Allgatherv(op->sbuf, op->rcount[op->rank], MPI_DOUBLE, op->rbuf, op->rcount, op->rdispl,
                       MPI_DOUBLE, op->comm);
        break;
    case SCATTER:
        MPI_Scatter(op->sbuf, n, MPI_DOUBLE, op->rbuf, n, MPI_DOUBLE, root, op->comm);
        break;
    case SCATTERV:
        MPI_Scatterv(op->sbuf, op->rcount, op->rdispl, MPI_DOUBLE, op->rbuf, op->rcount[op->rank],
                     MPI_DOUBLE, root, op->comm);
        break;
    case ALLTOALL:
        MPI_Alltoall(op->sbuf, n / op->size, MPI_DOUBLE, op->rbuf, n / op->size, MPI_DOUBLE,
                     op->comm);
        break;
    case PINGPONG: {
        /* One way plus a one-byte ack, so rank 0's clock sees the end of the transfer. */
        char ack = 0;
        if (op->rank == 0) {
            MPI_Send(op->sbuf, n, MPI_DOUBLE, 1, 0, op->comm);
            MPI_Recv(&ack, 1, MPI_CHAR, 1, 1, op->comm, MPI_STATUS_IGNORE);
        } else if (op->rank == 1) {
            MPI_Recv(op->sbuf, n, MPI_DOUBLE, 0, 0, op->comm, MPI_STATUS_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, 0, 1, op->comm);
        }
        break;
    }
    case BANDWIDTH: {
        /* A stream: all messages posted at once, then the ack tells rank 0 the last one landed.
         * Distinct tags keep the slots matched even if a pml reordered same-tag messages. */
        char ack = 0;
        if (op->rank == 0) {
            for (int i = 0; i < BW_WINDOW; i++)
                MPI_Isend(op->sbuf + (size_t)i * op->n, n, MPI_DOUBLE, 1, 2 + i, op->comm,
                          &op->req[i]);
            MPI_Waitall(BW_WINDOW, op->req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_CHAR, 1, 1, op->comm, MPI_STATUS_IGNORE);
        } else if (op->rank == 1) {
            for (int i = 0; i < BW_WINDOW; i++)
                MPI_Irecv(op->rbuf + (size_t)i * op->n, n, MPI_DOUBLE, 0, 2 + i, op->comm,
                          &op->req[i]);
            MPI_Waitall(BW_WINDOW, op->req, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, 0, 1, op->comm);
        }
        break;
    }
    }
}

/* Posts the non-blocking form of the collective (the arguments are run_blocking's). */
static void start_nb(zb_op *op, int root, MPI_Request *req)
{
    int n = (int)op->n;
    switch (op->kind) {
    case BCAST:
        MPI_Ibcast(op->sbuf, n, MPI_DOUBLE, root, op->comm, req);
        break;
    case ALLTOALLV:
        MPI_Ialltoallv(op->sbuf, op->scount, op->sdispl, MPI_DOUBLE, op->rbuf, op->rcount,
                       op->rdispl, MPI_DOUBLE, op->comm, req);
        break;
    case GATHERV:
        MPI_Igatherv(op->sbuf, op->rcount[op->rank], MPI_DOUBLE, op->rbuf, op->rcount, op->rdispl,
                     MPI_DOUBLE, root, op->comm, req);
        break;
    case ALLREDUCE:
        MPI_Iallreduce(op->sbuf, op->rbuf, n, MPI_DOUBLE, MPI_SUM, op->comm, req);
        break;
    case REDUCE:
        MPI_Ireduce(op->sbuf, op->rbuf, n, MPI_DOUBLE, MPI_SUM, root, op->comm, req);
        break;
    case GATHER:
        MPI_Igather(op->sbuf, n, MPI_DOUBLE, op->rbuf, n, MPI_DOUBLE, root, op->comm, req);
        break;
    case ALLGATHER:
        MPI_Iallgather(op->sbuf, n, MPI_DOUBLE, op->rbuf, n, MPI_DOUBLE, op->comm, req);
        break;
    case ALLGATHERV:
        MPI_Iallgatherv(op->sbuf, op->rcount[op->rank], MPI_DOUBLE, op->rbuf, op->rcount,
                        op->rdispl, MPI_DOUBLE, op->comm, req);
        break;
    case SCATTER:
        MPI_Iscatter(op->sbuf, n, MPI_DOUBLE, op->rbuf, n, MPI_DOUBLE, root, op->comm, req);
        break;
    case SCATTERV:
        MPI_Iscatterv(op->sbuf, op->rcount, op->rdispl, MPI_DOUBLE, op->rbuf, op->rcount[op->rank],
                      MPI_DOUBLE, root, op->comm, req);
        break;
    case ALLTOALL:
        MPI_Ialltoall(op->sbuf, n / op->size, MPI_DOUBLE, op->rbuf, n / op->size, MPI_DOUBLE,
                      op->comm, req);
        break;
    case NEIGHBOR_ALLTOALL:
        MPI_Ineighbor_alltoall(op->sbuf, n / 2, MPI_DOUBLE, op->rbuf, n / 2, MPI_DOUBLE, op->ring,
                               req);
        break;
    case NEIGHBOR_ALLGATHER:
        MPI_Ineighbor_allgather(op->sbuf, n, MPI_DOUBLE, op->rbuf, n, MPI_DOUBLE, op->ring, req);
        break;
    case NEIGHBOR_ALLTOALLW:
        MPI_Ineighbor_alltoallw(op->sbuf, op->wcount, op->sdisp_w, op->face, op->rbuf, op->rcount_w,
                                op->rdisp_w, op->rtype_w, op->ring, req);
        break;
    case REDUCE_SCATTER_BLOCK:
        MPI_Ireduce_scatter_block(op->sbuf, op->rbuf, n / op->size, MPI_DOUBLE, MPI_SUM, op->comm,
                                  req);
        break;
    case REDUCE_SCATTER:
        MPI_Ireduce_scatter(op->sbuf, op->rbuf, op->rcount, MPI_DOUBLE, MPI_SUM, op->comm, req);
        break;
    case SCAN:
        MPI_Iscan(op->sbuf, op->rbuf, n, MPI_DOUBLE, MPI_SUM, op->comm, req);
        break;
    case EXSCAN:
        MPI_Iexscan(op->sbuf, op->rbuf, n, MPI_DOUBLE, MPI_SUM, op->comm, req);
        break;
    case ALLTOALLW:
        MPI_Ialltoallw(op->sbuf, op->scount, op->sdispl, op->cols, op->rbuf, op->rcount, op->rdispl,
                       op->rtypes, op->comm, req);
        break;
    default: /* op_table pairs no other kind with nb */
        *req = MPI_REQUEST_NULL;
        break;
    }
}

void zb_op_run(zb_op *op, int root)
{
    if (op->nb) {
        MPI_Request req;
        start_nb(op, root, &req);
        if (op->compute)
            zb_compute_run(op->compute, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        run_blocking(op, root);
        if (op->compute)
            zb_compute_run(op->compute, NULL);
    }
}

/* Elements of an allreduce sum that are wrong: the sum over ranks of their rotations of F, in
 * rank order, against what came back, within rounding (algorithms add in different orders); NaN
 * must meet NaN, and a sum that overflows in some order may come back as any infinity. */
/* Elements [first, first + len) of the sum of ranks 0 .. ranks - 1, in rbuf from its start. */
static size_t sum_mismatch_over(const zb_op *op, int ranks, size_t first, size_t len)
{
    size_t bad = 0;
    for (size_t i = first; i < first + len; i++) {
        double sum = 0.0, mag = 0.0;
        for (int r = 0; r < ranks; r++) {
            const double x = op->F[(i + shift_of(op, r)) % op->n];
            sum += x;
            mag += fabs(x);
        }
        const double got = op->rbuf[i - first];
        if (isnan(sum) || isnan(got))
            bad += !(isnan(sum) && isnan(got));
        else if (isfinite(mag))
            bad += !(fabs(got - sum) <= 1e-12 * mag);
    }
    return bad;
}

static size_t sum_mismatch_of(const zb_op *op, size_t first, size_t len)
{
    return sum_mismatch_over(op, op->size, first, len);
}

/* The whole vector (allreduce, reduce). */
static size_t sum_mismatch(const zb_op *op)
{
    return sum_mismatch_of(op, 0, op->n);
}

/* Where sender i's block for this rank starts in i's send buffer. */
static int a2a_sdispl_of(const zb_op *op, int i)
{
    int d = 0;
    for (int k = 0; k < op->rank; k++)
        d += a2a_count(op->n, op->size, i, k);
    return d;
}

size_t zb_op_verify(const zb_op *op, int root)
{
    size_t n = op->n, bad = 0;
    switch (op->kind) {
    case BCAST:
        return rot_mismatch(op->sbuf, op->F, n, shift_of(op, root), 0, n);
    case PINGPONG:
        return op->rank == 1 ? rot_mismatch(op->sbuf, op->F, n, 0, 0, n) : 0;
    case BANDWIDTH:
        for (int i = 0; op->rank == 1 && i < BW_WINDOW; i++)
            bad += rot_mismatch(op->rbuf + (size_t)i * n, op->F, n, shift_of(op, i), 0, n);
        return bad;
    case ALLTOALLV:
        for (int i = 0; i < op->size; i++)
            bad += rot_mismatch(op->rbuf + op->rdispl[i], op->F, n, shift_of(op, i),
                                (size_t)a2a_sdispl_of(op, i), (size_t)op->rcount[i]);
        return bad;
    case ALLREDUCE:
        return sum_mismatch(op);
    case REDUCE:
        return op->rank == root ? sum_mismatch(op) : 0;
    case REDUCE_SCATTER_BLOCK: {
        const size_t q = n / (size_t)op->size;
        return sum_mismatch_of(op, (size_t)op->rank * q, q);
    }
    case REDUCE_SCATTER:
        return sum_mismatch_of(op, (size_t)op->rdispl[op->rank], (size_t)op->rcount[op->rank]);
    case SCAN:
        return sum_mismatch_over(op, op->rank + 1, 0, n);
    case EXSCAN: /* rank 0's buffer is undefined */
        return op->rank > 0 ? sum_mismatch_over(op, op->rank, 0, n) : 0;
    case COMPUTE:
        return 0;
    case ALLTOALL: {
        const size_t q = n / (size_t)op->size;
        for (int i = 0; i < op->size; i++)
            bad += rot_mismatch(op->rbuf + (size_t)i * q, op->F, n, shift_of(op, i),
                                (size_t)op->rank * q, q);
        return bad;
    }
    case NEIGHBOR_ALLTOALL: {
        /* From -1: its block towards +1 (its second half); from +1: its first half. Where both
         * neighbours are one rank (a ring of two or one), the non-blocking call pairs blocks in
         * the order they were posted (libnbc's, and so zip's): its first half comes first. */
        const size_t q = n / 2;
        const int left = (op->rank + op->size - 1) % op->size, right = (op->rank + 1) % op->size;
        const int posted = op->nb && left == right;
        return rot_mismatch(op->rbuf, op->F, n, shift_of(op, left), posted ? 0 : q, q) +
               rot_mismatch(op->rbuf + q, op->F, n, shift_of(op, right), posted ? q : 0, q);
    }
    case NEIGHBOR_ALLTOALLW: {
        /* Halo k comes from nbr[k]: from the -1 neighbour (k = 2d) its high face, from the +1
         * neighbour its low face. Where both neighbours in a dimension are one rank (a
         * dimension of one or two ranks), the non-blocking call pairs blocks in the order they
         * were posted (libnbc's, and so zip's): halo 2d gets that rank's low face. */
        const size_t L = (size_t)op->L;
        for (int k = 0; k < 6; ++k) {
            const int d = k / 2, src = op->nbr[k];
            const int posted = op->nb && op->nbr[2 * d] == op->nbr[2 * d + 1];
            const int high = posted ? k % 2 : !(k % 2);
            const double *halo = op->rbuf + (size_t)k * L * L;
            for (size_t a = 0; a < L; ++a)
                for (size_t b = 0; b < L; ++b) {
                    size_t idx[3], j = 0;
                    for (int e = 0; e < 3; ++e)
                        idx[e] = e == d ? (high ? L - 1 : 0) : (j++ == 0 ? a : b);
                    const size_t at = (idx[0] * L + idx[1]) * L + idx[2];
                    const double want = op->F[(at + shift_of(op, src)) % n];
                    bad += memcmp(&halo[a * L + b], &want, sizeof want) != 0;
                }
        }
        return bad;
    }
    case NEIGHBOR_ALLGATHER: {
        const int left = (op->rank + op->size - 1) % op->size, right = (op->rank + 1) % op->size;
        return rot_mismatch(op->rbuf, op->F, n, shift_of(op, left), 0, n) +
               rot_mismatch(op->rbuf + n, op->F, n, shift_of(op, right), 0, n);
    }
    case ALLTOALLW: {
        /* Block j holds rows 0..R-1 of rank j's slab, this rank's C columns of each. */
        const size_t R = (size_t)op->R, C = (size_t)op->C, P = (size_t)op->size;
        for (size_t j = 0; j < P; j++)
            for (size_t r = 0; r < R; r++)
                bad += rot_mismatch(op->rbuf + (j * R + r) * C, op->F, n, shift_of(op, (int)j),
                                    r * C * P + (size_t)op->rank * C, C);
        return bad;
    }
    case SCATTER:
        return rot_mismatch(op->rbuf, op->F, n, shift_of(op, op->rank), 0, n);
    case SCATTERV:
        return rot_mismatch(op->rbuf, op->F, n, shift_of(op, op->rank), 0,
                            (size_t)op->rcount[op->rank]);
    case GATHER:
    case ALLGATHER:
        for (int i = 0; (op->rank == root || op->kind == ALLGATHER) && i < op->size; i++)
            bad += rot_mismatch(op->rbuf + (size_t)i * n, op->F, n, shift_of(op, i), 0, n);
        return bad;
    case GATHERV:
    case ALLGATHERV:
        if (op->kind == GATHERV && op->rank != root)
            return 0;
        for (int i = 0; i < op->size; i++)
            bad += rot_mismatch(op->rbuf + op->rdispl[i], op->F, n, shift_of(op, i), 0,
                                (size_t)op->rcount[i]);
        return bad;
    }
    return 0;
}
