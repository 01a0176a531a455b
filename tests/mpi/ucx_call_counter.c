/*
 * LD_PRELOAD shim: counts two UCP calls and prints the counts at exit.
 *
 * "ucp_tag_recv_nb calls: N": pml/ucx (Open MPI 4.1.4 built against a UCX with ucp_tag_recv_nbx)
 * makes that call only to start a persistent receive (its MPI_Irecv and MPI_Recv use
 * ucp_tag_recv_nbx). That start loses completions that another thread makes between its test of
 * the new request and the link to the persistent one (pml_zip_direct.c), so under
 * MPI_THREAD_MULTIPLE zip must not start the wrapped PML's receives; a program without
 * persistent receives then shows 0. The test checks that stock pml/ucx counts 0 on the same
 * program before it counts zip's.
 *
 * "zip fences: N": probes for tag and mask all ones, which is how pml/zip fences pml/ucx's
 * completions after it attaches its callback to a threaded direct receive
 * (pml_zip_ucx_fence.c): one per MPI_Irecv that zip hands out as pml/ucx's own request.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

/* UCP's types, as opaque as this shim needs them (no UCX headers on a stock machine). */
typedef void *(*recv_nb_fn)(void *worker, void *buffer, size_t count, uint64_t datatype,
                            uint64_t tag, uint64_t tag_mask, void *cb);
typedef void *(*probe_nb_fn)(void *worker, uint64_t tag, uint64_t tag_mask, int remove, void *info);

static volatile long recv_nb_calls, fences;

void *ucp_tag_recv_nb(void *worker, void *buffer, size_t count, uint64_t datatype, uint64_t tag,
                      uint64_t tag_mask, void *cb)
{
    static recv_nb_fn real;
    if (NULL == real) {
        real = (recv_nb_fn)dlsym(RTLD_NEXT, "ucp_tag_recv_nb");
    }
    __atomic_add_fetch(&recv_nb_calls, 1, __ATOMIC_RELAXED);
    return real(worker, buffer, count, datatype, tag, tag_mask, cb);
}

void *ucp_tag_probe_nb(void *worker, uint64_t tag, uint64_t tag_mask, int remove, void *info)
{
    static probe_nb_fn real;
    if (NULL == real) {
        real = (probe_nb_fn)dlsym(RTLD_NEXT, "ucp_tag_probe_nb");
    }
    if (UINT64_MAX == tag && UINT64_MAX == tag_mask && 0 == remove) {
        __atomic_add_fetch(&fences, 1, __ATOMIC_RELAXED);
    }
    return real(worker, tag, tag_mask, remove, info);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "ucp_tag_recv_nb calls: %ld\nzip fences: %ld\n", recv_nb_calls, fences);
}
