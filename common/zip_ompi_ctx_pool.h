/*
 * Idle codec contexts of one component, kept warm between the calls that use them.
 *
 * A context's first frames fault its working memory in (0.43-0.47 ms for a 64 KiB sample,
 * docs/performance.md "Codec contexts from a pool"), so coll/zip and pml/zip each keep their
 * idle ones in a pool of this type rather than make one per call or per communicator. Every
 * context of a pool is made alike by the pool's make function, so any serves any call: what
 * one keeps between calls is scratch and decoders, never a stream's history. A context is used
 * by one thread at a time, which is all the codec engine asks; the pool itself is shared by all
 * threads under its lock.
 */
#ifndef ZIP_OMPI_CTX_POOL_H
#define ZIP_OMPI_CTX_POOL_H

#include "opal/threads/mutex.h"

#include "zip/zip.h"

/* The most idle contexts a pool can keep. */
#define ZIP_OMPI_CTX_POOL_SLOTS 16

typedef struct zip_ompi_ctx_pool {
    zip_ctx_t *(*make)(void); /* a new context as the component's parameters say, or NULL */
    int kept; /* idle contexts kept, at most ZIP_OMPI_CTX_POOL_SLOTS; more are freed */
    int idle_count;
    zip_ctx_t *idle[ZIP_OMPI_CTX_POOL_SLOTS];
    opal_mutex_t lock;
} zip_ompi_ctx_pool_t;

/* A static pool: static zip_ompi_ctx_pool_t pool = ZIP_OMPI_CTX_POOL_INIT(make, 8); */
#define ZIP_OMPI_CTX_POOL_INIT(make_fn, kept_n)                                                    \
    {                                                                                              \
        (make_fn), (kept_n), 0, {NULL}, OPAL_MUTEX_STATIC_INIT                                     \
    }

/* An idle context, or a new one from pool->make (NULL if that fails). */
zip_ctx_t *zip_ompi_ctx_take(zip_ompi_ctx_pool_t *pool);

/* Gives ctx (NULL: nothing) back to the pool, or frees it when the pool holds enough. */
void zip_ompi_ctx_give(zip_ompi_ctx_pool_t *pool, zip_ctx_t *ctx);

/* Frees every idle context (at component close; contexts taken later are made anew). */
void zip_ompi_ctx_pool_fini(zip_ompi_ctx_pool_t *pool);

#endif
