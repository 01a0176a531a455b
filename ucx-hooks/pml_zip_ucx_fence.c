/*
 * A fence against pml/ucx's completions, for direct receives under MPI_THREAD_MULTIPLE.
 *
 * A direct receive (pml_zip_direct.c) is the wrapped PML's own request with zip's completion
 * callback on it. Posted with pml/ucx's irecv, it can complete in another thread's progress before
 * the callback is attached; ompi_request_complete reads the callback before it marks the request
 * complete, so the posting thread, once it has attached the callback, cannot tell "completed
 * without it" from "about to complete without it" by looking at the request. pml/ucx's start,
 * which would post with the callback already on, loses completions itself (pml_zip_direct.c).
 *
 * Under MPI_THREAD_MULTIPLE pml/ucx runs a worker in UCS_THREAD_MODE_MULTI (it refuses to run
 * otherwise, Open MPI 4.1.4 mca_pml_ucx_init), and UCX calls every completion callback of that
 * worker while holding the worker's lock: from ucp_worker_progress, from the posting call itself,
 * and from its async thread (UCX 1.13: UCP_WORKER_THREAD_CS_ENTER_CONDITIONAL around each). So
 * once the callback is attached, taking and releasing that lock orders the posting thread after
 * any completion already under way: afterwards the request is either complete (the callback run,
 * or missed and still attached, for the poster to take off and act on) or not yet matched, and
 * whoever completes it sees the callback. UCX has no call that only takes the lock; a probe for a
 * tag nobody sends takes it, looks in one bucket of the unexpected-message hash, and moves
 * nothing (ucp_tag_probe_nb with remove = 0: no progress, no callbacks run).
 *
 * pml/ucx's worker is read from its module (ompi_pml_ucx: a mca_pml_base_module_t, then the UCP
 * context and worker handles, in Open MPI 4.1.4 and 5.0.0 alike), found by name: Open MPI opens its
 * components into the global namespace. The module must be the one zip wraps (its irecv is the
 * wrapped irecv); else, or without the probe in the process, there is no fence, and threaded
 * receives over ucx stay zip requests.
 */
#include "ompi_config.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "pml_zip.h"

/* The head of pml/ucx's module (ompi/mca/pml/ucx/pml_ucx.h), as far as zip reads it. */
typedef struct {
    mca_pml_base_module_t super;
    void *ucp_context;
    void *ucp_worker;
} ucx_module_head_t;

/* ucp_tag_recv_info_t: written only when a message matches; room to spare. */
typedef struct {
    uint64_t words[4];
} probe_info_t;

typedef void *(*tag_probe_fn_t)(void *worker, uint64_t tag, uint64_t tag_mask, int remove,
                                probe_info_t *info);

static tag_probe_fn_t tag_probe;
static void *worker;

bool mca_pml_zip_ucx_fence_init(void)
{
    tag_probe = NULL;
    worker = NULL;
    if (0 != strcmp("ucx", mca_pml_zip_wrapped_component.pmlm_version.mca_component_name)) {
        return false;
    }
    const ucx_module_head_t *module = dlsym(RTLD_DEFAULT, "ompi_pml_ucx");
    void *probe = dlsym(RTLD_DEFAULT, "ucp_tag_probe_nb");
    if (NULL == module || NULL == probe || NULL == module->ucp_worker ||
        module->super.pml_irecv != mca_pml_zip_wrapped.pml_irecv) {
        return false;
    }
    tag_probe = (tag_probe_fn_t)probe; /* POSIX: dlsym's void * converts to a function */
    worker = module->ucp_worker;
    return true;
}

void mca_pml_zip_ucx_fence(void)
{
    /* pml/ucx puts the context id in the low 20 bits of a tag, the source in the next 20, the MPI
     * tag in the top 24: this is tag -1 of context 0xfffff, and a match would change nothing. */
    probe_info_t info;
    (void)tag_probe(worker, UINT64_MAX, UINT64_MAX, 0, &info);
}
