/*
 * MPI_Bcast: payloads of at least `threshold` bytes take the compressed pipeline, when the
 * policy finds that compressing can pay on this communicator's link (coll_zip_policy.c);
 * other calls go to the previous component untouched. count * type size and the policy's
 * agreed speeds are the same on every rank, so every rank takes the same branch.
 */
#include "ompi_config.h"

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

int mca_coll_zip_bcast(void *buff, int count, struct ompi_datatype_t *datatype, int root,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    size_t type_size = 0;

    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    ompi_datatype_type_size(datatype, &type_size);
    const size_t bytes = type_size * (size_t)(count > 0 ? count : 0);
    if (bytes == 0 || bytes < z->threshold) {
        mca_coll_zip_stats_add(COLL_ZIP_OP_BCAST, 1, 0, 0, 0, 0);
        return m->previous_bcast(buff, count, datatype, root, comm, m->previous_bcast_module);
    }

    const int rank = ompi_comm_rank(comm);
    if (!mca_coll_zip_policy_takes(m, comm, COLL_ZIP_OP_BCAST, bytes, rank == root ? buff : NULL,
                                   count, datatype, rank == root ? bytes : 0)) {
        return m->previous_bcast(buff, count, datatype, root, comm, m->previous_bcast_module);
    }
    mca_coll_zip_view_t view;
    mca_coll_zip_view_describe(&view, buff, count, datatype);
    int rc = mca_coll_zip_view_bytes(&view, rank == root);
    if (OMPI_SUCCESS != rc) {
        mca_coll_zip_view_free(&view);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Bcast", comm);
    }

    const zip_bcast_args_t args = {
        .buf = view.bytes,
        .bytes = bytes,
        .root = root,
        .tag = MCA_COLL_BASE_TAG_BCAST,
        .elem_type = mca_coll_zip_elem_type(datatype),
        .try_compress = 1,
        .segment_bytes = z->segment_size,
        .topology = ZIP_BCAST_AUTO,
        .policy = &m->call_policy,
    };
    rc = mca_coll_zip_run(m, comm, COLL_ZIP_OP_BCAST, root, &args);
    if (OMPI_SUCCESS == rc && rank != root) {
        rc = mca_coll_zip_view_deliver(&view);
    }
    mca_coll_zip_view_free(&view);
    return rc;
}
