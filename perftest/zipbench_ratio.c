#include "zipbench_ratio.h"

#include <math.h>

#ifdef ZIPBENCH_HAVE_ZIP
#include <stdlib.h>

#include "zip/zip.h"

double zb_ratio(const char *spec, const double *data, size_t n)
{
    zip_ctx_t *ctx = zip_ctx_create(spec, NULL);
    if (!ctx)
        return NAN;
    size_t cap = zip_compress_bound(n * sizeof *data), len = 0;
    void *dst = malloc(cap);
    double ratio = NAN;
    if (dst && zip_compress(ctx, 1, ZIP_TYPE_F64, data, n, dst, cap, &len) == ZIP_OK && len)
        ratio = (double)(n * sizeof *data) / (double)len;
    free(dst);
    zip_ctx_destroy(ctx);
    return ratio;
}
#else
double zb_ratio(const char *spec, const double *data, size_t n)
{
    (void)spec, (void)data, (void)n;
    return NAN;
}
#endif
