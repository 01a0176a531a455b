/*
 * Shared helpers of the pml/zip integration tests: messages whose content any rank can
 * regenerate from (sender, receiver, tag, round), data sets from perftest/data (smooth ones that
 * compress, random ones that do not, never constant), and PASS/FAIL reporting.
 */
#ifndef P2P_COMMON_H
#define P2P_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zipdata.h"

static int pt_failures = 0;
static int pt_rank = 0;
static int pt_size = 0;

static inline void pt_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &pt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pt_size);
    /* Errors come back as codes so that a test can check them (and report, not abort). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static inline void pt_check(int ok, const char *what)
{
    if (!ok) {
        ++pt_failures;
        if (pt_failures <= 10)
            fprintf(stderr, "rank %d: FAILED CHECK %s\n", pt_rank, what);
    }
}

static inline void pt_call(int rc, const char *what)
{
    if (MPI_SUCCESS != rc) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "rank %d: %s returned %s\n", pt_rank, what, msg);
        ++pt_failures;
    }
}

/* Data set of a message: even seeds smooth (compressible), odd seeds random. */
static inline const char *pt_set(uint64_t seed)
{
    return (seed & 1) ? "random" : "sincos-512";
}

static inline uint64_t pt_seed(int src, int dst, int tag, int round)
{
    return ((uint64_t)src << 40) ^ ((uint64_t)dst << 28) ^ ((uint64_t)tag << 8) ^ (uint64_t)round;
}

/* n doubles of message `seed`; offset by the seed so that messages differ. */
static inline void pt_fill_f64(double *out, size_t n, uint64_t seed)
{
    if (0 == n)
        return;
    if (ZIPDATA_OK != zipdata_fill(pt_set(seed), out, n, seed)) {
        fprintf(stderr, "zipdata_fill failed\n");
        abort();
    }
    if (0 == (seed & 1)) {
        for (size_t i = 0; i < n; ++i)
            out[i] += (double)(seed % 1000);
    }
}

static inline void pt_fill_f32(float *out, size_t n, uint64_t seed)
{
    double *tmp = malloc((n + 1) * sizeof(double));
    pt_fill_f64(tmp, n, seed);
    for (size_t i = 0; i < n; ++i) {
        if (seed & 1) {
            uint32_t bits = (uint32_t)(((uint64_t)i * 0x9e3779b97f4a7c15ull + seed) >> 17);
            bits &= 0xbf7fffffu; /* finite */
            memcpy(&out[i], &bits, sizeof bits);
        } else {
            out[i] = (float)tmp[i];
        }
    }
    free(tmp);
}

static inline int pt_same(const void *a, const void *b, size_t bytes)
{
    return 0 == memcmp(a, b, bytes);
}

static inline int pt_finish(const char *name)
{
    int total = 0;
    MPI_Allreduce(&pt_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == pt_rank)
        printf("%s: %s (%d failed checks)\n", total ? "FAIL" : "PASS", name, total);
    MPI_Finalize();
    return total ? 1 : 0;
}

#endif
