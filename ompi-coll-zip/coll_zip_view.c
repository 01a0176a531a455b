/*
 * The views of coll_zip_view.h on the shared datatype helpers (zip_ompi.h).
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"

#include "zip_ompi.h"
#include "coll_zip_view.h"

void mca_coll_zip_view_describe(mca_coll_zip_view_t *v, const void *buf, int count,
                                struct ompi_datatype_t *dtype)
{
    v->count = count > 0 ? (size_t)count : 0;
    v->len = dtype->super.size * v->count;
    v->packed = NULL;
    v->packed_cap = 0;
    v->in_arena = false;
    v->owner = NULL;
    v->copy = NULL;
    v->bytes = NULL;
    v->user = (void *)buf;
    v->dtype = dtype;
}

/* Slices of the arena start on cache lines. */
static size_t arena_slice(size_t len)
{
    return (len + 63) & ~(size_t)63;
}

/* len bytes of arena a for a view to pack, or NULL: the arena, taken at the first call, holds
 * every view of its blocks whose datatype is not contiguous. */
static char *arena_take(mca_coll_zip_arena_t *a, size_t len)
{
    if (!a->taken) {
        a->taken = true;
        size_t need = 0;
        for (int i = 0; i < a->n; ++i) {
            const mca_coll_zip_view_t *w = &a->views[i];
            if (w->len > 0 && NULL == zip_ompi_contiguous_base(w->user, w->count, w->dtype)) {
                need += arena_slice(w->len);
            }
        }
        a->base = need > 0 ? zip_algo_buffer_take(need, &a->cap) : NULL;
    }
    if (NULL == a->base || a->used + arena_slice(len) > a->cap) {
        return NULL;
    }
    char *at = a->base + a->used;
    a->used += arena_slice(len);
    return at;
}

int mca_coll_zip_view_bytes(mca_coll_zip_view_t *v, bool sending)
{
    if (0 == v->len || NULL != v->bytes) {
        return OMPI_SUCCESS;
    }
    v->bytes = zip_ompi_contiguous_base(v->user, v->count, v->dtype);
    if (NULL != v->bytes) {
        return OMPI_SUCCESS;
    }
    v->packed = NULL != v->owner ? arena_take(v->owner, v->len) : NULL;
    v->in_arena = NULL != v->packed;
    if (NULL == v->packed) {
        /* A bcast's one view, or the arena short: the cache serves large ones, which glibc
         * would map afresh on every call. */
        v->packed = zip_algo_buffer_take(v->len, &v->packed_cap);
    }
    if (NULL == v->packed) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    v->bytes = v->packed;
    if (sending && MPI_SUCCESS != zip_ompi_pack(v->packed, v->user, v->count, v->dtype)) {
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

int mca_coll_zip_view_deliver(mca_coll_zip_view_t *v)
{
    if (NULL == v->packed) {
        return OMPI_SUCCESS;
    }
    return MPI_SUCCESS == zip_ompi_unpack(v->packed, v->len, v->user, v->count, v->dtype)
               ? OMPI_SUCCESS
               : OMPI_ERROR;
}

int mca_coll_zip_view_detach(mca_coll_zip_view_t *v)
{
    if (0 == v->count || NULL != v->bytes || NULL != v->copy) {
        return NULL != v->bytes ? OMPI_ERROR : OMPI_SUCCESS;
    }
    ptrdiff_t gap = 0;
    const ptrdiff_t span = opal_datatype_span(&v->dtype->super, v->count, &gap);
    v->copy = malloc(span > 0 ? (size_t)span : 1);
    if (NULL == v->copy) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    /* gap: where the lowest byte the data touches lies from its buffer's address. */
    char *base = v->copy - gap;
    if (MPI_SUCCESS !=
        ompi_datatype_copy_content_same_ddt(v->dtype, v->count, base, (char *)v->user)) {
        return OMPI_ERROR;
    }
    v->user = base;
    return OMPI_SUCCESS;
}

void mca_coll_zip_view_free(mca_coll_zip_view_t *v)
{
    if (NULL != v->packed && !v->in_arena) {
        zip_algo_buffer_give(v->packed, v->packed_cap);
    }
    free(v->copy);
    v->packed = NULL;
    v->in_arena = false;
    v->copy = NULL;
}

static void blocks_release(mca_coll_zip_blocks_t *b)
{
    if (NULL != b->arena && NULL != b->arena->base) {
        zip_algo_buffer_give(b->arena->base, b->arena->cap);
    }
    free(b->arena);
    free(b->views);
    free(b->blocks);
    *b = (mca_coll_zip_blocks_t){0};
}

int mca_coll_zip_blocks_init(mca_coll_zip_blocks_t *b, int n)
{
    *b = (mca_coll_zip_blocks_t){0};
    b->n = n;
    b->views = calloc((size_t)n, sizeof(*b->views));
    b->blocks = calloc((size_t)n, sizeof(*b->blocks));
    b->arena = calloc(1, sizeof(*b->arena));
    if (NULL == b->views || NULL == b->blocks || NULL == b->arena) {
        blocks_release(b);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    b->arena->n = n;
    b->arena->views = b->views;
    return OMPI_SUCCESS;
}

void mca_coll_zip_blocks_set(mca_coll_zip_blocks_t *b, int i, const void *buf, int count,
                             struct ompi_datatype_t *dtype)
{
    mca_coll_zip_view_describe(&b->views[i], buf, count, dtype);
    b->views[i].owner = b->arena;
    b->blocks[i] = (zip_block_t){NULL, b->views[i].len, &b->views[i]};
}

char *mca_coll_zip_layout_block(const mca_coll_zip_layout_t *l, int p, int *count)
{
    if (NULL != l->types) {
        *count = l->counts[p];
        return (char *)l->buf + l->byte_disps[p];
    }
    ptrdiff_t lb = 0, extent = 0;
    ompi_datatype_get_extent(l->dtype, &lb, &extent);
    const ptrdiff_t at = NULL != l->counts ? (ptrdiff_t)l->disps[p] : (ptrdiff_t)p * l->count;
    *count = NULL != l->counts ? l->counts[p] : l->count;
    return (char *)l->buf + at * extent;
}

struct ompi_datatype_t *mca_coll_zip_layout_type(const mca_coll_zip_layout_t *l, int p)
{
    return NULL != l->types ? l->types[p] : l->dtype;
}

size_t mca_coll_zip_layout_bytes(const mca_coll_zip_layout_t *l, int p)
{
    const int count = NULL != l->counts ? l->counts[p] : l->count;
    return mca_coll_zip_layout_type(l, p)->super.size * (size_t)(count > 0 ? count : 0);
}

int mca_coll_zip_layout_elem_type(const mca_coll_zip_layout_t *l, int n)
{
    if (NULL == l->types) {
        return (int)zip_ompi_elem_type(l->dtype);
    }
    int elem = -1;
    for (int p = 0; p < n; ++p) {
        if (mca_coll_zip_layout_bytes(l, p) > 0) {
            const int e = (int)zip_ompi_elem_type(l->types[p]);
            if (elem >= 0 && e != elem) {
                return ZIP_ALGO_BYTES;
            }
            elem = e;
        }
    }
    return elem >= 0 ? elem : ZIP_ALGO_BYTES;
}

int mca_coll_zip_layout_copy(const mca_coll_zip_layout_t *from, int p,
                             const mca_coll_zip_layout_t *to, int q)
{
    int from_count = 0, to_count = 0;
    const char *src = mca_coll_zip_layout_block(from, p, &from_count);
    char *dst = mca_coll_zip_layout_block(to, q, &to_count);
    return ompi_datatype_sndrcv(src, from_count, mca_coll_zip_layout_type(from, p), dst, to_count,
                                mca_coll_zip_layout_type(to, q));
}

void mca_coll_zip_blocks_layout(mca_coll_zip_blocks_t *b, const mca_coll_zip_layout_t *l, int skip)
{
    for (int p = 0; p < b->n; ++p) {
        if (p != skip) {
            int count = 0;
            const char *block = mca_coll_zip_layout_block(l, p, &count);
            mca_coll_zip_blocks_set(b, p, block, count, mca_coll_zip_layout_type(l, p));
        }
    }
}

int mca_coll_zip_blocks_finish(mca_coll_zip_blocks_t *b, bool deliver, int rc)
{
    for (int p = 0; p < b->n; ++p) {
        if (deliver && OMPI_SUCCESS == rc) {
            rc = mca_coll_zip_view_deliver(&b->views[p]);
        }
        mca_coll_zip_view_free(&b->views[p]);
    }
    blocks_release(b);
    return rc;
}
