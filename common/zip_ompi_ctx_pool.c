#include "ompi_config.h"

#include <stdbool.h>

#include "zip_ompi_ctx_pool.h"

zip_ctx_t *zip_ompi_ctx_take(zip_ompi_ctx_pool_t *pool)
{
    zip_ctx_t *ctx = NULL;
    OPAL_THREAD_LOCK(&pool->lock);
    if (pool->idle_count > 0) {
        ctx = pool->idle[--pool->idle_count];
    }
    OPAL_THREAD_UNLOCK(&pool->lock);
    return NULL != ctx ? ctx : pool->make();
}

void zip_ompi_ctx_give(zip_ompi_ctx_pool_t *pool, zip_ctx_t *ctx)
{
    if (NULL == ctx) {
        return;
    }
    OPAL_THREAD_LOCK(&pool->lock);
    const bool kept = pool->idle_count < pool->kept && pool->idle_count < ZIP_OMPI_CTX_POOL_SLOTS;
    if (kept) {
        pool->idle[pool->idle_count++] = ctx;
    }
    OPAL_THREAD_UNLOCK(&pool->lock);
    if (!kept) {
        zip_ctx_destroy(ctx);
    }
}

void zip_ompi_ctx_pool_fini(zip_ompi_ctx_pool_t *pool)
{
    OPAL_THREAD_LOCK(&pool->lock);
    while (pool->idle_count > 0) {
        zip_ctx_destroy(pool->idle[--pool->idle_count]);
    }
    OPAL_THREAD_UNLOCK(&pool->lock);
}
