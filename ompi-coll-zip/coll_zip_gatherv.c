/*
 * MPI_Gatherv: each non-root compresses its block (when at least `threshold` bytes and it
 * shrinks); the root decodes blocks in arrival order. Blocks below the threshold move plainly
 * (coll_zip_plain.h): a non-root sends them with one blocking send, the root posts their
 * receives before the compressed exchange of the large blocks starts.
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/pml/pml.h"

#include "coll_zip.h"
#include "coll_zip_plain.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

static int gather_at_root(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, char *rbuf,
                          const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                          int root, struct ompi_communicator_t *comm, mca_coll_zip_module_t *m)
{
    const int size = ompi_comm_size(comm);
    ptrdiff_t lb, rext;
    size_t rsize = 0;
    ompi_datatype_get_extent(rdtype, &lb, &rext);
    ompi_datatype_type_size(rdtype, &rsize);

    mca_coll_zip_plain_t plain;
    if (OMPI_SUCCESS !=
        mca_coll_zip_plain_begin(&plain, m, comm, MCA_COLL_BASE_TAG_GATHERV, size)) {
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Gatherv", comm);
    }
    int rc = OMPI_SUCCESS, large = 0;
    for (int p = 0; p < size && OMPI_SUCCESS == rc; ++p) {
        const size_t bytes = rsize * (size_t)(rcounts[p] > 0 ? rcounts[p] : 0);
        if (p == root || 0 == bytes)
            continue;
        if (mca_coll_zip_block_is_plain(bytes, m, p))
            rc = mca_coll_zip_plain_irecv(&plain, rbuf + (ptrdiff_t)disps[p] * rext, rcounts[p],
                                          rdtype, p);
        else
            ++large;
    }
    if (OMPI_SUCCESS == rc && MPI_IN_PLACE != sbuf) {
        rc = ompi_datatype_sndrcv(sbuf, scount, sdtype, rbuf + (ptrdiff_t)disps[root] * rext,
                                  rcounts[root], rdtype);
    }
    if (OMPI_SUCCESS != rc) {
        return mca_coll_zip_plain_abandon(&plain, rc);
    }
    if (0 == large) {
        mca_coll_zip_stats_add(COLL_ZIP_OP_GATHERV, 1, 0, 0, 0, 0);
        return mca_coll_zip_plain_wait(&plain, "MPI_Gatherv");
    }

    /* The large blocks: byte views, small ones left empty so that the exchange skips them. */
    mca_coll_zip_view_t *views = calloc(size, sizeof(*views));
    zip_block_t *blocks = calloc(size, sizeof(*blocks));
    rc = (NULL == views || NULL == blocks) ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    for (int p = 0; p < size && OMPI_SUCCESS == rc; ++p) {
        const size_t bytes = rsize * (size_t)(rcounts[p] > 0 ? rcounts[p] : 0);
        if (p == root || 0 == bytes || mca_coll_zip_block_is_plain(bytes, m, p))
            continue;
        rc = mca_coll_zip_view_recv(&views[p], rbuf + (ptrdiff_t)disps[p] * rext, rcounts[p],
                                    rdtype);
        blocks[p] = (zip_block_t){views[p].bytes, views[p].len};
    }
    if (OMPI_SUCCESS != rc) {
        rc = mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Gatherv", comm);
    } else {
        const zip_exchange_args_t args = {
            .send = NULL,
            .recv = blocks,
            .tag = MCA_COLL_BASE_TAG_GATHERV,
            .elem_type = ZIP_ALGO_BYTES,
            .try_compress = 0,
            .threshold = mca_coll_zip_component.threshold,
        };
        rc = mca_coll_zip_run(m, comm, COLL_ZIP_OP_GATHERV, root, &args);
    }
    for (int p = 0; NULL != views && p < size; ++p) {
        if (OMPI_SUCCESS == rc && p != root) {
            rc = mca_coll_zip_view_deliver(&views[p]);
        }
        mca_coll_zip_view_free(&views[p]);
    }
    free(views);
    free(blocks);
    if (OMPI_SUCCESS != rc) {
        return mca_coll_zip_plain_abandon(&plain, rc);
    }
    return mca_coll_zip_plain_wait(&plain, "MPI_Gatherv");
}

static int send_to_root(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, int root,
                        struct ompi_communicator_t *comm, mca_coll_zip_module_t *m)
{
    size_t ssize = 0;
    ompi_datatype_type_size(sdtype, &ssize);
    const size_t bytes = ssize * (size_t)(scount > 0 ? scount : 0);
    if (0 == bytes || mca_coll_zip_block_is_plain(bytes, m, root)) {
        mca_coll_zip_stats_add(COLL_ZIP_OP_GATHERV, 1, 0, 0, 0, 0);
        return 0 == bytes ? OMPI_SUCCESS
                          : MCA_PML_CALL(send(sbuf, scount, sdtype, root, MCA_COLL_BASE_TAG_GATHERV,
                                              MCA_PML_BASE_SEND_STANDARD, comm));
    }
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
        .policy = &m->call_policy,
    };
    rc = mca_coll_zip_run(m, comm, COLL_ZIP_OP_GATHERV, root, &args);
    mca_coll_zip_view_free(&view);
    return rc;
}

int mca_coll_zip_gatherv(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                         const int *rcounts, const int *disps, struct ompi_datatype_t *rdtype,
                         int root, struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_zip_stats_arm_finalize_summary();
    }
    /* The policy routes the call alike on every rank; under observe a sender judges its own
     * block. */
    const bool is_root = ompi_comm_rank(comm) == root;
    size_t ssize = 0;
    ompi_datatype_type_size(sdtype, &ssize);
    const size_t mine = is_root ? 0 : ssize * (size_t)(scount > 0 ? scount : 0);
    if (!mca_coll_zip_policy_takes(m, comm, COLL_ZIP_OP_GATHERV, mca_coll_zip_component.threshold,
                                   is_root ? NULL : sbuf, scount, sdtype, mine)) {
        return m->previous_gatherv(sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm,
                                   m->previous_gatherv_module);
    }
    if (is_root) {
        return gather_at_root(sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm, m);
    }
    return send_to_root(sbuf, scount, sdtype, root, comm, m);
}
