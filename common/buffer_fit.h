/*
 * Which staging buffer serves a request, for pml/zip's buffer pool (pml_zip_buffers.c), without
 * MPI (unit-tested in tests/unit/test_buffer_fit.cpp).
 *
 * The pool exists for large buffers: a fresh malloc of one is an mmap and a page fault per page,
 * as costly as the codec on a 1 MiB message. Small ones are cheap to malloc but are many (a
 * stashed probe's message, the landing buffer of a small persistent or non-contiguous receive
 * under MPI_THREAD_MULTIPLE, held until its message comes), so they must neither be rounded up to a
 * page multiple nor sit on a large message's buffer while they wait: the next large message would
 * fault in a new one.
 */
#ifndef ZIP_BUFFER_FIT_H
#define ZIP_BUFFER_FIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From this size up, buffers are whole pages; below it, multiples of ZIP_BUFFER_SMALL_STEP. */
#define ZIP_BUFFER_LARGE_BYTES ((size_t)64 * 1024)
#define ZIP_BUFFER_SMALL_STEP ((size_t)256)
/* A free buffer serves a request of at least 1 / ZIP_BUFFER_MAX_WASTE of its capacity. */
#define ZIP_BUFFER_MAX_WASTE 4

/* The capacity to allocate for a request of `bytes` (at least `bytes`; 0 counts as 1): sizes
 * that differ by a little share one capacity, so that one buffer serves them all. */
size_t zip_buffer_capacity(size_t bytes);

/* Which of the n free buffers of capacities caps[] serves a request of `bytes`: the smallest
 * that holds it, unless that one is large and more than ZIP_BUFFER_MAX_WASTE times the request.
 * -1: none does (allocate a new one). */
int zip_buffer_pick(const size_t *caps, int n, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
