/*
 * MPI_Reduce_scatter_block, MPI_Reduce_scatter and their non-blocking forms through coll/zip:
 * doubles and floats with SUM, PROD, MIN and MAX, equal, uneven and empty blocks, MPI_IN_PLACE,
 * ints beside them (handed on), two non-blocking calls in flight while the ranks poll, dup/split
 * communicators. Integer-valued data and MIN/MAX must come out exact whoever reduces them; for
 * other data, a run that sets ZT_ZIP_RING=<coll_zip_threshold> (zip on, policy always) expects
 * bit for bit the order zip documents, block b reduced from rank b + 1 onwards,
 * (...((x_{b+1} op x_{b+2}) op ...) op x_b), wherever the blocks reach the threshold on average,
 * and any other run a result within rounding of it.
 */
#include "zt_reduce.h"

/* Element i (of the whole vector) of block b, reduced from rank b + 1 onwards. */
static double ring_reference(int family, MPI_Op op, int salt, int p, int b, size_t i, int flt)
{
    if (flt) {
        float acc = (float)value(family, (b + 1) % p, salt, i);
        for (int k = 2; k <= p; ++k) {
            const float x = (float)value(family, (b + k) % p, salt, i);
            acc = op == MPI_SUM ? acc + x : (float)apply(op, acc, x);
        }
        return acc;
    }
    double acc = value(family, (b + 1) % p, salt, i);
    for (int k = 2; k <= p; ++k)
        acc = apply(op, acc, value(family, (b + k) % p, salt, i));
    return acc;
}

static int element_ok(double got, int family, MPI_Op op, int salt, int p, int b, size_t i, int flt,
                      size_t total_bytes)
{
    const double want = ring_reference(family, op, salt, p, b, i, flt);
    const char *s = getenv("ZT_ZIP_RING");
    const size_t threshold = NULL != s ? (size_t)strtoull(s, NULL, 10) : 0;
    const int exact = INTEGRAL == family || op == MPI_MIN || op == MPI_MAX ||
                      (threshold > 0 && p > 1 && total_bytes / (size_t)p >= threshold);
    if (exact)
        return flt ? (float)got == (float)want : 0 == memcmp(&got, &want, sizeof got);
    return fabs(got - want) <= 1e-5 * fabs(want);
}

/* Elements in block b: `base` for every block (block), or uneven with some empty. */
static int count_of(int b, int base, int uneven)
{
    if (!uneven)
        return base;
    return 1 == b % 3 ? 0 : base + 997 * b;
}

typedef struct call {
    int flt, family, uneven, in_place, nonblocking, salt, base;
    MPI_Op op;
    int *counts;
    char *sbuf, *rbuf;
    size_t total, first, mine, elem;
    MPI_Request req;
} call_t;

static void start(MPI_Comm comm, call_t *c)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    c->elem = c->flt ? sizeof(float) : sizeof(double);
    c->counts = malloc((size_t)p * sizeof(int));
    c->total = c->first = 0;
    for (int b = 0; b < p; ++b) {
        c->counts[b] = count_of(b, c->base, c->uneven);
        if (b < rank)
            c->first += (size_t)c->counts[b];
        c->total += (size_t)c->counts[b];
    }
    c->mine = (size_t)c->counts[rank];
    c->sbuf = malloc(c->total * c->elem + 1);
    c->rbuf = malloc(c->total * c->elem + 1);
    fill(c->sbuf, c->flt, c->family, rank, c->salt, c->total);
    memset(c->rbuf, 0x5a, c->total * c->elem + 1);
    const void *send = c->sbuf;
    if (c->in_place) {
        memcpy(c->rbuf, c->sbuf, c->total * c->elem);
        send = MPI_IN_PLACE;
    }
    MPI_Datatype type = c->flt ? MPI_FLOAT : MPI_DOUBLE;
    c->req = MPI_REQUEST_NULL;
    if (c->uneven && c->nonblocking)
        zt_call(MPI_Ireduce_scatter(send, c->rbuf, c->counts, type, c->op, comm, &c->req),
                "MPI_Ireduce_scatter", rank);
    else if (c->uneven)
        zt_call(MPI_Reduce_scatter(send, c->rbuf, c->counts, type, c->op, comm),
                "MPI_Reduce_scatter", rank);
    else if (c->nonblocking)
        zt_call(MPI_Ireduce_scatter_block(send, c->rbuf, c->base, type, c->op, comm, &c->req),
                "MPI_Ireduce_scatter_block", rank);
    else
        zt_call(MPI_Reduce_scatter_block(send, c->rbuf, c->base, type, c->op, comm),
                "MPI_Reduce_scatter_block", rank);
}

static void check(MPI_Comm comm, call_t *c)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int ok = 1;
    for (size_t i = 0; i < c->mine && ok; ++i)
        ok = element_ok(element(c->rbuf, c->flt, i), c->family, c->op, c->salt, p, rank,
                        c->first + i, c->flt, c->total * c->elem);
    if (!c->in_place) /* MPI leaves the rest of an in-place buffer undefined */
        ok &= (unsigned char)c->rbuf[c->mine * c->elem] == 0x5a || 0 == c->total;
    zt_checkf(ok, rank, "%sreduce_scatter%s %s %s base %d in_place %d op %s",
              c->nonblocking ? "i" : "", c->uneven ? "" : "_block", c->flt ? "float" : "double",
              family_name[c->family], c->base, c->in_place, op_name(c->op));
    free(c->counts);
    free(c->sbuf);
    free(c->rbuf);
}

static void one(MPI_Comm comm, call_t c)
{
    start(comm, &c);
    if (c.nonblocking) {
        int done = 0;
        while (!done)
            MPI_Test(&c.req, &done, MPI_STATUS_IGNORE);
    }
    check(comm, &c);
}

/* Two non-blocking calls in flight, a blocking one between them, polled while computing. */
static void in_flight(MPI_Comm comm, int salt)
{
    call_t a = {.flt = 0,
                .family = SMOOTH,
                .uneven = 0,
                .nonblocking = 1,
                .salt = salt,
                .base = 9000,
                .op = MPI_SUM};
    call_t b = {.flt = 0,
                .family = NOISY,
                .uneven = 1,
                .nonblocking = 1,
                .salt = salt + 1,
                .base = 7000,
                .op = MPI_SUM};
    start(comm, &a);
    start(comm, &b);
    one(comm, (call_t){.family = INTEGRAL, .base = 5000, .op = MPI_SUM, .salt = salt + 2});
    MPI_Request req[2] = {a.req, b.req};
    int rank;
    MPI_Comm_rank(comm, &rank);
    zt_compute_until_done(2, req, rank);
    check(comm, &a);
    check(comm, &b);
}

static void ints(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int n = 5000;
    int *s = malloc((size_t)n * p * sizeof(int)), *r = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n * p; ++i)
        s[i] = rank * 7 + i;
    zt_call(MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, comm), "int", rank);
    int ok = 1;
    for (int i = 0; i < n; ++i)
        ok &= r[i] == 7 * p * (p - 1) / 2 + p * (rank * n + i);
    zt_check(ok, "reduce_scatter_block int", rank);
    free(s);
    free(r);
}

static void run_all(MPI_Comm comm)
{
    static const int bases[] = {0, 1, 600, 2048, 9001, 40000};
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
    int salt = 0;
    for (int nb = 0; nb < 2; ++nb)
        for (int uneven = 0; uneven < 2; ++uneven)
            for (size_t k = 0; k < sizeof bases / sizeof bases[0]; ++k)
                for (int family = 0; family < FAMILIES; ++family)
                    one(comm, (call_t){.family = family,
                                       .uneven = uneven,
                                       .nonblocking = nb,
                                       .in_place = (int)k % 2,
                                       .base = bases[k],
                                       .op = MPI_SUM,
                                       .salt = ++salt});
    for (int o = 1; o < 4; ++o)
        one(comm, (call_t){.family = SMOOTH,
                           .uneven = o % 2,
                           .in_place = o == 2,
                           .base = 9000,
                           .op = ops[o],
                           .salt = ++salt});
    one(comm, (call_t){.flt = 1, .family = SMOOTH, .base = 20000, .op = MPI_SUM, .salt = ++salt});
    one(comm, (call_t){.flt = 1,
                       .family = NOISY,
                       .uneven = 1,
                       .nonblocking = 1,
                       .base = 20000,
                       .op = MPI_SUM,
                       .salt = ++salt});
    in_flight(comm, ++salt * 10);
    ints(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("reduce_scatter");
}
