/*
 * The non-blocking collectives coll/zip compresses: MPI_Ialltoall(v), MPI_Igather(v),
 * MPI_Iscatter(v) and MPI_Iallgather(v). Every root, counts from empty and below the threshold
 * (handed on) to large, uneven and zero blocks in the v-forms, smooth and random doubles, on
 * MPI_COMM_WORLD, a duplicate and a split; ranks that compute and poll MPI_Test until their
 * call completes; all eight calls in flight at once on one communicator, and calls in flight on
 * several communicators and on communicators freed while they are; MPI_IN_PLACE (taken by
 * iallgather, handed on by ialltoall).
 * Bit-exact against data each rank computes, the same with zip on or off.
 * "--short": one pass on MPI_COMM_WORLD only (the 8-rank run).
 */
#include "zt_common.h"

static int is_v(int op)
{
    return ZT_IALLTOALLV == op || ZT_IGATHERV == op || ZT_ISCATTERV == op || ZT_IALLGATHERV == op;
}

static int rooted(int op)
{
    return ZT_IGATHER == op || ZT_IGATHERV == op || ZT_ISCATTER == op || ZT_ISCATTERV == op;
}

/* One call in flight: what this rank sends and receives, block p to or from rank p. */
typedef struct {
    int op, count, kind, root, salt, rank, size;
    MPI_Comm comm;
    double *sbuf, *rbuf;
    int *scounts, *sdisps, *rcounts, *rdisps;
    MPI_Request req;
} call_t;

/* Elements `from` sends `to`: the call's count, or in the v-forms uneven, some blocks empty. */
static int count_of(const call_t *c, int from, int to)
{
    if (!is_v(c->op))
        return c->count;
    if ((from * 3 + to * 5 + c->salt) % 4 == 0)
        return 0;
    return c->count + 37 * ((from + 2 * to) % 3);
}

static uint64_t salt_of(const call_t *c, int to)
{
    return (uint64_t)(to * 7 + c->salt);
}

/* allgather(v): the owner's block goes to everyone, salted once. */
static int to_of(const call_t *c, int to, int owner)
{
    return ZT_IALLGATHER == c->op || ZT_IALLGATHERV == c->op ? owner : to;
}

static void layout(int size, const int *counts, int *disps, int *total)
{
    *total = 0;
    for (int p = 0; p < size; ++p) {
        disps[p] = *total;
        *total += counts[p];
    }
}

static void start(call_t *c)
{
    const int n = c->size, r = c->rank, root = c->root;
    c->scounts = calloc(n, sizeof(int));
    c->sdisps = calloc(n, sizeof(int));
    c->rcounts = calloc(n, sizeof(int));
    c->rdisps = calloc(n, sizeof(int));
    for (int p = 0; p < n; ++p) {
        switch (c->op) {
        case ZT_IALLTOALL:
        case ZT_IALLTOALLV:
            c->scounts[p] = count_of(c, r, p);
            c->rcounts[p] = count_of(c, p, r);
            break;
        case ZT_IGATHER:
        case ZT_IGATHERV:
            c->scounts[p] = p == root ? count_of(c, r, root) : 0;
            c->rcounts[p] = r == root ? count_of(c, p, root) : 0;
            break;
        case ZT_ISCATTER:
        case ZT_ISCATTERV:
            c->scounts[p] = r == root ? count_of(c, root, p) : 0;
            c->rcounts[p] = p == root ? count_of(c, root, r) : 0;
            break;
        default:
            c->scounts[p] = p == r ? count_of(c, r, r) : 0;
            c->rcounts[p] = count_of(c, p, p);
        }
    }
    int stotal, rtotal;
    layout(n, c->scounts, c->sdisps, &stotal);
    layout(n, c->rcounts, c->rdisps, &rtotal);
    c->sbuf = malloc(((size_t)stotal + 1) * sizeof(double));
    c->rbuf = malloc(((size_t)rtotal + 1) * sizeof(double));
    for (int p = 0; p < n; ++p)
        zt_fill(c->sbuf + c->sdisps[p], c->scounts[p], c->kind, r, salt_of(c, to_of(c, p, r)));
    for (int i = 0; i < rtotal; ++i)
        c->rbuf[i] = -3.0;
    double *s = c->sbuf, *rb = c->rbuf;
    const int k = c->count;
    MPI_Comm comm = c->comm;
    MPI_Request *q = &c->req;
    int rc;
    switch (c->op) {
    case ZT_IALLTOALL:
        rc = MPI_Ialltoall(s, k, MPI_DOUBLE, rb, k, MPI_DOUBLE, comm, q);
        break;
    case ZT_IALLTOALLV:
        rc = MPI_Ialltoallv(s, c->scounts, c->sdisps, MPI_DOUBLE, rb, c->rcounts, c->rdisps,
                            MPI_DOUBLE, comm, q);
        break;
    case ZT_IGATHER:
        rc = MPI_Igather(s, k, MPI_DOUBLE, rb, k, MPI_DOUBLE, root, comm, q);
        break;
    case ZT_IGATHERV:
        rc = MPI_Igatherv(s, c->scounts[root], MPI_DOUBLE, rb, c->rcounts, c->rdisps, MPI_DOUBLE,
                          root, comm, q);
        break;
    case ZT_ISCATTER:
        rc = MPI_Iscatter(s, k, MPI_DOUBLE, rb, k, MPI_DOUBLE, root, comm, q);
        break;
    case ZT_ISCATTERV:
        rc = MPI_Iscatterv(s, c->scounts, c->sdisps, MPI_DOUBLE, rb, c->rcounts[root], MPI_DOUBLE,
                           root, comm, q);
        break;
    case ZT_IALLGATHER:
        rc = MPI_Iallgather(s, k, MPI_DOUBLE, rb, k, MPI_DOUBLE, comm, q);
        break;
    default:
        rc = MPI_Iallgatherv(s + c->sdisps[r], c->scounts[r], MPI_DOUBLE, rb, c->rcounts, c->rdisps,
                             MPI_DOUBLE, comm, q);
    }
    zt_call(rc, zt_nb_op_name[c->op], r);
}

/* After completion: every block this rank received is its sender's, bit for bit. */
static void check_and_free(call_t *c)
{
    for (int p = 0; p < c->size; ++p) {
        const int ok = zt_block_matches(c->rbuf + c->rdisps[p], 1, c->rcounts[p], c->kind, p,
                                        salt_of(c, to_of(c, c->rank, p)));
        zt_checkf(ok, c->rank, "%s count %d %s root %d from %d", zt_nb_op_name[c->op], c->count,
                  zt_kind_name[c->kind], c->root, p);
    }
    free(c->sbuf);
    free(c->rbuf);
    free(c->scounts);
    free(c->sdisps);
    free(c->rcounts);
    free(c->rdisps);
}

/* Work between two MPI_Test calls; the result is kept so the compiler does not drop it. */
static volatile double sink;
static void compute(int rounds)
{
    double x = sink;
    for (int i = 0; i < rounds * 1000; ++i)
        x = x * 0.999999 + 1e-9 * i;
    sink = x;
}

/* Computes and polls until the call completes, as an application overlapping its work. */
static void compute_until_done(call_t *c)
{
    int done = 0;
    while (!done) {
        compute(1 + c->rank);
        zt_call(MPI_Test(&c->req, &done, MPI_STATUS_IGNORE), "MPI_Test", c->rank);
    }
}

static call_t make(MPI_Comm comm, int op, int count, int kind, int root, int salt)
{
    call_t c = {.op = op, .count = count, .kind = kind, .root = root, .salt = salt, .comm = comm};
    MPI_Comm_rank(comm, &c.rank);
    MPI_Comm_size(comm, &c.size);
    return c;
}

/* Each operation alone, every root, a rank computing and polling until it completes. */
static void one_at_a_time(MPI_Comm comm, const int *counts, int ncounts)
{
    int size;
    MPI_Comm_size(comm, &size);
    for (int op = 0; op < ZT_NB_OPS; ++op)
        for (int i = 0; i < ncounts; ++i)
            for (int kind = 0; kind < ZT_KINDS; ++kind)
                for (int root = 0; root < (rooted(op) ? size : 1); ++root) {
                    call_t c = make(comm, op, counts[i], kind, root, i + kind);
                    start(&c);
                    compute_until_done(&c);
                    check_and_free(&c);
                }
}

/* All eight operations in flight at once on one communicator. */
static void all_at_once(MPI_Comm comm, int count)
{
    int size;
    MPI_Comm_size(comm, &size);
    call_t c[ZT_NB_OPS];
    MPI_Request reqs[ZT_NB_OPS];
    for (int op = 0; op < ZT_NB_OPS; ++op) {
        c[op] = make(comm, op, count, ZT_SMOOTH, (op + 1) % size, 11 + op);
        start(&c[op]);
        reqs[op] = c[op].req;
    }
    zt_call(MPI_Waitall(ZT_NB_OPS, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall", c[0].rank);
    for (int op = 0; op < ZT_NB_OPS; ++op)
        check_and_free(&c[op]);
}

static void run_all(MPI_Comm comm)
{
    /* 2048 doubles are the 16 KiB threshold. */
    static const int counts[] = {0, 100, 2048, 5000, 20000};
    one_at_a_time(comm, counts, 5);
    all_at_once(comm, 5000);
    all_at_once(comm, 3000);
}

/* Calls in flight on several communicators at once, completed in reverse order. */
static void several_communicators(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split);
    call_t c[6] = {
        make(MPI_COMM_WORLD, ZT_IALLTOALLV, 6000, ZT_SMOOTH, 0, 21),
        make(dup, ZT_IALLGATHERV, 4000, ZT_SMOOTH, 0, 22),
        make(split, ZT_IALLTOALL, 3000, ZT_SMOOTH, 0, 23),
        make(MPI_COMM_WORLD, ZT_IGATHER, 5000, ZT_RANDOM, 1 % size, 24),
        make(dup, ZT_ISCATTERV, 7000, ZT_SMOOTH, 0, 25),
        make(split, ZT_IALLGATHER, 2500, ZT_SMOOTH, 0, 26),
    };
    for (int k = 0; k < 6; ++k)
        start(&c[k]);
    for (int k = 5; k >= 0; --k) {
        zt_call(MPI_Wait(&c[k].req, MPI_STATUS_IGNORE), "MPI_Wait", rank);
        check_and_free(&c[k]);
    }
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
}

/* MPI allows freeing a communicator while calls on it are in flight: they complete normally and
 * the communicator goes when they have. Six calls, each on its own duplicate, all freed right
 * after the calls started, then computed through. */
static void freed_while_in_flight(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const int ops[6] = {ZT_IALLTOALLV, ZT_IALLGATHERV, ZT_IALLTOALL,
                               ZT_IGATHERV,   ZT_ISCATTER,    ZT_IALLGATHER};
    MPI_Comm comms[6];
    call_t c[6];
    for (int k = 0; k < 6; ++k) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[k]);
        c[k] = make(comms[k], ops[k], 20000 + 1000 * k, ZT_SMOOTH, k % size, 31 + k);
        start(&c[k]);
    }
    for (int k = 0; k < 6; ++k) {
        MPI_Comm_free(&comms[k]);
        c[k].comm = MPI_COMM_NULL;
    }
    for (int k = 0; k < 6; ++k) {
        compute_until_done(&c[k]);
        check_and_free(&c[k]);
    }
}

/* MPI_IN_PLACE: iallgather takes it (its block is in place), ialltoall hands it on. */
static void in_place(MPI_Comm comm, int count)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double *buf = malloc(((size_t)count * size + 1) * sizeof(double));
    MPI_Request req;
    for (int p = 0; p < size; ++p)
        zt_fill(buf + (size_t)p * count, count, ZT_SMOOTH, p == rank ? rank : -1, 31);
    zt_call(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, MPI_DOUBLE, comm, &req),
            "MPI_Iallgather in place", rank);
    zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", rank);
    int ok = 1;
    for (int p = 0; p < size; ++p)
        ok &= zt_block_matches(buf + (size_t)p * count, 1, count, ZT_SMOOTH, p, 31);
    zt_check(ok, "iallgather in place", rank);
    for (int p = 0; p < size; ++p)
        zt_fill(buf + (size_t)p * count, count, ZT_SMOOTH, rank, (uint64_t)(40 + p));
    zt_call(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, MPI_DOUBLE, comm, &req),
            "MPI_Ialltoall in place", rank);
    zt_call(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait", rank);
    ok = 1;
    for (int p = 0; p < size; ++p)
        ok &= zt_block_matches(buf + (size_t)p * count, 1, count, ZT_SMOOTH, p,
                               (uint64_t)(40 + rank));
    zt_check(ok, "ialltoall in place", rank);
    free(buf);
}

static void run_all_and_in_place(MPI_Comm comm)
{
    run_all(comm);
    in_place(comm, 4000);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int short_run = argc > 1 && 0 == strcmp(argv[1], "--short");
    if (short_run) {
        static const int counts[] = {0, 5000};
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        one_at_a_time(MPI_COMM_WORLD, counts, 2);
        all_at_once(MPI_COMM_WORLD, 3000);
    } else {
        zt_on_world_dup_split(run_all_and_in_place);
        several_communicators();
        freed_while_in_flight();
    }
    return zt_finish("nonblocking");
}
