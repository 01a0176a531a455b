/*
 * A randomized soak of the collectives coll/zip takes, blocking and non-blocking, mixed the way
 * applications mix them. A seed that every rank draws alike picks each call: the operation, the
 * communicator (MPI_COMM_WORLD, duplicates carrying each zip_policy, splits with reordered
 * ranks), the datatype (predefined, strided, contiguous and struct types with holes), uneven and
 * zero counts, the root, MPI_IN_PLACE, NULL for buffers only the root reads, the data (smooth,
 * random bits, zeros with NaN payloads, -0.0, infinities and denormals), and batches of
 * non-blocking calls in flight together with blocking ones on the same communicators.
 *
 * Every rank computes what each of its buffers must hold and compares every byte: the received
 * blocks, the holes of derived types and the gaps between blocks (which must stay untouched),
 * and its send buffers (which must be unchanged). Reductions use integer values, exact in any
 * summation order. A failing call is named with everything needed to run it again.
 *
 * With --threads T (MPI_THREAD_MULTIPLE), T threads per rank each run such a soak at once, each on
 * its own communicators (duplicates and splits of MPI_COMM_WORLD, made one thread after the
 * other) and from its own part of the seed: coll/zip's state shared between communicators (the
 * buffer cache, codec contexts, statistics, the agreed speeds) is what that adds.
 *
 * Usage: test_soak [--seed S] [--steps N] [--max-block BYTES] [--ops bcast,alltoallv,...]
 *                  [--inplace-ialltoallv 1] [--threads T]
 * Prints "PASS: soak ..." on rank 0, or the mismatches and "FAIL: soak ...".
 */
#include <pthread.h>

#include "soak_data.h"

/* The reduction of every rank's block under op, written at buf (integer values: exact). */
static void put_reduced(unsigned char *buf, const soak_type_t *t, int count, int kind, int size,
                        MPI_Op op, uint64_t salt)
{
    for (int j = 0; j < count; ++j) {
        for (int f = 0; f < t->fields; ++f) {
            const uint64_t i = (uint64_t)j * t->fields + f;
            double r = 0.0;
            for (int p = 0; p < size; ++p) {
                /* The contribution as its base type holds it (an int or float of an integer). */
                unsigned char one[8];
                put_element(one, t->base[f], kind, (uint64_t)p, salt, i);
                double v;
                if (B_DOUBLE == t->base[f]) {
                    memcpy(&v, one, 8);
                } else if (B_FLOAT == t->base[f]) {
                    float x;
                    memcpy(&x, one, 4);
                    v = x;
                } else {
                    int32_t x;
                    memcpy(&x, one, 4);
                    v = x;
                }
                if (0 == p)
                    r = v;
                else if (MPI_SUM == op)
                    r += v;
                else if (MPI_MAX == op)
                    r = v > r ? v : r;
                else
                    r = v < r ? v : r;
            }
            unsigned char *dst = buf + (size_t)j * t->extent + t->offset[f];
            if (B_DOUBLE == t->base[f]) {
                memcpy(dst, &r, 8);
            } else if (B_FLOAT == t->base[f]) {
                const float x = (float)r;
                memcpy(dst, &x, 4);
            } else {
                const int32_t x = (int32_t)r;
                memcpy(dst, &x, 4);
            }
        }
    }
}

/* ---- the calls ---- */

enum op {
    OP_BCAST,
    OP_GATHER,
    OP_GATHERV,
    OP_SCATTER,
    OP_SCATTERV,
    OP_ALLGATHER,
    OP_ALLGATHERV,
    OP_ALLTOALL,
    OP_ALLTOALLV,
    OP_ALLREDUCE,
    OP_REDUCE,
    OP_ALLTOALLW,
    OP_REDUCE_SCATTER_BLOCK,
    OP_REDUCE_SCATTER,
    OP_SCAN,
    OP_EXSCAN,
    OPS
};
static const char *const op_name[OPS] = {"bcast",
                                         "gather",
                                         "gatherv",
                                         "scatter",
                                         "scatterv",
                                         "allgather",
                                         "allgatherv",
                                         "alltoall",
                                         "alltoallv",
                                         "allreduce",
                                         "reduce",
                                         "alltoallw",
                                         "reduce_scatter_block",
                                         "reduce_scatter",
                                         "scan",
                                         "exscan"};

enum { COMMS = 7, MAX_THREADS = 8 };
static const char *const comm_name[COMMS] = {"world",         "dup auto",    "dup always",
                                             "dup never",     "dup observe", "split odd/even",
                                             "split reversed"};
/* A thread's own (with --threads; else the process's), as are its draws and reports. */
static _Thread_local MPI_Comm comms[COMMS];

typedef struct {
    int step, op, nb, comm, type, count, root, in_place, kind, null_insignificant;
    MPI_Op redop;
    uint64_t salt;
    MPI_Comm c;
    int rank, size;
    unsigned char *sbuf, *rbuf, *sref, *want;
    size_t sbytes, rbytes;
    int *sc, *sd, *rc, *rd;
    /* alltoallw's datatypes and byte displacements: MPI lets a non-blocking call read its
     * arrays until it completes. */
    MPI_Datatype *wtypes;
    int *wsd, *wrd;
    MPI_Request req;
} call_t;

static _Thread_local uint64_t draw_state;
static uint64_t draw(void)
{
    return zt_mix(draw_state++);
}

static int max_block_bytes = 256 * 1024;
static unsigned op_mask = (1u << OPS) - 1; /* --ops: the operations drawn */
/* Open MPI 4.1.4's own in-place MPI_Ialltoallv (libnbc, to which zip hands in-place calls) gives
 * wrong data from 4 ranks when some counts are zero: its schedule then drops the round barrier
 * between sending a block and receiving the peer's block into the same place. Drawn only with
 * --inplace-ialltoallv 1. */
static int inplace_ialltoallv;

/* Items of a uniform block: zero, tiny, around the threshold and the segment sizes, large. */
static int draw_count(const soak_type_t *t)
{
    static const int classes[] = {0, 1, 2, 7, 100, 1023, 2048, 4099, 10007, 32768, 65539};
    int n = classes[draw() % (sizeof classes / sizeof classes[0])];
    const int cap = max_block_bytes / t->extent;
    return n > cap ? cap : n;
}

/* Items rank `from` gives `to` in a v-collective: the call's count, a third of it, one more, or
 * none. Symmetric when `symmetric` (MPI_IN_PLACE alltoallv needs it). */
static int vcount(const call_t *k, int from, int to, int symmetric)
{
    if (symmetric && from > to) {
        const int x = from;
        from = to;
        to = x;
    }
    switch (zt_mix(k->salt ^ ((uint64_t)from << 16) ^ (uint64_t)to ^ 0xabc) % 5) {
    case 0:
        return 0;
    case 1:
        return k->count / 3;
    case 2:
        return k->count + 1;
    default:
        return k->count;
    }
}

/* Owners of the blocks: a rank's own contribution, a scatter's block for rank p, an alltoall's
 * block from p to q. */
static uint64_t scatter_owner(int p)
{
    return 1000u + (uint64_t)p;
}
static uint64_t a2a_owner(int p, int q, int size)
{
    return 2000u + (uint64_t)p * (uint64_t)size + (uint64_t)q;
}

/* Displacements back to front with one item of gap before each block; returns items spanned. */
static int reversed_displs(int size, const int *counts, int *displs)
{
    int total = 0;
    for (int p = size - 1; p >= 0; --p) {
        displs[p] = total + 1;
        total += counts[p] + 1;
    }
    return total;
}

static void plan(call_t *k, int step)
{
    memset(k, 0, sizeof *k);
    k->step = step;
    k->salt = (uint64_t)step + 1;
    do {
        k->op = (int)(draw() % OPS);
    } while (!(op_mask & (1u << k->op)));
    k->comm = (int)(draw() % COMMS);
    k->c = comms[k->comm];
    MPI_Comm_rank(k->c, &k->rank);
    MPI_Comm_size(k->c, &k->size);
    /* Open MPI 4.1.4's coll/self, which takes communicators of one rank, scales alltoallw's byte
     * displacements by the extent: not zip's to test. */
    if (OP_ALLTOALLW == k->op && 1 == k->size)
        k->op = OP_ALLTOALLV;
    const int reduces = OP_ALLREDUCE == k->op || OP_REDUCE == k->op ||
                        OP_REDUCE_SCATTER_BLOCK == k->op || OP_REDUCE_SCATTER == k->op ||
                        OP_SCAN == k->op || OP_EXSCAN == k->op;
    do {
        k->type = (int)(draw() % TYPES);
    } while (reduces && !types[k->type].reducible);
    k->count = draw_count(&types[k->type]);
    k->root = (int)(draw() % (uint64_t)k->size);
    k->in_place = 0 == draw() % 3;
    k->null_insignificant = (int)(draw() % 2);
    k->kind = reduces ? (0 == draw() % 2 ? K_INTEGRAL : K_INTEGRAL_SMOOTH) : (int)(draw() % 3);
    static const MPI_Op redops[3] = {MPI_SUM, MPI_MAX, MPI_MIN};
    k->redop = redops[draw() % 3];
    if (OP_BCAST == k->op)
        k->in_place = 0;
}

/* The send buffer of a call whose every rank sends its own block (gather, allgather, reduce). */
static void own_block(call_t *k, int count)
{
    const soak_type_t *t = &types[k->type];
    k->sbytes = (size_t)count * t->extent;
    k->sbuf = alloc_bytes(k->sbytes, SENTINEL);
    put_block(k->sbuf, 0, t, count, k->kind, (uint64_t)k->rank, k->salt);
}

/* Allocates and fills the buffers, places what MPI_IN_PLACE expects, and computes `want`. */
static void prepare(call_t *k)
{
    const soak_type_t *t = &types[k->type];
    const int E = t->extent, P = k->size, me = k->rank, c = k->count;
    const int root = k->rank == k->root;
    const size_t blk = (size_t)c * E;
    switch (k->op) {
    case OP_BCAST:
        k->rbytes = blk;
        k->rbuf = alloc_bytes(blk, SENTINEL);
        k->want = alloc_bytes(blk, SENTINEL);
        put_block(k->want, 0, t, c, k->kind, (uint64_t)k->root, k->salt);
        if (root)
            memcpy(k->rbuf, k->want, blk);
        break;
    case OP_GATHER:
    case OP_ALLGATHER: {
        const int all = OP_ALLGATHER == k->op;
        own_block(k, c);
        if (all || root || !k->null_insignificant) {
            k->rbytes = blk * P;
            k->rbuf = alloc_bytes(k->rbytes, SENTINEL);
            k->want = alloc_bytes(k->rbytes, SENTINEL);
            if (all || root) {
                for (int p = 0; p < P; ++p)
                    put_block(k->want, (size_t)p * blk, t, c, k->kind, (uint64_t)p, k->salt);
                if (k->in_place)
                    memcpy(k->rbuf + (size_t)me * blk, k->sbuf, blk);
            }
        }
        break;
    }
    case OP_GATHERV:
    case OP_ALLGATHERV: {
        const int all = OP_ALLGATHERV == k->op;
        own_block(k, vcount(k, me, 0, 0));
        if (all || root || !k->null_insignificant) {
            k->rc = malloc(P * sizeof(int));
            k->rd = malloc(P * sizeof(int));
            for (int p = 0; p < P; ++p)
                k->rc[p] = vcount(k, p, 0, 0);
            k->rbytes = (size_t)reversed_displs(P, k->rc, k->rd) * E;
            k->rbuf = alloc_bytes(k->rbytes, SENTINEL);
            k->want = alloc_bytes(k->rbytes, SENTINEL);
            if (all || root) {
                for (int p = 0; p < P; ++p)
                    put_block(k->want, (size_t)k->rd[p] * E, t, k->rc[p], k->kind, (uint64_t)p,
                              k->salt);
                if (k->in_place)
                    memcpy(k->rbuf + (size_t)k->rd[me] * E, k->sbuf, k->sbytes);
            }
        }
        break;
    }
    case OP_SCATTER:
        if (root || !k->null_insignificant) {
            k->sbytes = blk * P;
            k->sbuf = alloc_bytes(k->sbytes, SENTINEL);
            if (root)
                for (int p = 0; p < P; ++p)
                    put_block(k->sbuf, (size_t)p * blk, t, c, k->kind, scatter_owner(p), k->salt);
        }
        k->rbytes = blk;
        k->rbuf = alloc_bytes(blk, SENTINEL);
        k->want = alloc_bytes(blk, SENTINEL);
        if (root && k->in_place)
            memcpy(k->want, k->rbuf, blk); /* the receive buffer is not used */
        else
            put_block(k->want, 0, t, c, k->kind, scatter_owner(me), k->salt);
        break;
    case OP_SCATTERV:
        if (root || !k->null_insignificant) {
            k->sc = malloc(P * sizeof(int));
            k->sd = malloc(P * sizeof(int));
            for (int p = 0; p < P; ++p)
                k->sc[p] = vcount(k, p, 0, 0);
            k->sbytes = (size_t)reversed_displs(P, k->sc, k->sd) * E;
            k->sbuf = alloc_bytes(k->sbytes, SENTINEL);
            if (root)
                for (int p = 0; p < P; ++p)
                    put_block(k->sbuf, (size_t)k->sd[p] * E, t, k->sc[p], k->kind, scatter_owner(p),
                              k->salt);
        }
        k->rbytes = (size_t)vcount(k, me, 0, 0) * E;
        k->rbuf = alloc_bytes(k->rbytes, SENTINEL);
        k->want = alloc_bytes(k->rbytes, SENTINEL);
        if (!(root && k->in_place))
            put_block(k->want, 0, t, vcount(k, me, 0, 0), k->kind, scatter_owner(me), k->salt);
        break;
    case OP_ALLTOALL:
        k->sbytes = k->rbytes = blk * P;
        k->sbuf = alloc_bytes(k->sbytes, SENTINEL);
        k->rbuf = alloc_bytes(k->rbytes, SENTINEL);
        k->want = alloc_bytes(k->rbytes, SENTINEL);
        for (int q = 0; q < P; ++q) {
            put_block(k->sbuf, (size_t)q * blk, t, c, k->kind, a2a_owner(me, q, P), k->salt);
            put_block(k->want, (size_t)q * blk, t, c, k->kind, a2a_owner(q, me, P), k->salt);
        }
        if (k->in_place)
            memcpy(k->rbuf, k->sbuf, k->sbytes);
        break;
    case OP_ALLTOALLV:
    case OP_ALLTOALLW: {
        k->sc = malloc(P * sizeof(int));
        k->sd = malloc(P * sizeof(int));
        k->rc = malloc(P * sizeof(int));
        k->rd = malloc(P * sizeof(int));
        int stotal = 0;
        for (int q = 0; q < P; ++q) {
            k->sc[q] = vcount(k, me, q, k->in_place);
            k->rc[q] = vcount(k, q, me, k->in_place);
            k->sd[q] = stotal + 2;
            stotal += k->sc[q] + 2;
        }
        k->rbytes = (size_t)reversed_displs(P, k->rc, k->rd) * E;
        k->rbuf = alloc_bytes(k->rbytes, SENTINEL);
        k->want = alloc_bytes(k->rbytes, SENTINEL);
        for (int q = 0; q < P; ++q)
            put_block(k->want, (size_t)k->rd[q] * E, t, k->rc[q], k->kind, a2a_owner(q, me, P),
                      k->salt);
        if (k->in_place) {
            /* What is sent is read from the receive buffer, at the receive layout. */
            for (int q = 0; q < P; ++q)
                put_block(k->rbuf, (size_t)k->rd[q] * E, t, k->rc[q], k->kind, a2a_owner(me, q, P),
                          k->salt);
        } else {
            k->sbytes = (size_t)stotal * E;
            k->sbuf = alloc_bytes(k->sbytes, SENTINEL);
            for (int q = 0; q < P; ++q)
                put_block(k->sbuf, (size_t)k->sd[q] * E, t, k->sc[q], k->kind, a2a_owner(me, q, P),
                          k->salt);
        }
        break;
    }
    case OP_REDUCE_SCATTER_BLOCK:
    case OP_REDUCE_SCATTER: {
        /* Block b of the reduced vector to rank b: c items each, or uneven (the same counts on
         * every rank, as MPI requires). In place the whole vector is in the receive buffer,
         * and only the block at its start is defined afterwards. */
        k->rc = malloc(P * sizeof(int));
        int total = 0, first = 0;
        for (int b = 0; b < P; ++b) {
            k->rc[b] = OP_REDUCE_SCATTER_BLOCK == k->op ? c : vcount(k, b, 0, 0);
            first += b < me ? k->rc[b] : 0;
            total += k->rc[b];
        }
        own_block(k, total);
        unsigned char *reduced = alloc_bytes((size_t)total * E, SENTINEL);
        put_reduced(reduced, t, total, k->kind, P, k->redop, k->salt);
        k->rbytes = (size_t)k->rc[me] * E;
        k->rbuf = alloc_bytes(k->in_place ? k->sbytes : k->rbytes, SENTINEL);
        k->want = alloc_bytes(k->rbytes, SENTINEL);
        memcpy(k->want, reduced + (size_t)first * E, k->rbytes);
        free(reduced);
        if (k->in_place)
            memcpy(k->rbuf, k->sbuf, k->sbytes);
        break;
    }
    case OP_SCAN:
    case OP_EXSCAN: {
        /* The prefix of ranks 0 .. me (exscan: .. me - 1); an exscan leaves rank 0's buffer as
         * it was (MPI: undefined; Open MPI's and zip's do not write it). */
        const int upto = OP_SCAN == k->op ? me + 1 : me;
        own_block(k, c);
        k->rbytes = blk;
        k->rbuf = alloc_bytes(blk, SENTINEL);
        k->want = alloc_bytes(blk, SENTINEL);
        if (k->in_place)
            memcpy(k->rbuf, k->sbuf, blk);
        if (upto > 0)
            put_reduced(k->want, t, c, k->kind, upto, k->redop, k->salt);
        else
            memcpy(k->want, k->rbuf, blk);
        break;
    }
    case OP_ALLREDUCE:
    case OP_REDUCE: {
        const int all = OP_ALLREDUCE == k->op;
        own_block(k, c);
        if (all || root) {
            k->rbytes = blk;
            k->rbuf = alloc_bytes(blk, SENTINEL);
            k->want = alloc_bytes(blk, SENTINEL);
            put_reduced(k->want, t, c, k->kind, P, k->redop, k->salt);
            if (k->in_place)
                memcpy(k->rbuf, k->sbuf, blk);
        }
        break;
    }
    }
    if (NULL != k->sbuf) {
        k->sref = alloc_bytes(k->sbytes, 0);
        memcpy(k->sref, k->sbuf, k->sbytes);
    }
}

static int types_extent(const call_t *k)
{
    return types[k->type].extent;
}

/* Starts (nb) or runs the call; returns MPI's error code. */
static int issue(call_t *k)
{
    const MPI_Datatype T = types[k->type].type;
    const int c = k->count, root = k->rank == k->root, nb = k->nb;
    MPI_Request *r = &k->req;
    const void *s = k->sbuf;
    void *rb = k->rbuf;
    switch (k->op) {
    case OP_BCAST:
        return nb ? MPI_Ibcast(rb, c, T, k->root, k->c, r) : MPI_Bcast(rb, c, T, k->root, k->c);
    case OP_GATHER:
        if (root && k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Igather(s, c, T, rb, c, T, k->root, k->c, r)
                  : MPI_Gather(s, c, T, rb, c, T, k->root, k->c);
    case OP_ALLGATHER:
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Iallgather(s, c, T, rb, c, T, k->c, r)
                  : MPI_Allgather(s, c, T, rb, c, T, k->c);
    case OP_GATHERV: {
        const int mine = vcount(k, k->rank, 0, 0);
        if (root && k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Igatherv(s, mine, T, rb, k->rc, k->rd, T, k->root, k->c, r)
                  : MPI_Gatherv(s, mine, T, rb, k->rc, k->rd, T, k->root, k->c);
    }
    case OP_ALLGATHERV: {
        const int mine = vcount(k, k->rank, 0, 0);
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Iallgatherv(s, mine, T, rb, k->rc, k->rd, T, k->c, r)
                  : MPI_Allgatherv(s, mine, T, rb, k->rc, k->rd, T, k->c);
    }
    case OP_SCATTER:
        if (root && k->in_place)
            rb = MPI_IN_PLACE;
        return nb ? MPI_Iscatter(s, c, T, rb, c, T, k->root, k->c, r)
                  : MPI_Scatter(s, c, T, rb, c, T, k->root, k->c);
    case OP_SCATTERV: {
        const int mine = vcount(k, k->rank, 0, 0);
        if (root && k->in_place)
            rb = MPI_IN_PLACE;
        return nb ? MPI_Iscatterv(s, k->sc, k->sd, T, rb, mine, T, k->root, k->c, r)
                  : MPI_Scatterv(s, k->sc, k->sd, T, rb, mine, T, k->root, k->c);
    }
    case OP_ALLTOALL:
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Ialltoall(s, c, T, rb, c, T, k->c, r)
                  : MPI_Alltoall(s, c, T, rb, c, T, k->c);
    case OP_ALLTOALLV:
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Ialltoallv(s, k->sc, k->sd, T, rb, k->rc, k->rd, T, k->c, r)
                  : MPI_Alltoallv(s, k->sc, k->sd, T, rb, k->rc, k->rd, T, k->c);
    case OP_ALLTOALLW: {
        /* alltoallv's blocks, as alltoallw gives them: a datatype and byte displacement each. */
        MPI_Datatype *types = k->wtypes = malloc(k->size * sizeof(MPI_Datatype));
        int *sd = k->wsd = malloc(k->size * sizeof(int)),
            *rd = k->wrd = malloc(k->size * sizeof(int));
        for (int q = 0; q < k->size; ++q) {
            types[q] = T;
            sd[q] = k->sd[q] * types_extent(k);
            rd[q] = k->rd[q] * types_extent(k);
        }
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Ialltoallw(s, k->sc, sd, types, rb, k->rc, rd, types, k->c, r)
                  : MPI_Alltoallw(s, k->sc, sd, types, rb, k->rc, rd, types, k->c);
    }
    case OP_REDUCE_SCATTER_BLOCK:
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Ireduce_scatter_block(s, rb, c, T, k->redop, k->c, r)
                  : MPI_Reduce_scatter_block(s, rb, c, T, k->redop, k->c);
    case OP_REDUCE_SCATTER:
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Ireduce_scatter(s, rb, k->rc, T, k->redop, k->c, r)
                  : MPI_Reduce_scatter(s, rb, k->rc, T, k->redop, k->c);
    case OP_ALLREDUCE:
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Iallreduce(s, rb, c, T, k->redop, k->c, r)
                  : MPI_Allreduce(s, rb, c, T, k->redop, k->c);
    case OP_SCAN:
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Iscan(s, rb, c, T, k->redop, k->c, r)
                  : MPI_Scan(s, rb, c, T, k->redop, k->c);
    case OP_EXSCAN:
        if (k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Iexscan(s, rb, c, T, k->redop, k->c, r)
                  : MPI_Exscan(s, rb, c, T, k->redop, k->c);
    default:
        if (root && k->in_place)
            s = MPI_IN_PLACE;
        return nb ? MPI_Ireduce(s, rb, c, T, k->redop, k->root, k->c, r)
                  : MPI_Reduce(s, rb, c, T, k->redop, k->root, k->c);
    }
}

static int wrank;
static _Thread_local int reported;

static void describe(const call_t *k, char *out, size_t n)
{
    snprintf(out, n,
             "step %d: %s%s on %s, type %s, count %d, root %d, in_place %d, data %s, op %s, "
             "null buffers %d",
             k->step, k->nb ? "i" : "", op_name[k->op], comm_name[k->comm], types[k->type].name,
             k->count, k->root, k->in_place, kind_name[k->kind],
             MPI_SUM == k->redop   ? "sum"
             : MPI_MAX == k->redop ? "max"
                                   : "min",
             k->null_insignificant);
}

static int mismatch(const call_t *k, const char *what, const unsigned char *got,
                    const unsigned char *want, size_t n)
{
    if (0 == n || 0 == memcmp(got, want, n))
        return 0;
    size_t at = 0;
    while (got[at] == want[at])
        ++at;
    if (reported++ < 8) {
        char d[256];
        describe(k, d, sizeof d);
        fprintf(stderr,
                "MISMATCH world rank %d (rank %d of %d): %s: %s byte %zu of %zu: got %02x want "
                "%02x\n",
                wrank, k->rank, k->size, d, what, at, n, got[at], want[at]);
    }
    return 1;
}

/* Checks the buffers after completion and frees them; returns the mismatches. */
static int check(call_t *k)
{
    int bad = 0;
    if (NULL != k->want)
        bad += mismatch(k, "receive buffer", k->rbuf, k->want, k->rbytes);
    else if (NULL != k->rbuf) {
        /* A buffer only the root reads, passed anyway: it must not be written. */
        unsigned char *untouched = alloc_bytes(k->rbytes, SENTINEL);
        bad += mismatch(k, "buffer insignificant here", k->rbuf, untouched, k->rbytes);
        free(untouched);
    }
    if (NULL != k->sref)
        bad += mismatch(k, "send buffer", k->sbuf, k->sref, k->sbytes);
    free(k->sbuf);
    free(k->rbuf);
    free(k->sref);
    free(k->want);
    free(k->sc);
    free(k->sd);
    free(k->rc);
    free(k->rd);
    free(k->wtypes);
    free(k->wsd);
    free(k->wrd);
    return bad;
}

static int failed_call(const call_t *k, int rc)
{
    if (MPI_SUCCESS == rc)
        return 0;
    char d[256], msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    describe(k, d, sizeof d);
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "ERROR world rank %d: %s: %s\n", wrank, d, msg);
    return 1;
}

static void make_comms(int threaded)
{
    static const char *const policies[4] = {"auto", "always", "never", "observe"};
    comms[0] = MPI_COMM_WORLD;
    if (threaded) /* MPI forbids collectives on one communicator from two threads at once */
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    for (int i = 0; i < 4; ++i) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "zip_policy", policies[i]);
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comms[1 + i]);
        MPI_Info_free(&info);
    }
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comms[5]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -wrank, &comms[6]);
    for (int i = 0; i < COMMS; ++i)
        MPI_Comm_set_errhandler(comms[i], MPI_ERRORS_RETURN);
}

static uint64_t seed = 1;
static int steps = 150, threads = 1;

/* One soak: a thread's (with --threads) or the process's. */
typedef struct {
    int id;
    int bad, calls, nbcalls;
} soak_t;

/* Threads make their communicators in turn: every rank's threads then create them in one order. */
static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static int turn;

static void *run_soak(void *arg)
{
    soak_t *s = arg;
    pthread_mutex_lock(&turn_lock);
    while (turn != s->id)
        pthread_cond_wait(&turn_cond, &turn_lock);
    make_comms(threads > 1);
    ++turn;
    pthread_cond_broadcast(&turn_cond);
    pthread_mutex_unlock(&turn_lock);
    draw_state = zt_mix(seed + 0x10001u * (uint64_t)s->id);

    int bad = 0, calls = 0, nbcalls = 0;
    enum { BATCH = 4 };
    for (int step = 0; step < steps; ++step) {
        call_t batch[BATCH];
        /* A single blocking call, or up to four calls in flight together (a blocking one among
         * them runs while the non-blocking ones before it are pending). */
        const int n = 0 == draw() % 2 ? 1 : 1 + (int)(draw() % BATCH);
        const int single = 1 == n && 0 == draw() % 2;
        for (int i = 0; i < n; ++i) {
            plan(&batch[i], step * BATCH + i);
            batch[i].nb = !single && 0 != draw() % 4;
            /* libnbc's in-place ialltoallw, to which zip hands it, shares ialltoallv's flaw. */
            if (batch[i].nb && ((OP_ALLTOALLV == batch[i].op && !inplace_ialltoallv) ||
                                OP_ALLTOALLW == batch[i].op))
                batch[i].in_place = 0;
            batch[i].req = MPI_REQUEST_NULL;
            prepare(&batch[i]);
            bad += failed_call(&batch[i], issue(&batch[i]));
            ++calls;
            nbcalls += batch[i].nb;
        }
        const int test_loop = (int)(draw() % 2);
        MPI_Request reqs[BATCH];
        for (int i = 0; i < n; ++i)
            reqs[i] = batch[i].req;
        if (test_loop) {
            /* As a computing rank would: test now and then until all are done. */
            int done = 0;
            while (!done) {
                volatile double x = 0.0;
                for (int w = 0; w < 2000; ++w)
                    x += sqrt((double)w);
                if (MPI_SUCCESS != MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE)) {
                    fprintf(stderr, "ERROR world rank %d: MPI_Testall failed at step %d\n", wrank,
                            step);
                    ++bad;
                    break;
                }
            }
        } else if (MPI_SUCCESS != MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE)) {
            fprintf(stderr, "ERROR world rank %d: MPI_Waitall failed at step %d\n", wrank, step);
            ++bad;
        }
        for (int i = 0; i < n; ++i)
            bad += check(&batch[i]);
    }

    for (int i = threads > 1 ? 0 : 1; i < COMMS; ++i)
        MPI_Comm_free(&comms[i]);
    s->bad = bad;
    s->calls = calls;
    s->nbcalls = nbcalls;
    return NULL;
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (0 == strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (0 == strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);
        else if (0 == strcmp(argv[i], "--max-block"))
            max_block_bytes = atoi(argv[i + 1]);
        else if (0 == strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (0 == strcmp(argv[i], "--inplace-ialltoallv"))
            inplace_ialltoallv = atoi(argv[i + 1]);
        else if (0 == strcmp(argv[i], "--ops")) {
            op_mask = 0;
            for (int o = 0; o < OPS; ++o) {
                char name[32];
                snprintf(name, sizeof name, ",%s,", op_name[o]);
                char list[256];
                snprintf(list, sizeof list, ",%s,", argv[i + 1]);
                if (NULL != strstr(list, name))
                    op_mask |= 1u << o;
            }
        }
    }
    if (threads < 1 || threads > MAX_THREADS)
        threads = threads < 1 ? 1 : MAX_THREADS;
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, threads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (threads > 1 && provided < MPI_THREAD_MULTIPLE) {
        if (0 == wrank)
            printf("SKIP: soak (no MPI_THREAD_MULTIPLE)\n");
        MPI_Finalize();
        return 0;
    }
    make_types();
    soak_t soaks[MAX_THREADS];
    memset(soaks, 0, sizeof soaks);
    pthread_t tid[MAX_THREADS];
    for (int i = 0; i < threads; ++i) {
        soaks[i].id = i;
        if (1 == threads)
            run_soak(&soaks[0]);
        else
            pthread_create(&tid[i], NULL, run_soak, &soaks[i]);
    }
    for (int i = 0; threads > 1 && i < threads; ++i)
        pthread_join(tid[i], NULL);
    int bad = 0, calls = 0, nbcalls = 0;
    for (int i = 0; i < threads; ++i) {
        bad += soaks[i].bad;
        calls += soaks[i].calls;
        nbcalls += soaks[i].nbcalls;
    }

    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free_types();
    if (0 == wrank) {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        char each[32] = "";
        if (threads > 1)
            snprintf(each, sizeof each, "%d threads, ", threads);
        printf("%s: soak (seed %llu, %d ranks, %s%d calls, %d non-blocking, %d mismatches)\n",
               0 == total ? "PASS" : "FAIL", (unsigned long long)seed, size, each, calls, nbcalls,
               total);
    }
    MPI_Finalize();
    return 0;
}
