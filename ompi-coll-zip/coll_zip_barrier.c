/*
 * MPI_Barrier: handed on as it is, but first the point where the ranks of a communicator may
 * agree on the speeds (coll_zip_policy.c). Non-blocking calls never agree (their start must not
 * wait for the other ranks), so a communicator that only sees non-blocking collectives and
 * barriers agrees here (after a non-blocking call that wanted the speeds, any blocking
 * collective zip intercepts agrees too); without an agreement its non-blocking calls are
 * handed on.
 */
#include "ompi_config.h"

#include "coll_zip.h"

int mca_coll_zip_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    mca_coll_zip_policy_agree_now(m, comm);
    return m->previous_barrier(comm, m->previous_barrier_module);
}
