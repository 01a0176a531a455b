/*
 * What the reducing collectives' tests share (test_allreduce.c, test_reduce_scatter.c): the
 * families of data each rank contributes, and the operations applied in an order a test states.
 */
#ifndef ZT_REDUCE_H
#define ZT_REDUCE_H

#include "zt_common.h"

enum { INTEGRAL = 0, SMOOTH = 1, NOISY = 2, FAMILIES = 3 };
static const char *const family_name[FAMILIES] = {"integral", "smooth", "noisy"};

/* Element i of `owner`'s contribution: integer-valued (sums exact in any order), smooth
 * non-integer (compresses), or finite noise (does not). Positive, so MIN/MAX see no -0.0. */
static inline double value(int family, int owner, int salt, size_t i)
{
    const double smooth = zt_value(ZT_SMOOTH, owner, (uint64_t)salt, i);
    switch (family) {
    case INTEGRAL:
        return floor(fabs(smooth)) + 1.0;
    case SMOOTH:
        return fabs(smooth) + 1.0;
    default: {
        const uint64_t bits = (zt_mix(((uint64_t)owner << 40) ^ ((uint64_t)salt << 32) ^ i) >> 12) |
                              0x3ff0000000000000ull; /* [1, 2) */
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    }
}

static inline double apply(MPI_Op op, double a, double b)
{
    if (op == MPI_SUM)
        return a + b;
    if (op == MPI_PROD)
        return a * b;
    if (op == MPI_MIN)
        return a < b ? a : b;
    return a > b ? a : b;
}

static inline const char *op_name(MPI_Op op)
{
    return op == MPI_SUM ? "sum" : op == MPI_PROD ? "prod" : op == MPI_MIN ? "min" : "max";
}

/* count elements of family's data from `owner` at buf, as floats (flt) or doubles. */
static inline void fill(void *buf, int flt, int family, int owner, int salt, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const double v = value(family, owner, salt, i);
        if (flt)
            ((float *)buf)[i] = (float)v;
        else
            ((double *)buf)[i] = v;
    }
}

static inline double element(const void *buf, int flt, size_t i)
{
    return flt ? ((const float *)buf)[i] : ((const double *)buf)[i];
}

#endif
