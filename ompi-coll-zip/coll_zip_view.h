/*
 * The user's data as the algorithms see it. A view describes (buffer, count, datatype); its
 * contiguous byte view is made only when a block is to be compressed: the user's memory itself
 * when the datatype is contiguous, otherwise a packed copy. Plain blocks are never packed: the
 * transport moves them by their view, in the user's own datatype (coll_zip_transport.c).
 */
#ifndef MCA_COLL_ZIP_VIEW_H
#define MCA_COLL_ZIP_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "mpi.h"

#include "algo/zip_algo.h"

struct ompi_datatype_t;

struct mca_coll_zip_arena_t;

typedef struct mca_coll_zip_view_t {
    char *bytes; /* what the algorithm reads or writes; NULL until mca_coll_zip_view_bytes */
    size_t len;
    char *packed;      /* the copy when the datatype is not contiguous, else NULL: */
    size_t packed_cap; /* from the algorithms' buffer cache (its capacity), 0: from malloc */
    bool in_arena;     /* or a slice of owner's arena */
    struct mca_coll_zip_arena_t *owner; /* that of the blocks it is one of, or NULL */
    char *copy; /* owned copy of the user's data in its datatype (mca_coll_zip_view_detach) */
    void *user;
    size_t count; /* elements of dtype at user */
    struct ompi_datatype_t *dtype;
} mca_coll_zip_view_t;

/* Describes the data; touches neither it nor any memory. */
void mca_coll_zip_view_describe(mca_coll_zip_view_t *v, const void *buf, int count,
                                struct ompi_datatype_t *dtype);
/* Makes v->bytes; data to send is packed now, received data by mca_coll_zip_view_deliver. */
int mca_coll_zip_view_bytes(mca_coll_zip_view_t *v, bool sending);
int mca_coll_zip_view_deliver(mca_coll_zip_view_t *v);
/* Data to send: a private copy of it, in its own datatype, from which the view then reads, so
 * that the user's memory may be received into meanwhile (MPI_IN_PLACE). Call it before
 * mca_coll_zip_view_bytes (afterwards it fails); otherwise fails only for lack of memory. */
int mca_coll_zip_view_detach(mca_coll_zip_view_t *v);
void mca_coll_zip_view_free(mca_coll_zip_view_t *v);

/* The blocks of one direction of a call, for the algorithms: blocks[i] stands for views[i] by
 * handle (zip_block_t.typed). The views that need packing share one arena from the algorithms'
 * buffer cache, taken at the first such view: a buffer per block, mapped afresh by glibc on
 * every call, cost each call its page faults (netemu, 8 ranks at 1 Gbit/s, alltoallw of 512 KiB
 * subarrays: 65-72 ms against 36 once the heap had grown). */
typedef struct mca_coll_zip_arena_t {
    int n;
    mca_coll_zip_view_t *views; /* the blocks' */
    char *base;
    size_t cap, used;
    bool taken; /* tried once: a failure leaves each view its own buffer */
} mca_coll_zip_arena_t;

/* Copied by value (a non-blocking call takes it over): what the views point to is on the heap. */
typedef struct mca_coll_zip_blocks_t {
    int n;
    mca_coll_zip_view_t *views;
    zip_block_t *blocks;
    mca_coll_zip_arena_t *arena;
} mca_coll_zip_blocks_t;

/* n empty blocks; fails only for lack of memory. */
int mca_coll_zip_blocks_init(mca_coll_zip_blocks_t *b, int n);
void mca_coll_zip_blocks_set(mca_coll_zip_blocks_t *b, int i, const void *buf, int count,
                             struct ompi_datatype_t *dtype);
/* One side of a call, as MPI describes it: block p is counts[p] elements of dtype at buf +
 * disps[p] extents, or, with counts NULL, `count` elements at buf + p * count extents; with
 * `types` (alltoallw) counts[p] elements of types[p] at buf + byte_disps[p] bytes, and dtype and
 * disps unused. */
typedef struct mca_coll_zip_layout_t {
    const void *buf;
    const int *counts, *disps;
    int count;
    struct ompi_datatype_t *dtype;
    const MPI_Aint *byte_disps;
    struct ompi_datatype_t *const *types;
} mca_coll_zip_layout_t;

/* Where block p of l starts, and its element count; its size in bytes; its datatype. */
char *mca_coll_zip_layout_block(const mca_coll_zip_layout_t *l, int p, int *count);
size_t mca_coll_zip_layout_bytes(const mca_coll_zip_layout_t *l, int p);
struct ompi_datatype_t *mca_coll_zip_layout_type(const mca_coll_zip_layout_t *l, int p);
/* The element type (ZIP_ALGO_*) the codec is told of blocks 0..n-1 of l: its datatype's, or with
 * a datatype per block that of the blocks that carry data where they all agree, else bytes. */
int mca_coll_zip_layout_elem_type(const mca_coll_zip_layout_t *l, int n);
/* Copies block p of `from` into block q of `to` (the local block of a call). */
int mca_coll_zip_layout_copy(const mca_coll_zip_layout_t *from, int p,
                             const mca_coll_zip_layout_t *to, int q);
/* Every block of l but `skip` (-1: none), described. */
void mca_coll_zip_blocks_layout(mca_coll_zip_blocks_t *b, const mca_coll_zip_layout_t *l, int skip);
/* After the call: unpacks received blocks (`deliver`, when rc is OMPI_SUCCESS), frees
 * everything, and returns rc or the unpacking's error. */
int mca_coll_zip_blocks_finish(mca_coll_zip_blocks_t *b, bool deliver, int rc);

#endif
