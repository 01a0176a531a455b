/*
 * The codec contexts of the calls in flight, kept warm between calls for the process.
 *
 * A call takes a context for as long as it codes and gives it back. Every context is made alike
 * (coll_zip_codec, coll_zip_block_size, coll_zip_codec_threads; no temporal spec, which
 * zip_ompi_codec_resolve refuses), so any serves any call: what one keeps between calls is
 * scratch and decoders, never a stream's history. Until 2026-12-07 each communicator made its
 * own at enable and each non-blocking call one more: 129-241 KB per communicator once used, and
 * a fresh context's first frame faulting its working memory in (0.43-0.47 ms for a 64 KiB
 * sample; 20-130 us more per non-blocking call of 64 KiB-1 MiB, docs/performance.md).
 */
#include "ompi_config.h"

#include <stdbool.h>

#include "opal/threads/mutex.h"
#include "opal/util/output.h"

#include "coll_zip.h"

/* Idle contexts kept: a process runs one call per communicator at a time, plus its non-blocking
 * calls in flight; more than this many idle at once are freed. */
enum { POOL_KEPT = 8 };

static zip_ctx_t *idle[POOL_KEPT];
static int idle_count = 0;
static opal_mutex_t pool_lock = OPAL_MUTEX_STATIC_INIT;

/* A new context as the component's parameters say; what cannot be set is said once. */
static zip_ctx_t *make_context(void)
{
    static bool told_block = false, told_threads = false;
    const mca_coll_zip_component_t *z = &mca_coll_zip_component;
    zip_status_t status = ZIP_OK;
    zip_ctx_t *ctx = zip_ctx_create(z->codec_spec, &status);
    if (NULL == ctx) {
        opal_output(0, "coll:zip: cannot create codec \"%s\": %s", z->codec_spec, zip_spec_error());
        return NULL;
    }
    if (0 != z->block_size && ZIP_OK != zip_ctx_set_block_size(ctx, z->block_size) && !told_block) {
        told_block = true; /* the codec keeps its default */
        opal_output(0,
                    "coll:zip: coll_zip_block_size %zu is not usable (%s); using the codec's "
                    "default",
                    z->block_size, zip_ctx_last_error(ctx));
    }
    const unsigned threads =
        zip_ompi_codec_threads("coll:zip: coll_zip_codec_threads", z->codec_threads);
    if (1 != threads && ZIP_OK != zip_ctx_set_threads(ctx, threads) && !told_threads) {
        told_threads = true;
        opal_output(0, "coll:zip: coll_zip_codec_threads %d is not usable (%s); using one thread",
                    z->codec_threads, zip_ctx_last_error(ctx));
    }
    return ctx;
}

zip_ctx_t *mca_coll_zip_codec_take(void)
{
    zip_ctx_t *ctx = NULL;
    opal_mutex_lock(&pool_lock);
    if (idle_count > 0) {
        ctx = idle[--idle_count];
    }
    opal_mutex_unlock(&pool_lock);
    return NULL != ctx ? ctx : make_context();
}

void mca_coll_zip_codec_give(zip_ctx_t *ctx)
{
    if (NULL == ctx) {
        return;
    }
    opal_mutex_lock(&pool_lock);
    const bool kept = idle_count < POOL_KEPT;
    if (kept) {
        idle[idle_count++] = ctx;
    }
    opal_mutex_unlock(&pool_lock);
    if (!kept) {
        zip_ctx_destroy(ctx);
    }
}

void mca_coll_zip_codec_pool_fini(void)
{
    opal_mutex_lock(&pool_lock);
    while (idle_count > 0) {
        zip_ctx_destroy(idle[--idle_count]);
    }
    opal_mutex_unlock(&pool_lock);
}
