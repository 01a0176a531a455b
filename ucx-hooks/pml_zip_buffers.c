/*
 * Staging buffers and codec contexts, reused across messages. A fresh malloc of a large
 * message buffer is an mmap and a page fault per page: on a 1 MiB message that costs as much
 * as the codec. The buffers are shared by all threads under one lock; the contexts are a pool
 * of common/zip_ompi_ctx_pool.h (a context is used by one thread at a time, which is all the
 * codec engine asks).
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"

#include "buffer_fit.h"
#include "pml_zip.h"
#include "zip_ompi_ctx_pool.h"

#define ZIP_POOL_SLOTS 16

/* Each buffer is preceded by its capacity; 64 bytes keep the payload cache-line aligned. */
#define ZIP_BUF_PREFIX 64

static opal_mutex_t pool_lock = OPAL_MUTEX_STATIC_INIT;
static void *free_bufs[ZIP_POOL_SLOTS];
static size_t free_caps[ZIP_POOL_SLOTS]; /* capacity of free_bufs[i] */
static int n_free_bufs;
static bool ctx_failed_reported;
static bool threads_failed_reported;

static size_t buf_capacity(void *buf)
{
    return *(size_t *)((char *)buf - ZIP_BUF_PREFIX);
}

/* Large buffers are pages of their own (zip_mem_alloc): a freed heap-mapped one would raise
 * glibc's mmap threshold for the application's own allocations. */
static void buf_release(void *buf)
{
    zip_mem_free((char *)buf - ZIP_BUF_PREFIX, buf_capacity(buf) + ZIP_BUF_PREFIX);
}

const char *mca_pml_zip_flat_bytes(const void *buf, size_t count, ompi_datatype_t *dtype,
                                   size_t bytes, void **packed)
{
    *packed = NULL;
    const char *src = zip_ompi_contiguous_base(buf, count, dtype);
    if (NULL != src) {
        return src;
    }
    *packed = mca_pml_zip_buf_get(bytes);
    if (NULL == *packed) {
        return NULL;
    }
    (void)zip_ompi_pack(*packed, buf, count, dtype);
    return *packed;
}

void *mca_pml_zip_buf_get(size_t bytes)
{
    void *found = NULL;

    OPAL_THREAD_LOCK(&pool_lock);
    int i = zip_buffer_pick(free_caps, n_free_bufs, bytes);
    if (i >= 0) {
        found = free_bufs[i];
        --n_free_bufs;
        free_bufs[i] = free_bufs[n_free_bufs];
        free_caps[i] = free_caps[n_free_bufs];
    }
    OPAL_THREAD_UNLOCK(&pool_lock);
    if (NULL != found) {
        return found;
    }
    size_t cap = zip_buffer_capacity(bytes);
    char *raw = zip_mem_alloc(cap + ZIP_BUF_PREFIX);
    if (NULL == raw) {
        return NULL;
    }
    *(size_t *)raw = cap;
    return raw + ZIP_BUF_PREFIX;
}

void mca_pml_zip_buf_put(void *buf)
{
    if (NULL == buf) {
        return;
    }
    size_t cap = buf_capacity(buf);
    OPAL_THREAD_LOCK(&pool_lock);
    if (n_free_bufs < ZIP_POOL_SLOTS) {
        free_bufs[n_free_bufs] = buf;
        free_caps[n_free_bufs] = cap;
        ++n_free_bufs;
        buf = NULL;
    } else {
        /* Keep the larger one: large buffers are the expensive ones to fault in. */
        for (int i = 0; i < n_free_bufs; ++i) {
            if (free_caps[i] < cap) {
                void *smaller = free_bufs[i];
                free_bufs[i] = buf;
                free_caps[i] = cap;
                buf = smaller;
                break;
            }
        }
    }
    OPAL_THREAD_UNLOCK(&pool_lock);
    if (NULL != buf) {
        buf_release(buf);
    }
}

/* A new context as pml/zip's parameters say (its codec was checked by the engine when we
 * installed ourselves, pml_zip_component.c); what cannot be set is said once. */
static zip_ctx_t *make_context(void)
{
    const char *spec = NULL != mca_pml_zip_component.codec ? mca_pml_zip_component.codec : "fast";
    zip_status_t st = ZIP_OK;
    zip_ctx_t *ctx = zip_ctx_create(spec, &st);
    const unsigned threads = NULL != ctx
                                 ? zip_ompi_codec_threads("pml:zip: pml_zip_codec_threads",
                                                          mca_pml_zip_component.codec_threads)
                                 : 1;
    if (NULL != ctx && 1 != threads && ZIP_OK != zip_ctx_set_threads(ctx, threads) &&
        !threads_failed_reported) {
        threads_failed_reported = true;
        opal_output(0, "pml:zip: pml_zip_codec_threads %d is not usable (%s); using one thread",
                    mca_pml_zip_component.codec_threads, zip_ctx_last_error(ctx));
    }
    if (NULL == ctx && !ctx_failed_reported) {
        ctx_failed_reported = true;
        opal_output(0, "pml:zip: codec \"%s\" unavailable (%s): sending uncompressed", spec,
                    zip_spec_error());
    }
    return ctx;
}

static zip_ompi_ctx_pool_t ctx_pool = ZIP_OMPI_CTX_POOL_INIT(make_context, ZIP_POOL_SLOTS);

zip_ctx_t *mca_pml_zip_ctx_get(void)
{
    return zip_ompi_ctx_take(&ctx_pool);
}

void mca_pml_zip_ctx_put(zip_ctx_t *ctx)
{
    zip_ompi_ctx_give(&ctx_pool, ctx);
}

void mca_pml_zip_buffers_fini(void)
{
    OPAL_THREAD_LOCK(&pool_lock);
    for (int i = 0; i < n_free_bufs; ++i) {
        buf_release(free_bufs[i]);
    }
    n_free_bufs = 0;
    OPAL_THREAD_UNLOCK(&pool_lock);
    zip_ompi_ctx_pool_fini(&ctx_pool);
}
