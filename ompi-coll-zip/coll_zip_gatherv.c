/*
 * MPI_Gatherv: each non-root compresses its block (when at least `threshold` bytes and it
 * shrinks); the root decodes blocks in arrival order. Only the root knows every count, so
 * every call on a zip communicator takes zip's path; small blocks travel raw.
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

static int run(struct ompi_communicator_t *comm, mca_coll_zip_module_t *m, int root,
               const zip_exchange_args_t *args)
{
    zip_transport_t transport;
    zip_codec_ops_t codec;
    mca_coll_zip_codec_binding_t binding;
    mca_coll_zip_transport_init(&transport, comm);
    mca_coll_zip_codec_init(&codec, &binding, m);
    zip_algo_result_t result;
    const int algo_rc = zip_algo_gatherv(&transport, &codec, root, args, &result);
    mca_coll_zip_stats_add(COLL_ZIP_OP_GATHERV, 0, result.compressed, result.bytes_in,
                           result.bytes_out, binding.codec_ns);
    opal_output_verbose(10, mca_coll_zip_component.output,
                        "coll:zip: gatherv root %d on %s: sent %zu as %zu", root, comm->c_name,
                        result.bytes_in, result.bytes_out);
    return algo_rc;
}

static int gather_at_root(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, char *rbuf,
                          const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                          int root, struct ompi_communicator_t *comm, mca_coll_zip_module_t *m)
{
    const int size = ompi_comm_size(comm);
    ptrdiff_t lb, rext;
    ompi_datatype_get_extent(rdtype, &lb, &rext);

    if (MPI_IN_PLACE != sbuf) {
        int rc = ompi_datatype_sndrcv(sbuf, scount, sdtype, rbuf + (ptrdiff_t)disps[root] * rext,
                                      rcounts[root], rdtype);
        if (MPI_SUCCESS != rc)
            return rc;
    }
    mca_coll_zip_view_t *views = calloc(size, sizeof(*views));
    zip_block_t *blocks = calloc(size, sizeof(*blocks));
    int rc = (NULL == views || NULL == blocks) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    for (int p = 0; p < size && OMPI_SUCCESS == rc; ++p) {
        if (p == root)
            continue;
        rc = mca_coll_zip_view_recv(&views[p], rbuf + (ptrdiff_t)disps[p] * rext, rcounts[p],
                                    rdtype);
        blocks[p] = (zip_block_t){views[p].bytes, views[p].len};
    }
    int algo_rc = ZIP_ALGO_ERR_NOMEM;
    if (OMPI_SUCCESS == rc) {
        const zip_exchange_args_t args = {
            .send = NULL,
            .recv = blocks,
            .tag = MCA_COLL_BASE_TAG_GATHERV,
            .elem_type = ZIP_ALGO_BYTES,
            .try_compress = 0,
            .threshold = mca_coll_zip_component.threshold,
        };
        algo_rc = run(comm, m, root, &args);
    }
    for (int p = 0; NULL != views && p < size; ++p) {
        if (ZIP_ALGO_OK == algo_rc && OMPI_SUCCESS == rc && p != root) {
            rc = mca_coll_zip_view_deliver(&views[p]);
        }
        mca_coll_zip_view_free(&views[p]);
    }
    free(views);
    free(blocks);
    if (ZIP_ALGO_OK != algo_rc)
        return mca_coll_zip_algo_error(algo_rc, "MPI_Gatherv", comm);
    return rc;
}

static int send_to_root(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, int root,
                        struct ompi_communicator_t *comm, mca_coll_zip_module_t *m)
{
    mca_coll_zip_view_t view;
    int rc = mca_coll_zip_view_send(&view, sbuf, scount, sdtype);
    if (OMPI_SUCCESS != rc) {
        mca_coll_zip_view_free(&view);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Gatherv", comm);
    }
    const zip_block_t block = {view.bytes, view.len};
    const zip_exchange_args_t args = {
        .send = &block,
        .recv = NULL,
        .tag = MCA_COLL_BASE_TAG_GATHERV,
        .elem_type = mca_coll_zip_elem_type(sdtype),
        .try_compress = 1,
        .threshold = mca_coll_zip_component.threshold,
    };
    const int algo_rc = run(comm, m, root, &args);
    mca_coll_zip_view_free(&view);
    return mca_coll_zip_algo_error(algo_rc, "MPI_Gatherv", comm);
}

int mca_coll_zip_gatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                         int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    if (ompi_comm_rank(comm) == root) {
        return gather_at_root(sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm, m);
    }
    return send_to_root(sbuf, scount, sdtype, root, comm, m);
}
