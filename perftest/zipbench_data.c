/* Generators behind zipbench_data.h. Built in the tree (ZIPBENCH_HAVE_ZIPDATA) they are the
 * project's data library, perftest/data/zipdata.h, so that zipbench and codecbench measure the
 * same bytes. The small generators below keep a standalone `mpicc zipbench*.c` build working;
 * their grids are as square (cubic) as n allows, so the natural order is as smooth as a field
 * laid out row by row. */
#include "zipbench_data.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int fill_generated(const char *name, double *out, size_t n);
/* F becomes heat set `name` at evolution step `step` (zb_evolve): 0, 1 for a set without time
 * steps, -1 when the simulation cannot go that far. */
static int heat_at_step(const char *name, double *F, size_t n, unsigned long step);

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

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int zb_evolve(const char *name, double *F, size_t n, unsigned long step, char *err, size_t errlen)
{
    if (!n)
        return 0;
    const int heat = heat_at_step(name, F, n, step);
    if (heat <= 0) {
        if (heat < 0)
            snprintf(err, errlen, "step %lu is beyond the heat simulation's last", step);
        return heat;
    }
    uint64_t s = 0x9E3779B97F4A7C15ull ^ ((uint64_t)step * 0xBF58476D1CE4E5B9ull);
    if (!s)
        s = 1;
    size_t count = n / ZB_EVOLVE_EVERY ? n / ZB_EVOLVE_EVERY : 1;
    for (size_t c = 0; c < count; c++) {
        const size_t i = (size_t)(xorshift(&s) % n);
        const double d = ((double)(xorshift(&s) >> 11) * 0x1.0p-53 - 0.5) * 2e-3;
        const double v = F[i] * (1.0 + d);
        if (isfinite(v))
            F[i] = v;
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

static int heat_at_step(const char *name, double *F, size_t n, unsigned long step)
{
    if (strcmp(name, "heat") && strncmp(name, "heat3d", 6))
        return 1;
    /* zb_fill's data are the simulation's step 1; zipdata resumes from its last step. */
    return zipdata_fill(name, F, n, 1 + (uint64_t)step) == ZIPDATA_OK ? 0 : -1;
}
#else

#include <stdlib.h>

const char *const zb_dataset_names = "linear,gauss,gauss-sorted,sincos,sincos-sorted,heat,random";
#define ZB_HEAT_MAX_STEP 100000u

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

/* The 3-D heat equation (7-point stencil, alpha = 0.1, fixed boundary) from a smooth field with
 * a hot spot, on an m * m * nz grid that holds n values: out[0..n) after `steps` explicit
 * steps. Step 1 is zb_fill's heat set, what a solver would exchange between time steps. The
 * grid of the last call is kept, so that step s + 1 after step s costs one step. */
static void fill_heat(double *out, size_t n, unsigned long steps)
{
    static double *u;
    static size_t um, unz;
    static unsigned long ustep;
    size_t m = (size_t)cbrt((double)n);
    if (m < 3)
        m = 3;
    size_t nz = (n + m * m - 1) / (m * m);
    if (nz < 3)
        nz = 3;
    const size_t total = m * m * nz;
#define AT(a, i, j, k) a[((k)*m + (j)) * m + (i)]
    if (!u || um != m || unz != nz || ustep > steps) {
        free(u);
        u = malloc(total * sizeof *u);
        if (!u)
            abort();
        um = m, unz = nz, ustep = 0;
        for (size_t k = 0; k < nz; k++)
            for (size_t j = 0; j < m; j++)
                for (size_t i = 0; i < m; i++) {
                    double x = (double)i / (double)(m - 1), y = (double)j / (double)(m - 1),
                           z = (double)k / (double)(nz - 1);
                    double r2 = (x - .3) * (x - .3) + (y - .6) * (y - .6) + (z - .5) * (z - .5);
                    AT(u, i, j, k) = 290.0 + 15.0 * sin(M_PI * x) * sin(M_PI * y) * sin(M_PI * z) +
                                     80.0 * exp(-r2 / 0.02);
                }
    }
    if (ustep < steps) {
        double *v = malloc(total * sizeof *v);
        if (!v)
            abort();
        for (; ustep < steps; ustep++) {
            for (size_t idx = 0; idx < total; idx++) {
                size_t i = idx % m, j = (idx / m) % m, k = idx / (m * m);
                double c = AT(u, i, j, k);
                if (i == 0 || j == 0 || k == 0 || i == m - 1 || j == m - 1 || k == nz - 1) {
                    v[idx] = c;
                    continue;
                }
                double lap = AT(u, i - 1, j, k) + AT(u, i + 1, j, k) + AT(u, i, j - 1, k) +
                             AT(u, i, j + 1, k) + AT(u, i, j, k - 1) + AT(u, i, j, k + 1) - 6.0 * c;
                v[idx] = c + 0.1 * lap;
            }
            double *t = u;
            u = v;
            v = t;
        }
        free(v);
    }
#undef AT
    memcpy(out, u, n * sizeof *out);
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
        fill_heat(out, n, 1);
    } else if (!strcmp(name, "random")) {
        fill_random(out, n);
    } else {
        return -1;
    }
    return 0;
}

static int heat_at_step(const char *name, double *F, size_t n, unsigned long step)
{
    if (strcmp(name, "heat"))
        return 1;
    if (step >= ZB_HEAT_MAX_STEP)
        return -1;
    fill_heat(F, n, 1 + step);
    return 0;
}
#endif /* ZIPBENCH_HAVE_ZIPDATA */
