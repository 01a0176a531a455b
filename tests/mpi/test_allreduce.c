/*
 * MPI_Allreduce, MPI_Reduce, MPI_Iallreduce and MPI_Ireduce through coll/zip: doubles and floats
 * with SUM, PROD, MIN and MAX, every root, MPI_IN_PLACE, counts from 0 to 2 MiB, ints next to them,
 * dup/split communicators. Integer-valued data must come out exact whoever reduces it; for other
 * data, a run that sets ZT_ZIP_RING=<coll_zip_threshold> (zip on, policy always) expects bit for
 * bit the order zip documents (allreduce: its ring's, or with ZT_ZIP_HALVING=1 (and
 * coll_zip_allreduce_algorithm halving) recursive halving's; reduce: its chain's) wherever each
 * of the p chunks reaches the threshold, and any other run a result within rounding of it.
 */
#include "zt_reduce.h"

/* Chunk c of n elements over p ranks reduced from rank c onwards:
 * (...((x_c op x_{c+1}) op x_{c+2}) ...) op x_{c+p-1}, the order of zip's ring. */
static double ring_reference(int family, MPI_Op op, int salt, int p, size_t n, size_t i, int flt)
{
    const size_t base = n / (size_t)p, rem = n % (size_t)p;
    int c = 0;
    while ((size_t)(c + 1) * base + ((size_t)(c + 1) < rem ? (size_t)(c + 1) : rem) <= i)
        ++c;
    if (flt) {
        float acc = (float)value(family, c, salt, i);
        for (int k = 1; k < p; ++k) {
            const float x = (float)value(family, (c + k) % p, salt, i);
            acc = op == MPI_SUM ? acc + x : (float)apply(op, acc, x);
        }
        return acc;
    }
    double acc = value(family, c, salt, i);
    for (int k = 1; k < p; ++k)
        acc = apply(op, acc, value(family, (c + k) % p, salt, i));
    return acc;
}

/* Recursive halving over pof2 virtual ranks (the largest power of two <= p): ranks 2v and 2v+1
 * (v < p - pof2) fold into y_v = x_2v op x_2v+1, the others are y_{r - (p - pof2)}; every
 * element is ((y_0 op y_1) op (y_2 op y_3)) op ..., a balanced tree in order. */
static double halving_reference(int family, MPI_Op op, int salt, int p, size_t i, int flt)
{
    int pof2 = 1;
    while (2 * pof2 <= p)
        pof2 *= 2;
    const int rem = p - pof2;
    double y[64]; /* the tests run at most 8 ranks */
    for (int v = 0; v < pof2 && v < 64; ++v) {
        if (v < rem) {
            const double a = value(family, 2 * v, salt, i), b = value(family, 2 * v + 1, salt, i);
            y[v] = flt ? (double)(op == MPI_SUM ? (float)a + (float)b
                                                : (float)apply(op, (float)a, (float)b))
                       : apply(op, a, b);
        } else {
            y[v] = flt ? (double)(float)value(family, v + rem, salt, i)
                       : value(family, v + rem, salt, i);
        }
    }
    for (int width = 1; width < pof2; width *= 2) {
        for (int v = 0; v + width < pof2 && v < 64; v += 2 * width) {
            y[v] = flt ? (double)(op == MPI_SUM ? (float)y[v] + (float)y[v + width]
                                                : (float)apply(op, y[v], y[v + width]))
                       : apply(op, y[v], y[v + width]);
        }
    }
    return y[0];
}

/* MPI_Reduce's chain to `root`: x_root op (x_root+1 op (... op x_root+p-1)), ranks mod p. */
static double chain_reference(int family, MPI_Op op, int salt, int p, int root, size_t i, int flt)
{
    if (flt) {
        float acc = (float)value(family, (root + p - 1) % p, salt, i);
        for (int k = p - 2; k >= 0; --k) {
            const float x = (float)value(family, (root + k) % p, salt, i);
            acc = op == MPI_SUM ? x + acc : (float)apply(op, x, acc);
        }
        return acc;
    }
    double acc = value(family, (root + p - 1) % p, salt, i);
    for (int k = p - 2; k >= 0; --k)
        acc = apply(op, value(family, (root + k) % p, salt, i), acc);
    return acc;
}

static size_t ring_threshold(void)
{
    const char *s = getenv("ZT_ZIP_RING");
    return NULL != s ? (size_t)strtoull(s, NULL, 10) : 0;
}

/* Whether result element i is right: bit for bit where zip's ring (allreduce, root < 0) or
 * chain (reduce) must have run (or the data are integral, or the op is MIN/MAX), else within
 * rounding of that order's value. */
static int element_ok(double got, int family, MPI_Op op, int salt, int p, int root, size_t n,
                      size_t i, int flt)
{
    const char *halving = getenv("ZT_ZIP_HALVING");
    const double want = root >= 0 ? chain_reference(family, op, salt, p, root, i, flt)
                        : NULL != halving && 0 == strcmp(halving, "1")
                            ? halving_reference(family, op, salt, p, i, flt)
                            : ring_reference(family, op, salt, p, n, i, flt);
    const size_t elem = flt ? sizeof(float) : sizeof(double);
    const size_t threshold = ring_threshold();
    const int exact = INTEGRAL == family || op == MPI_MIN || op == MPI_MAX ||
                      (threshold > 0 && n * elem / (size_t)p >= threshold && p > 1);
    if (exact)
        return flt ? (float)got == (float)want : 0 == memcmp(&got, &want, sizeof got);
    return fabs(got - want) <= 1e-5 * fabs(want);
}

/* One call: allreduce (root < 0) or reduce to root; in_place uses MPI_IN_PLACE. */
static void one(MPI_Comm comm, int flt, int family, MPI_Op op, size_t n, int root, int in_place,
                int salt)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const size_t elem = flt ? sizeof(float) : sizeof(double);
    MPI_Datatype type = flt ? MPI_FLOAT : MPI_DOUBLE;
    char *sbuf = malloc(n * elem + 1), *rbuf = malloc(n * elem + 1);
    fill(sbuf, flt, family, rank, salt, n);
    memset(rbuf, 0x5a, n * elem + 1);
    const int receives = root < 0 || rank == root;
    const void *send = sbuf;
    if (in_place && receives) {
        memcpy(rbuf, sbuf, n * elem);
        send = MPI_IN_PLACE;
    }
    if (root < 0)
        zt_call(MPI_Allreduce(send, rbuf, (int)n, type, op, comm), "MPI_Allreduce", rank);
    else
        zt_call(MPI_Reduce(send, rbuf, (int)n, type, op, root, comm), "MPI_Reduce", rank);
    if (receives) {
        int ok = 1;
        for (size_t i = 0; i < n && ok; ++i)
            ok = element_ok(element(rbuf, flt, i), family, op, salt, p, root, n, i, flt);
        ok &= (unsigned char)rbuf[n * elem] == 0x5a;
        zt_checkf(ok, rank, "%s %s %s n=%zu root %d in_place %d", root < 0 ? "allreduce" : "reduce",
                  flt ? "float" : "double", family_name[family], n, root, in_place);
    }
    free(sbuf);
    free(rbuf);
}

static void ints(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int n = 50000;
    int *s = malloc(n * sizeof(int)), *r = malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i)
        s[i] = rank * 7 + i;
    zt_call(MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, comm), "MPI_Allreduce int", rank);
    int ok = 1;
    for (int i = 0; i < n; ++i)
        ok &= r[i] == 7 * p * (p - 1) / 2 + p * i;
    zt_check(ok, "allreduce int", rank);
    free(s);
    free(r);
}

/* MPI_Iallreduce: two calls in flight with a blocking one between them, driven by MPI_Test
 * while the rank "computes", then the same checks as the blocking calls. */
static void nonblocking(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const size_t n = 70001;
    double *a = malloc(n * sizeof(double)), *ra = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double)), *rb = malloc(n * sizeof(double));
    fill(a, 0, SMOOTH, rank, 101, n);
    fill(b, 0, NOISY, rank, 102, n);
    MPI_Request req[2];
    zt_call(MPI_Iallreduce(a, ra, (int)n, MPI_DOUBLE, MPI_SUM, comm, &req[0]), "MPI_Iallreduce",
            rank);
    zt_call(MPI_Iallreduce(b, rb, (int)n, MPI_DOUBLE, MPI_SUM, comm, &req[1]), "MPI_Iallreduce",
            rank);
    one(comm, 0, INTEGRAL, MPI_SUM, 70001, -1, 0, 103);
    zt_compute_until_done(2, req, rank);
    int ok = 1;
    for (size_t i = 0; i < n; ++i) {
        ok &= element_ok(ra[i], SMOOTH, MPI_SUM, 101, p, -1, n, i, 0);
        ok &= element_ok(rb[i], NOISY, MPI_SUM, 102, p, -1, n, i, 0);
    }
    zt_check(ok, "iallreduce", rank);
    free(a);
    free(ra);
    free(b);
    free(rb);
}

/* MPI_Ireduce: two calls in flight to different roots, a blocking reduce between them, driven
 * by MPI_Test while the rank computes; the roots' results as the blocking call's. */
static void nonblocking_reduce(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const size_t n = 70001;
    const int ra_root = 0, rb_root = p - 1;
    double *a = malloc(n * sizeof(double)), *ra = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double)), *rb = malloc(n * sizeof(double));
    fill(a, 0, SMOOTH, rank, 111, n);
    fill(b, 0, NOISY, rank, 112, n);
    MPI_Request req[2];
    zt_call(MPI_Ireduce(a, ra, (int)n, MPI_DOUBLE, MPI_SUM, ra_root, comm, &req[0]), "MPI_Ireduce",
            rank);
    zt_call(MPI_Ireduce(b, rb, (int)n, MPI_DOUBLE, MPI_SUM, rb_root, comm, &req[1]), "MPI_Ireduce",
            rank);
    one(comm, 0, INTEGRAL, MPI_SUM, 70001, p / 2, 0, 113);
    zt_compute_until_done(2, req, rank);
    int ok = 1;
    for (size_t i = 0; i < n; ++i) {
        ok &= rank != ra_root || element_ok(ra[i], SMOOTH, MPI_SUM, 111, p, ra_root, n, i, 0);
        ok &= rank != rb_root || element_ok(rb[i], NOISY, MPI_SUM, 112, p, rb_root, n, i, 0);
    }
    zt_check(ok, "ireduce", rank);
    free(a);
    free(ra);
    free(b);
    free(rb);
}

static void run_all(MPI_Comm comm)
{
    int p;
    MPI_Comm_size(comm, &p);
    static const size_t counts[] = {0, 3, 5000, 70001, 262147};
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX};
    int salt = 0;
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c)
        for (int family = 0; family < FAMILIES; ++family)
            one(comm, 0, family, MPI_SUM, counts[c], -1, (int)c % 2, ++salt);
    for (int o = 1; o < 4; ++o)
        one(comm, 0, SMOOTH, ops[o], 70001, -1, o % 2, ++salt);
    one(comm, 1, SMOOTH, MPI_SUM, 140001, -1, 0, ++salt);
    for (int root = 0; root < p; ++root)
        one(comm, 0, root % 2 ? NOISY : SMOOTH, MPI_SUM, 70001, root, root % 2, ++salt);
    one(comm, 1, INTEGRAL, MPI_MAX, 140001, p - 1, 0, ++salt);
    ints(comm);
    nonblocking(comm);
    nonblocking_reduce(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    zt_on_world_dup_split(run_all);
    return zt_finish("allreduce");
}
