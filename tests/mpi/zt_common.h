/*
 * Shared helpers of the coll/zip integration tests: deterministic data that any rank can
 * regenerate for any other rank, bit-exact comparison, and failure reporting.
 */
#ifndef ZT_COMMON_H
#define ZT_COMMON_H

#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum zt_kind { ZT_SMOOTH = 0, ZT_RANDOM = 1, ZT_KINDS = 2 };

static const char *const zt_kind_name[ZT_KINDS] = {"smooth", "random"};

static inline uint64_t zt_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Element i of the data that `owner` contributes in case `salt`. Smooth data compresses
 * well; random data (any 64-bit pattern, NaNs included) does not. Never constant. */
static inline double zt_value(int kind, int owner, uint64_t salt, size_t i)
{
    if (ZT_SMOOTH == kind) {
        return 1000.0 * sin(1e-3 * (double)i + 0.1 * owner + (double)salt) + 0.5 * (double)i;
    }
    uint64_t bits = zt_mix(((uint64_t)owner << 48) ^ (salt << 32) ^ i);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline void zt_fill(double *buf, size_t n, int kind, int owner, uint64_t salt)
{
    for (size_t i = 0; i < n; ++i)
        buf[i] = zt_value(kind, owner, salt, i);
}

/* Whether `count` doubles at `got`, `stride` doubles apart, are what `owner` contributes in case
 * `salt`. Compared bit for bit (memcmp, not ==): == fails on every NaN and cannot tell -0.0 from
 * 0.0, and a codec must keep both exactly. */
static inline int zt_block_matches(const double *got, size_t stride, size_t count, int kind,
                                   int owner, uint64_t salt)
{
    int ok = 1;
    for (size_t i = 0; i < count; ++i) {
        const double want = zt_value(kind, owner, salt, i);
        ok &= 0 == memcmp(&got[i * stride], &want, sizeof want);
    }
    return ok;
}

/* A receive type of one double followed by a hole (extent 2 doubles): a derived datatype, so
 * that zip packs and unpacks. Free it with MPI_Type_free. */
static inline MPI_Datatype zt_strided_double(void)
{
    MPI_Datatype vec, type;
    MPI_Type_vector(1, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_create_resized(vec, 0, 2 * sizeof(double), &type);
    MPI_Type_commit(&type);
    MPI_Type_free(&vec);
    return type;
}

/* A gather of equal blocks (MPI_Gather, MPI_Allgather): this rank's `count` doubles in sbuf,
 * rbuf for a block from every rank, `stride` doubles apart (strided: zt_strided_double), -9.0
 * elsewhere. With in_place this rank's block is in its place in rbuf and send is MPI_IN_PLACE. */
typedef struct {
    double *sbuf, *rbuf;
    const void *send;
    MPI_Datatype rtype;
    int count, stride;
} zt_gathered_t;

static inline void zt_gathered_init(zt_gathered_t *g, int count, int kind, int rank, int size,
                                    int in_place, int strided)
{
    g->count = count;
    g->stride = strided ? 2 : 1;
    const size_t n = (size_t)count * size * g->stride;
    g->sbuf = malloc(((size_t)count + 1) * sizeof(double));
    g->rbuf = malloc((n + 1) * sizeof(double));
    zt_fill(g->sbuf, count, kind, rank, (uint64_t)count);
    for (size_t i = 0; i < n; ++i)
        g->rbuf[i] = -9.0;
    g->rtype = strided ? zt_strided_double() : MPI_DOUBLE;
    g->send = g->sbuf;
    if (in_place) {
        for (int i = 0; i < count; ++i)
            g->rbuf[((size_t)rank * count + i) * g->stride] = g->sbuf[i];
        g->send = MPI_IN_PLACE;
    }
}

/* Whether rank p's block arrived bit-exact. */
static inline int zt_gathered_ok(const zt_gathered_t *g, int p, int kind)
{
    return zt_block_matches(&g->rbuf[(size_t)p * g->count * g->stride], g->stride, g->count, kind,
                            p, (uint64_t)g->count);
}

static inline void zt_gathered_free(zt_gathered_t *g)
{
    if (MPI_DOUBLE != g->rtype)
        MPI_Type_free(&g->rtype);
    free(g->sbuf);
    free(g->rbuf);
}

/* The blocks of a v-collective: counts[p] = count_of(p, round), laid out back to front with
 * `gap` doubles before each block (which the tests check stay untouched). Returns the doubles
 * the layout spans. */
static inline int zt_reversed_layout(int size, int (*count_of)(int, int), int round, int gap,
                                     int *counts, int *disps)
{
    int total = 0;
    for (int p = size - 1; p >= 0; --p) {
        counts[p] = count_of(p, round);
        disps[p] = total + gap;
        total += counts[p] + gap;
    }
    return total;
}

/* An alltoallv whose block from rank `from` to rank `to` holds count_of(from, to, salt)
 * elements, as `rank` sees it: its send counts and packed displacements (sc, sd; *stotal
 * elements in all) and its receive ones (rc, rd; *rtotal). */
static inline void zt_alltoallv_layout(int size, int rank, int (*count_of)(int, int, int), int salt,
                                       int *sc, int *sd, int *rc, int *rd, int *stotal, int *rtotal)
{
    *stotal = *rtotal = 0;
    for (int p = 0; p < size; ++p) {
        sc[p] = count_of(rank, p, salt);
        sd[p] = *stotal;
        *stotal += sc[p];
        rc[p] = count_of(p, rank, salt);
        rd[p] = *rtotal;
        *rtotal += rc[p];
    }
}

/* The non-blocking collectives coll/zip compresses, by MPI_T name (test_nonblocking,
 * test_pvars). */
enum {
    ZT_IALLTOALL,
    ZT_IALLTOALLV,
    ZT_IGATHER,
    ZT_IGATHERV,
    ZT_ISCATTER,
    ZT_ISCATTERV,
    ZT_IALLGATHER,
    ZT_IALLGATHERV,
    ZT_NB_OPS
};
static const char *const zt_nb_op_name[ZT_NB_OPS] = {"ialltoall",  "ialltoallv", "igather",
                                                     "igatherv",   "iscatter",   "iscatterv",
                                                     "iallgather", "iallgatherv"};

static int zt_failures = 0;

static inline void zt_check(int ok, const char *what, int rank)
{
    if (!ok) {
        ++zt_failures;
        if (zt_failures <= 10)
            fprintf(stderr, "rank %d: MISMATCH %s\n", rank, what);
    }
}

/* zt_check with a printf-style description, formatted only for a failure. */
__attribute__((format(printf, 3, 4))) static inline void zt_checkf(int ok, int rank,
                                                                   const char *fmt, ...)
{
    if (ok)
        return;
    char what[160];
    va_list args;
    va_start(args, fmt);
    vsnprintf(what, sizeof what, fmt, args);
    va_end(args);
    zt_check(0, what, rank);
}

/* Runs `test` on MPI_COMM_WORLD, on a duplicate of it and on a split of it into odd and even
 * ranks in reverse order: zip keeps state per communicator, and the split renumbers the ranks.
 * Errors return to the caller (see zt_call) on all three. */
static inline void zt_on_world_dup_split(void (*test)(MPI_Comm))
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    test(MPI_COMM_WORLD);

    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    test(dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split);
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
    test(split);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
}

/* Every test calls this last: prints one line on rank 0 and returns the exit code. */
static inline int zt_finish(const char *name)
{
    int mine = zt_failures, total = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* On stderr, unbuffered, before MPI_Finalize prints zip's statistics there too: in one
     * stream they stay in order, whereas mpirun could write this line from stdout into the
     * middle of one of theirs, where run-mpi-tests.sh does not see it. */
    if (0 == rank)
        fprintf(stderr, "%s: %s (%d mismatches)\n", total ? "FAIL" : "PASS", name, total);
    MPI_Finalize();
    return total ? 1 : 0;
}

/* Error codes must come back through MPI, never abort the job. */
static inline void zt_call(int rc, const char *what, int rank)
{
    if (MPI_SUCCESS != rc) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "rank %d: %s returned %s\n", rank, what, msg);
        ++zt_failures;
    }
}

/* Computes in short stretches and calls MPI_Testall between them until the n requests are
 * complete, as an application overlapping non-blocking collectives with its work does. */
static inline void zt_compute_until_done(int n, MPI_Request *req, int rank)
{
    int done = 0;
    volatile double work = 0.0;
    while (!done) {
        for (int i = 0; i < 20000; ++i)
            work += 1e-9 * i;
        zt_call(MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE), "MPI_Testall", rank);
    }
}

#endif
