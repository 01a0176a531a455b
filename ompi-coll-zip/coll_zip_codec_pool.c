/*
 * The codec contexts of coll/zip's calls in flight, kept warm between calls for the process (a
 * pool of common/zip_ompi_ctx_pool.h; pml/zip has its own, made by its own parameters).
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

#include "opal/util/output.h"

#include "coll_zip.h"
#include "zip_ompi_ctx_pool.h"

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

/* Idle contexts kept: a process runs one call per communicator at a time, plus its non-blocking
 * calls in flight; more than this many idle at once are freed. */
static zip_ompi_ctx_pool_t pool = ZIP_OMPI_CTX_POOL_INIT(make_context, 8);

zip_ctx_t *mca_coll_zip_codec_take(void)
{
    return zip_ompi_ctx_take(&pool);
}

void mca_coll_zip_codec_give(zip_ctx_t *ctx)
{
    zip_ompi_ctx_give(&pool, ctx);
}

void mca_coll_zip_codec_pool_fini(void)
{
    zip_ompi_ctx_pool_fini(&pool);
}
