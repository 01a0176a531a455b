/*
 * MPI_Scan, MPI_Exscan and their non-blocking forms through coll/zip: doubles and floats with
 * SUM, PROD, MIN and MAX, counts from 0 to 100000, MPI_IN_PLACE, ints beside them (handed on),
 * a scan and an exscan in flight together while the ranks poll, dup/split communicators.
 * Open MPI's own scans (coll/basic's and libnbc's linear ones, the defaults) and zip's chain
 * both sum left to right, scan(i) = (...((x_0 op x_1) op x_2) ...) op x_i and exscan(i) the same
 * up to x_i-1, so every result must equal that reference bit for bit, zip on or off; an
 * exscan leaves rank 0's receive buffer as it was.
 */
#include "zt_reduce.h"

/* Element i of the prefix of ranks 0 .. last (none: last < 0), as Open MPI's linear scan sums. */
static double prefix(int family, MPI_Op op, int salt, int last, size_t i, int flt)
{
    if (flt) {
        float acc = (float)value(family, 0, salt, i);
        for (int k = 1; k <= last; ++k) {
            const float x = (float)value(family, k, salt, i);
            acc = op == MPI_SUM ? acc + x : (float)apply(op, acc, x);
        }
        return acc;
    }
    double acc = value(family, 0, salt, i);
    for (int k = 1; k <= last; ++k)
        acc = apply(op, acc, value(family, k, salt, i));
    return acc;
}

typedef struct call {
    int flt, family, exclusive, in_place, nonblocking, salt, count;
    MPI_Op op;
    char *sbuf, *rbuf;
    size_t elem;
    MPI_Request req;
} call_t;

static const unsigned char kUntouched = 0x5a;

static void start(MPI_Comm comm, call_t *c)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    c->elem = c->flt ? sizeof(float) : sizeof(double);
    const size_t bytes = (size_t)c->count * c->elem;
    c->sbuf = malloc(bytes + 1);
    c->rbuf = malloc(bytes + 1);
    fill(c->sbuf, c->flt, c->family, rank, c->salt, (size_t)c->count);
    memset(c->rbuf, kUntouched, bytes + 1);
    const void *send = c->sbuf;
    if (c->in_place) {
        memcpy(c->rbuf, c->sbuf, bytes);
        send = MPI_IN_PLACE;
    }
    MPI_Datatype type = c->flt ? MPI_FLOAT : MPI_DOUBLE;
    c->req = MPI_REQUEST_NULL;
    if (c->exclusive && c->nonblocking)
        zt_call(MPI_Iexscan(send, c->rbuf, c->count, type, c->op, comm, &c->req), "MPI_Iexscan",
                rank);
    else if (c->exclusive)
        zt_call(MPI_Exscan(send, c->rbuf, c->count, type, c->op, comm), "MPI_Exscan", rank);
    else if (c->nonblocking)
        zt_call(MPI_Iscan(send, c->rbuf, c->count, type, c->op, comm, &c->req), "MPI_Iscan", rank);
    else
        zt_call(MPI_Scan(send, c->rbuf, c->count, type, c->op, comm), "MPI_Scan", rank);
}

static void check(MPI_Comm comm, call_t *c)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    const size_t bytes = (size_t)c->count * c->elem;
    int ok = 1;
    if (c->exclusive && 0 == rank) {
        /* Rank 0 has no prefix: its buffer holds what it held (in place: its contribution). */
        for (size_t b = 0; b < bytes && ok; ++b)
            ok =
                (unsigned char)c->rbuf[b] == (c->in_place ? (unsigned char)c->sbuf[b] : kUntouched);
    } else {
        const int last = c->exclusive ? rank - 1 : rank;
        for (size_t i = 0; i < (size_t)c->count && ok; ++i) {
            const double want = prefix(c->family, c->op, c->salt, last, i, c->flt);
            const double got = element(c->rbuf, c->flt, i);
            ok = c->flt ? (float)got == (float)want : 0 == memcmp(&got, &want, sizeof got);
        }
    }
    ok &= (unsigned char)c->rbuf[bytes] == kUntouched;
    zt_checkf(ok, rank, "%s%sscan %s %s count %d in_place %d op %s", c->nonblocking ? "i" : "",
              c->exclusive ? "ex" : "", c->flt ? "float" : "double", family_name[c->family],
              c->count, c->in_place, op_name(c->op));
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

/* A scan and an exscan in flight, a blocking scan between them, polled while computing. */
static void in_flight(MPI_Comm comm, int salt)
{
    call_t a = {.family = SMOOTH, .nonblocking = 1, .salt = salt, .count = 60000, .op = MPI_SUM};
    call_t b = {.flt = 1,
                .family = NOISY,
                .exclusive = 1,
                .nonblocking = 1,
                .salt = salt + 1,
                .count = 70001,
                .op = MPI_SUM};
    start(comm, &a);
    start(comm, &b);
    one(comm, (call_t){.family = INTEGRAL, .count = 50000, .op = MPI_MAX, .salt = salt + 2});
    MPI_Request req[2] = {a.req, b.req};
    int rank;
    MPI_Comm_rank(comm, &rank);
    zt_compute_until_done(2, req, rank);
    check(comm, &a);
    check(comm, &b);
}

static void ints(MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    const int n = 30000;
    int *s = malloc((size_t)n * sizeof(int)), *r = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; ++i)
        s[i] = rank * 7 + i;
    zt_call(MPI_Scan(s, r, n, MPI_INT, MPI_SUM, comm), "int scan", rank);
    int ok = 1;
    for (int i = 0; i < n; ++i)
        ok &= r[i] == 7 * rank * (rank + 1) / 2 + (rank + 1) * i;
    zt_check(ok, "scan int", rank);
    free(s);
    free(r);
}

static void run_all(MPI_Comm comm)
{
    static const int counts[] = {0, 1, 1000, 20000, 70001, 100000};
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
    int salt = 0;
    for (int exclusive = 0; exclusive < 2; ++exclusive)
        for (int nb = 0; nb < 2; ++nb)
            for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k)
                for (int family = 0; family < FAMILIES; ++family)
                    one(comm, (call_t){.flt = (int)(k + (size_t)family) % 2,
                                       .family = family,
                                       .exclusive = exclusive,
                                       .nonblocking = nb,
                                       .in_place = (int)(k / 2) % 2,
                                       .count = counts[k],
                                       .op = MPI_SUM,
                                       .salt = ++salt});
    for (int o = 1; o < 4; ++o)
        for (int exclusive = 0; exclusive < 2; ++exclusive)
            one(comm, (call_t){.flt = o % 2,
                               .family = SMOOTH,
                               .exclusive = exclusive,
                               .nonblocking = o == 2,
                               .in_place = exclusive,
                               .count = 100000,
                               .op = ops[o],
                               .salt = ++salt});
    in_flight(comm, 1000);
    ints(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("scan");
}
