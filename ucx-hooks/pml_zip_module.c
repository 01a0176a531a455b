/*
 * pml/zip module: the function table installed in mca_pml. Calls zip has nothing to add to
 * go straight to the wrapped PML; the compressing ones live in pml_zip_send.c, pml_zip_recv.c
 * and pml_zip_probe.c.
 */
#include "ompi_config.h"

#include "opal/util/output.h"
#include "ompi/constants.h"

#include "pml_zip.h"

/* True, after one message, when the selection left us in mca_pml with nothing behind us:
 * "--mca pml zip" alone, or "--mca pml ucx,zip" where pml/ucx declined (no usable transport).
 * MPI_Init then fails the way it would with that PML alone, instead of calling a NULL table. */
static bool zip_selected_alone(void)
{
    static bool told = false;
    if (mca_pml_zip_component.active) {
        return false;
    }
    if (!told) {
        told = true;
        opal_output(0, "pml:zip is an interposer and no PML before it in the pml list could be "
                       "selected (name the real PML first, e.g. --mca pml ob1,zip or --mca pml "
                       "ucx,zip; --mca pml_base_verbose 10 tells why a PML declined)");
    }
    return true;
}

static int zip_add_procs(struct ompi_proc_t **procs, size_t nprocs)
{
    if (zip_selected_alone()) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    return mca_pml_zip_wrapped.pml_add_procs(procs, nprocs);
}

static int zip_del_procs(struct ompi_proc_t **procs, size_t nprocs)
{
    if (!mca_pml_zip_component.active) {
        return OMPI_SUCCESS; /* MPI_Init failed before any proc was added */
    }
    return mca_pml_zip_wrapped.pml_del_procs(procs, nprocs);
}

/* MPI_Init enables the PML before it adds procs: the first call to reach us. */
static int zip_enable(bool enable)
{
    if (zip_selected_alone()) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    return mca_pml_zip_wrapped.pml_enable(enable);
}

static int zip_dump(ompi_communicator_t *comm, int verbose)
{
    return mca_pml_zip_wrapped.pml_dump(comm, verbose);
}

mca_pml_base_module_t mca_pml_zip_module = {
    .pml_add_procs = zip_add_procs,
    .pml_del_procs = zip_del_procs,
    .pml_enable = zip_enable,
    .pml_progress = NULL, /* replaced by the wrapped PML's at installation */
    .pml_add_comm = mca_pml_zip_add_comm,
    .pml_del_comm = mca_pml_zip_del_comm,
    .pml_irecv_init = mca_pml_zip_irecv_init,
    .pml_irecv = mca_pml_zip_irecv,
    .pml_recv = mca_pml_zip_recv,
    .pml_isend_init = mca_pml_zip_isend_init,
    .pml_isend = mca_pml_zip_isend,
    .pml_send = mca_pml_zip_send,
    .pml_iprobe = mca_pml_zip_iprobe,
    .pml_probe = mca_pml_zip_probe,
    .pml_start = mca_pml_zip_request_start,
    .pml_improbe = mca_pml_zip_improbe,
    .pml_mprobe = mca_pml_zip_mprobe,
    .pml_imrecv = mca_pml_zip_imrecv,
    .pml_mrecv = mca_pml_zip_mrecv,
    .pml_dump = zip_dump,
    .pml_ft_event = NULL,
    .pml_max_contextid = 65535,
    .pml_max_tag = INT_MAX,
    .pml_flags = 0,
};
