/*
 * LD_PRELOAD shim: counts the calls to ucp_tag_recv_nb, which pml/ucx (Open MPI 4.1.4 built
 * against a UCX with ucp_tag_recv_nbx) makes only to start a persistent receive (its MPI_Irecv
 * and MPI_Recv use ucp_tag_recv_nbx), and prints the count at exit: "ucp_tag_recv_nb calls: N".
 * The test checks that stock pml/ucx counts 0 on the same program before it counts zip's.
 *
 * That start loses completions that another thread makes between its test of the new request
 * and the link to the persistent one (pml_zip_direct.c), so under MPI_THREAD_MULTIPLE zip must
 * not start the wrapped PML's receives; a program without persistent receives then shows 0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

/* UCP's types, as opaque as this shim needs them (no UCX headers on a stock machine). */
typedef void *(*recv_nb_fn)(void *worker, void *buffer, size_t count, uint64_t datatype,
                            uint64_t tag, uint64_t tag_mask, void *cb);

static volatile long calls;

void *ucp_tag_recv_nb(void *worker, void *buffer, size_t count, uint64_t datatype, uint64_t tag,
                      uint64_t tag_mask, void *cb)
{
    static recv_nb_fn real;
    if (NULL == real) {
        real = (recv_nb_fn)dlsym(RTLD_NEXT, "ucp_tag_recv_nb");
    }
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return real(worker, buffer, count, datatype, tag, tag_mask, cb);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "ucp_tag_recv_nb calls: %ld\n", calls);
}
