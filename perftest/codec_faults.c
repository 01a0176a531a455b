/*
 * Page faults inside the codec's own calls: for each size, a fresh context-free buffer set is
 * written once (so that its first writes fault outside the timed calls), then one context
 * compresses and decompresses it `rounds` times; prints the process's minor faults during each
 * compression and decompression and the context's memory after them. Separates what the codec
 * faults (its working memory, on a context's first calls) from what its callers' fresh buffers
 * fault (docs/design.md, "Huge pages, and faults that are not the codec's"). Last, three timed
 * zip_calibrate calls on a fresh context (what coll/zip's agreement spends on the codec, once per
 * process).
 *
 * Build and run from the top of a built tree:
 *   cc -O2 -Icodecs/include -o codec_faults perftest/codec_faults.c \
 *      build/codecs/.libs/libzipcodec.a -lstdc++ -llz4 -lzstd -lxxhash -lm -lpthread
 *   ./codec_faults [codec spec, default fast] [rounds, default 4]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "zip/zip.h"

static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

/* Written with a byte that is not zero: malloc followed by a memset to zero may be compiled
 * into calloc, whose fresh pages are then first written inside the timed call. */
static void *written(size_t bytes)
{
    void *p = malloc(bytes);
    if (NULL != p) {
        memset(p, 0x5a, bytes);
    }
    return p;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "fast";
    const int rounds = argc > 2 ? atoi(argv[2]) : 4;
    static const size_t sizes[] = {64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20};
    zip_status_t status = ZIP_OK;
    zip_ctx_t *ctx = zip_ctx_create(spec, &status);
    if (NULL == ctx) {
        fprintf(stderr, "codec_faults: %s: %s\n", spec, zip_spec_error());
        return 1;
    }
    printf("# a new context: %zu bytes\n", zip_ctx_memory_used(ctx));
    printf("codec,bytes,round,compress_faults,decompress_faults,ratio,context_bytes\n");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const size_t n = sizes[s] / sizeof(double), cap = zip_compress_bound(sizes[s]);
        double *x = written(sizes[s]), *back = written(sizes[s]);
        unsigned char *frame = written(cap);
        if (NULL == x || NULL == back || NULL == frame) {
            fprintf(stderr, "codec_faults: out of memory\n");
            return 1;
        }
        for (size_t i = 0; i < n; ++i) { /* smooth, with noise in the low bits */
            x[i] = 1000.0 * sin(0.001 * (double)i) + 1e-9 * (double)(rand() % 1000);
        }
        for (int r = 0; r < rounds; ++r) {
            size_t frame_len = 0, raw_len = 0;
            const long f0 = minor_faults();
            if (ZIP_OK != zip_compress(ctx, 0, ZIP_TYPE_F64, x, n, frame, cap, &frame_len)) {
                fprintf(stderr, "codec_faults: compress: %s\n", zip_ctx_last_error(ctx));
                return 1;
            }
            const long f1 = minor_faults();
            if (ZIP_OK != zip_decompress(ctx, 0, frame, frame_len, back, sizes[s], &raw_len) ||
                0 != memcmp(back, x, sizes[s])) {
                fprintf(stderr, "codec_faults: decompress failed or differs\n");
                return 1;
            }
            const long f2 = minor_faults();
            printf("%s,%zu,%d,%ld,%ld,%.3f,%zu\n", spec, sizes[s], r, f1 - f0, f2 - f1,
                   (double)sizes[s] / (double)frame_len, zip_ctx_memory_used(ctx));
        }
        free(x);
        free(back);
        free(frame);
    }
    zip_ctx_destroy(ctx);
    zip_ctx_t *fresh = zip_ctx_create(spec, &status);
    for (int i = 0; NULL != fresh && i < 3; ++i) {
        struct timespec t0, t1;
        double c = 0.0, d = 0.0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        const zip_status_t st = zip_calibrate(fresh, &c, &d);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("# zip_calibrate %d: %.2f ms, %s, %.0f / %.0f MB/s\n", i,
               1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec),
               zip_status_str(st), c / 1e6, d / 1e6);
    }
    zip_ctx_destroy(fresh);
    return 0;
}
