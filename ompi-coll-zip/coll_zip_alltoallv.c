/*
 * MPI_Alltoallv: every block of at least `threshold` bytes is compressed for its destination
 * and sent raw when it would not shrink. Whether a block is large is known to both ends (the
 * counts must match), but nothing tells all ranks at once whether a whole call is small, so
 * every call on a zip communicator takes zip's path; small blocks simply travel raw, straight
 * between the user buffers. MPI_IN_PLACE is used by all ranks or none and goes to the previous
 * component.
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

typedef struct alltoallv_buffers {
    mca_coll_zip_view_t *send_views, *recv_views;
    zip_block_t *send, *recv;
} alltoallv_buffers_t;

static void buffers_free(alltoallv_buffers_t *b, int size)
{
    for (int p = 0; p < size; ++p) {
        if (NULL != b->send_views)
            mca_coll_zip_view_free(&b->send_views[p]);
        if (NULL != b->recv_views)
            mca_coll_zip_view_free(&b->recv_views[p]);
    }
    free(b->send_views);
    free(b->recv_views);
    free(b->send);
    free(b->recv);
}

static int buffers_make(alltoallv_buffers_t *b, int size, int rank, const char *sbuf,
                        const int *scounts, const int *sdisps, struct ompi_datatype_t *sdtype,
                        char *rbuf, const int *rcounts, const int *rdisps,
                        struct ompi_datatype_t *rdtype)
{
    ptrdiff_t slb, sext, rlb, rext;
    ompi_datatype_get_extent(sdtype, &slb, &sext);
    ompi_datatype_get_extent(rdtype, &rlb, &rext);

    b->send_views = calloc(size, sizeof(*b->send_views));
    b->recv_views = calloc(size, sizeof(*b->recv_views));
    b->send = calloc(size, sizeof(*b->send));
    b->recv = calloc(size, sizeof(*b->recv));
    if (!b->send_views || !b->recv_views || !b->send || !b->recv) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int p = 0; p < size; ++p) {
        if (p == rank) {
            continue; /* copied locally */
        }
        int rc = mca_coll_zip_view_send(&b->send_views[p], sbuf + (ptrdiff_t)sdisps[p] * sext,
                                        scounts[p], sdtype);
        if (OMPI_SUCCESS != rc)
            return rc;
        rc = mca_coll_zip_view_recv(&b->recv_views[p], rbuf + (ptrdiff_t)rdisps[p] * rext,
                                    rcounts[p], rdtype);
        if (OMPI_SUCCESS != rc)
            return rc;
        b->send[p] = (zip_block_t){b->send_views[p].bytes, b->send_views[p].len};
        b->recv[p] = (zip_block_t){b->recv_views[p].bytes, b->recv_views[p].len};
    }
    return OMPI_SUCCESS;
}

int mca_coll_zip_alltoallv(const void *sbuf, const int *scounts, const int *sdisps,
                           struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                           const int *rdisps, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    mca_coll_zip_component_t *z = &mca_coll_zip_component;

    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    if (MPI_IN_PLACE == sbuf) {
        mca_coll_zip_stats_add(COLL_ZIP_OP_ALLTOALLV, 1, 0, 0, 0, 0);
        return m->previous_alltoallv(sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype,
                                     comm, m->previous_alltoallv_module);
    }

    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    ptrdiff_t lb, sext, rext;
    ompi_datatype_get_extent(sdtype, &lb, &sext);
    ompi_datatype_get_extent(rdtype, &lb, &rext);
    int rc = ompi_datatype_sndrcv(
        (const char *)sbuf + (ptrdiff_t)sdisps[rank] * sext, scounts[rank], sdtype,
        (char *)rbuf + (ptrdiff_t)rdisps[rank] * rext, rcounts[rank], rdtype);
    if (MPI_SUCCESS != rc) {
        return rc;
    }

    alltoallv_buffers_t b = {0};
    rc = buffers_make(&b, size, rank, sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype);
    if (OMPI_SUCCESS != rc) {
        buffers_free(&b, size);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Alltoallv", comm);
    }

    zip_transport_t transport;
    zip_codec_ops_t codec;
    mca_coll_zip_codec_binding_t binding;
    mca_coll_zip_transport_init(&transport, comm);
    mca_coll_zip_codec_init(&codec, &binding, m);
    const zip_exchange_args_t args = {
        .send = b.send,
        .recv = b.recv,
        .tag = MCA_COLL_BASE_TAG_ALLTOALLV,
        .elem_type = mca_coll_zip_elem_type(sdtype),
        .try_compress = 1,
        .threshold = z->threshold,
        .window = z->alltoallv_window,
    };
    zip_algo_result_t result;
    const int algo_rc = zip_algo_alltoallv(&transport, &codec, &args, &result);
    for (int p = 0; p < size && ZIP_ALGO_OK == algo_rc && OMPI_SUCCESS == rc; ++p) {
        if (p != rank)
            rc = mca_coll_zip_view_deliver(&b.recv_views[p]);
    }
    buffers_free(&b, size);

    mca_coll_zip_stats_add(COLL_ZIP_OP_ALLTOALLV, 0, result.compressed, result.bytes_in,
                           result.bytes_out, binding.codec_ns);
    opal_output_verbose(10, z->output, "coll:zip: alltoallv on %s: sent %zu as %zu", comm->c_name,
                        result.bytes_in, result.bytes_out);
    if (ZIP_ALGO_OK != algo_rc) {
        return mca_coll_zip_algo_error(algo_rc, "MPI_Alltoallv", comm);
    }
    return rc;
}
