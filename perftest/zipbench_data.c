/* Generators behind zipbench_data.h. Built in the tree (ZIPBENCH_HAVE_ZIPDATA) they are the
 * project's data library, perftest/data/zipdata.h, so that zipbench and codecbench measure the
 * same bytes. The small generators below keep a standalone `mpicc zipbench*.c` build working;
 * their grids are as square (cubic) as n allows, so the natural order is as smooth as a field
 * laid out row by row. */
#include "zipbench_data.h"

#include <stdio.h>
#include <string.h>

static int fill_generated(const char *name, double *out, size_t n);

#ifdef ZIPBENCH_HAVE_CORPUS
#include "zipbench_corpus.h"
#endif

int zb_fill(const char *name, double *out, size_t n, char *err, size_t errlen)
{
    const size_t plen = strlen(ZB_CORPUS_PREFIX);
    if (!strncmp(name, ZB_CORPUS_PREFIX, plen)) {
#ifdef ZIPBENCH_HAVE_CORPUS
        return zb_corpus_fill(name + plen, out, n, err, errlen);
#else
        snprintf(err, errlen, "this zipbench is built without the corpus reader");
        return -1;
#endif
    }
    if (fill_generated(name, out, n)) {
        snprintf(err, errlen, "unknown data set (known: %s, %sDIR)", zb_dataset_names,
                 ZB_CORPUS_PREFIX);
        return -1;
    }
    return 0;
}

void zb_dataset_label(const char *name, char *out, size_t len)
{
    const size_t plen = strlen(ZB_CORPUS_PREFIX);
    if (strncmp(name, ZB_CORPUS_PREFIX, plen)) {
        snprintf(out, len, "%s", name);
        return;
    }
    /* The directory's last component, without trailing slashes. */
    const char *dir = name + plen;
    size_t end = strlen(dir);
    while (end > 1 && dir[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    snprintf(out, len, "corpus-%.*s", (int)(end - start), dir + start);
}

#ifdef ZIPBENCH_HAVE_ZIPDATA
#include "zipdata.h"

const char *const zb_dataset_names = "linear,gauss,gauss-sorted,sincos,sincos-sorted,heat,random";

static int fill_generated(const char *name, double *out, size_t n)
{
    /* Seed/step 1: one step of the heat simulation, a fixed seed for the random sets. */
    return zipdata_fill(name, out, n, 1) == ZIPDATA_OK ? 0 : -1;
}
#else

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

const char *const zb_dataset_names = "linear,gauss,gauss-sorted,sincos,sincos-sorted,heat,random";

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* f(x, y) sampled on an nx * ny grid over [-h, h]^2, row-major, truncated to n values. */
static void fill_2d(double *out, size_t n, double h, double (*f)(double, double))
{
    size_t nx = (size_t)ceil(sqrt((double)n));
    size_t ny = (n + nx - 1) / nx;
    double dx = nx > 1 ? 2 * h / (double)(nx - 1) : 0, dy = ny > 1 ? 2 * h / (double)(ny - 1) : 0;
    for (size_t k = 0; k < n; k++)
        out[k] = f(-h + dx * (double)(k % nx), -h + dy * (double)(k / nx));
}

static double gauss(double x, double y)
{
    return exp(-x * x) * exp(-y * y);
}
static double sin_cos(double x, double y)
{
    return sin(x) * cos(y);
}

/* One explicit step of the 3-D heat equation (7-point stencil, alpha = 0.1, fixed boundary)
 * from a smooth field with a hot spot: what a solver would exchange between time steps. */
static void fill_heat(double *out, size_t n)
{
    size_t m = (size_t)cbrt((double)n);
    if (m < 3)
        m = 3;
    size_t nz = (n + m * m - 1) / (m * m);
    if (nz < 3)
        nz = 3;
    size_t total = m * m * nz;
    double *u = malloc(total * sizeof *u);
    if (!u)
        abort();
#define AT(i, j, k) u[((k)*m + (j)) * m + (i)]
    for (size_t k = 0; k < nz; k++)
        for (size_t j = 0; j < m; j++)
            for (size_t i = 0; i < m; i++) {
                double x = (double)i / (double)(m - 1), y = (double)j / (double)(m - 1),
                       z = (double)k / (double)(nz - 1);
                double r2 = (x - .3) * (x - .3) + (y - .6) * (y - .6) + (z - .5) * (z - .5);
                AT(i, j, k) = 290.0 + 15.0 * sin(M_PI * x) * sin(M_PI * y) * sin(M_PI * z) +
                              80.0 * exp(-r2 / 0.02);
            }
    for (size_t idx = 0; idx < n; idx++) {
        size_t i = idx % m, j = (idx / m) % m, k = idx / (m * m);
        double c = AT(i, j, k);
        if (i == 0 || j == 0 || k == 0 || i == m - 1 || j == m - 1 || k == nz - 1) {
            out[idx] = c;
            continue;
        }
        double lap = AT(i - 1, j, k) + AT(i + 1, j, k) + AT(i, j - 1, k) + AT(i, j + 1, k) +
                     AT(i, j, k - 1) + AT(i, j, k + 1) - 6.0 * c;
        out[idx] = c + 0.1 * lap;
    }
#undef AT
    free(u);
}

/* Uniform doubles in [0, 1) with all 52 mantissa bits random: the incompressible case. */
static void fill_random(double *out, size_t n)
{
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < n; k++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out[k] = (double)(s >> 11) * 0x1.0p-53;
    }
}

static int fill_generated(const char *name, double *out, size_t n)
{
    if (!strcmp(name, "linear")) {
        /* f(x) = ax on x in [0, 1) */
        for (size_t k = 0; k < n; k++)
            out[k] = 0.37 * (double)k / (double)n;
    } else if (!strcmp(name, "gauss") || !strcmp(name, "gauss-sorted")) {
        fill_2d(out, n, 2.0, gauss);
        if (name[5])
            qsort(out, n, sizeof *out, cmp_double);
    } else if (!strcmp(name, "sincos") || !strcmp(name, "sincos-sorted")) {
        fill_2d(out, n, 6.0, sin_cos);
        if (name[6])
            qsort(out, n, sizeof *out, cmp_double);
    } else if (!strcmp(name, "heat")) {
        fill_heat(out, n);
    } else if (!strcmp(name, "random")) {
        fill_random(out, n);
    } else {
        return -1;
    }
    return 0;
}
#endif /* ZIPBENCH_HAVE_ZIPDATA */
