/*
 * MPI_Alltoallv: the algorithm (algo/alltoallv_algo.cpp) compresses every block of at least
 * `threshold` bytes for its destination, in pairwise steps, and moves the others plainly, all
 * posted at once. MPI_IN_PLACE is used by all ranks or none and goes to the previous component.
 */
#include "ompi_config.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

/* The policy routes the call alike on every rank; under observe this rank's largest block
 * at or above the threshold is its sample, and those blocks together its payload. */
static bool policy_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                         const void *sbuf, const int *scounts, const int *sdisps,
                         struct ompi_datatype_t *sdtype)
{
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    const size_t threshold = mca_coll_zip_component.threshold;
    size_t ssize = 0, mine = 0, largest = 0;
    ptrdiff_t lb = 0, extent = 0;
    int sample = -1;
    ompi_datatype_type_size(sdtype, &ssize);
    ompi_datatype_get_extent(sdtype, &lb, &extent);
    for (int p = 0; p < size; ++p) {
        const size_t b = ssize * (size_t)(scounts[p] > 0 ? scounts[p] : 0);
        if (p != rank && b >= threshold) {
            mine += b;
            if (b > largest) {
                largest = b;
                sample = p;
            }
        }
    }
    return mca_coll_zip_policy_takes(
        m, comm, COLL_ZIP_OP_ALLTOALLV, threshold,
        sample >= 0 ? (const char *)sbuf + (ptrdiff_t)sdisps[sample] * extent : NULL,
        sample >= 0 ? scounts[sample] : 0, sdtype, mine);
}

int mca_coll_zip_alltoallv(const void *sbuf, const int *scounts, const int *sdisps,
                           struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                           const int *rdisps, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    if (MPI_IN_PLACE == sbuf) {
        mca_coll_zip_stats_add(COLL_ZIP_OP_ALLTOALLV, 1, 0, 0, 0, 0);
    }
    if (MPI_IN_PLACE == sbuf || !policy_takes(m, comm, sbuf, scounts, sdisps, sdtype)) {
        return m->previous_alltoallv(sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype,
                                     comm, m->previous_alltoallv_module);
    }

    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    ptrdiff_t lb = 0, sext = 0, rext = 0;
    ompi_datatype_get_extent(sdtype, &lb, &sext);
    ompi_datatype_get_extent(rdtype, &lb, &rext);
    int rc = ompi_datatype_sndrcv(
        (const char *)sbuf + (ptrdiff_t)sdisps[rank] * sext, scounts[rank], sdtype,
        (char *)rbuf + (ptrdiff_t)rdisps[rank] * rext, rcounts[rank], rdtype);
    if (MPI_SUCCESS != rc) {
        return rc;
    }
    mca_coll_zip_blocks_t snd = {0}, rcv = {0};
    if (OMPI_SUCCESS != mca_coll_zip_blocks_init(&snd, size) ||
        OMPI_SUCCESS != mca_coll_zip_blocks_init(&rcv, size)) {
        mca_coll_zip_blocks_finish(&snd, false, OMPI_SUCCESS);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Alltoallv", comm);
    }
    mca_coll_zip_blocks_layout(&snd, sbuf, scounts, sdisps, 0, sdtype, rank);
    mca_coll_zip_blocks_layout(&rcv, rbuf, rcounts, rdisps, 0, rdtype, rank);
    const zip_exchange_args_t args = {
        .send = snd.blocks,
        .recv = rcv.blocks,
        .tag = MCA_COLL_BASE_TAG_ALLTOALLV,
        .elem_type = mca_coll_zip_elem_type(sdtype),
        .try_compress = 1,
        .threshold = mca_coll_zip_component.threshold,
        .window = mca_coll_zip_component.alltoallv_window,
        .policy = &m->call_policy,
        .peer_on_node = m->peer_on_node,
    };
    rc = mca_coll_zip_run(m, comm, COLL_ZIP_OP_ALLTOALLV, -1, &args);
    mca_coll_zip_blocks_finish(&snd, false, OMPI_SUCCESS);
    return mca_coll_zip_blocks_finish(&rcv, true, rc);
}
