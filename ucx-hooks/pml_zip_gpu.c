/*
 * Communicators with a GPU process go untouched.
 *
 * zip reads and writes message data with the CPU: a receive posted into the application's
 * buffer has its first 14 bytes copied and read (an envelope may land there), a send is sampled
 * and coded. A device pointer, which a CUDA-, ROCm- or Level Zero-aware MPI accepts, would fault
 * there. A process whose MPI can be handed device memory has the GPU driver's library loaded by
 * the time the PML is selected (common/gpu_runtime.h), so each process says in the modex whether
 * it has one, and on a communicator where any member does, every member passes every message
 * to the wrapped PML as it came: no envelope is sent to or by any of them, so none needs
 * reading, and all of them decide alike from the same modex data.
 */
#include "ompi_config.h"

#include <stdint.h>

#include "opal/class/opal_hash_table.h"
#include "opal/mca/pmix/pmix.h"
#include "opal/threads/mutex.h"
#include "opal/util/output.h"
#include "ompi/communicator/communicator.h"
#include "ompi/group/group.h"
#include "ompi/proc/proc.h"

#include "gpu_runtime.h"
#include "pml_zip.h"

#define ZIP_GPU_MODEX_KEY "pml.zip.gpu"

/* Processes' answers, by (jobid << 32 | vpid): the answer + 1. */
static opal_hash_table_t answers;
static bool answers_made = false;
static opal_mutex_t answers_lock = OPAL_MUTEX_STATIC_INIT;

void mca_pml_zip_gpu_publish(void)
{
    mca_pml_zip_component_t *z = &mca_pml_zip_component;
    z->gpu_runtime = z->gpu_guard ? zip_gpu_runtime_loaded() : NULL;
    uint8_t mine = NULL != z->gpu_runtime;
    int rc;
    /* Every process says it, 0 or 1, so that a peer fetching it on demand (no full modex) finds
     * it. The PML is selected before MPI_Init's modex fence, which carries it. */
    OPAL_MODEX_SEND_VALUE(rc, OPAL_PMIX_GLOBAL, ZIP_GPU_MODEX_KEY, &mine, OPAL_UINT8);
    if (OPAL_SUCCESS != rc) {
        opal_output(0, "pml:zip: could not publish whether this process has a GPU runtime (%d)",
                    rc);
    }
    if (mine) {
        opal_output_verbose(1, z->output,
                            "pml:zip: %s is loaded in this process: communicators it is a member "
                            "of pass their messages to pml/%s untouched (pml_zip_gpu_guard)",
                            z->gpu_runtime,
                            mca_pml_zip_wrapped_component.pmlm_version.mca_component_name);
    }
}

/* Whether the process `name` has a GPU runtime loaded (as it said in the modex; a process that
 * said nothing, none). Called with answers_lock held. */
static bool gpu_of(const opal_process_name_t *name)
{
    if (0 == opal_compare_proc(*name, ompi_proc_local()->super.proc_name)) {
        return NULL != mca_pml_zip_component.gpu_runtime;
    }
    if (!answers_made) {
        OBJ_CONSTRUCT(&answers, opal_hash_table_t);
        opal_hash_table_init(&answers, 64);
        answers_made = true;
    }
    const uint64_t key = (uint64_t)name->jobid << 32 | name->vpid;
    void *known = NULL;
    if (OPAL_SUCCESS == opal_hash_table_get_value_uint64(&answers, key, &known)) {
        return 2 == (uintptr_t)known;
    }
    uint8_t said = 0, *into = &said;
    int rc;
    if (opal_pmix_collect_all_data) {
        /* Every process's data arrived with MPI_Init's fence: a miss is final, not a fetch. */
        OPAL_MODEX_RECV_VALUE_OPTIONAL(rc, ZIP_GPU_MODEX_KEY, name, &into, OPAL_UINT8);
    } else {
        OPAL_MODEX_RECV_VALUE(rc, ZIP_GPU_MODEX_KEY, name, &into, OPAL_UINT8);
    }
    const bool gpu = OPAL_SUCCESS == rc && 0 != said;
    opal_hash_table_set_value_uint64(&answers, key, (void *)(uintptr_t)(gpu ? 2 : 1));
    return gpu;
}

static bool group_has_gpu(ompi_group_t *group)
{
    if (NULL == group) {
        return false;
    }
    for (int i = 0; i < ompi_group_size(group); ++i) {
        const opal_process_name_t name = ompi_group_get_proc_name(group, i);
        if (gpu_of(&name)) {
            return true;
        }
    }
    return false;
}

bool mca_pml_zip_gpu_in_comm(ompi_communicator_t *comm)
{
    if (!mca_pml_zip_component.gpu_guard) {
        return false;
    }
    opal_mutex_lock(&answers_lock);
    const bool gpu = group_has_gpu(comm->c_local_group) ||
                     (OMPI_COMM_IS_INTER(comm) && group_has_gpu(comm->c_remote_group));
    opal_mutex_unlock(&answers_lock);
    if (gpu) {
        opal_output_verbose(1, mca_pml_zip_component.output,
                            "pml:zip: %s has a process with a GPU runtime: its messages go to "
                            "pml/%s untouched",
                            comm->c_name,
                            mca_pml_zip_wrapped_component.pmlm_version.mca_component_name);
    }
    return gpu;
}

void mca_pml_zip_gpu_fini(void)
{
    opal_mutex_lock(&answers_lock);
    if (answers_made) {
        OBJ_DESTRUCT(&answers);
        answers_made = false;
    }
    opal_mutex_unlock(&answers_lock);
}
