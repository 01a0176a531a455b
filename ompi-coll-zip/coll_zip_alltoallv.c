/*
 * MPI_Alltoallv: every block of at least `threshold` bytes is compressed for its destination
 * and sent raw when it would not shrink; smaller blocks move plainly (coll_zip_plain.h), all
 * posted before the compressed exchange starts. A rank with no large block in either direction
 * never enters the exchange: no peer expects a large block from it. MPI_IN_PLACE is used by all
 * ranks or none and goes to the previous component.
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_plain.h"
#include "coll_zip_view.h"
#include "algo/zip_algo.h"

/* One direction of the call: the user's buffer, counts, displacements and datatype. */
typedef struct side {
    char *buf;
    const int *counts, *disps;
    struct ompi_datatype_t *dtype;
    size_t type_size;
    ptrdiff_t extent;
    const mca_coll_zip_module_t *module;
} side_t;

static void side_init(side_t *s, const void *buf, const int *counts, const int *disps,
                      struct ompi_datatype_t *dtype, const mca_coll_zip_module_t *module)
{
    ptrdiff_t lb;
    s->module = module;
    s->buf = (char *)buf;
    s->counts = counts;
    s->disps = disps;
    s->dtype = dtype;
    ompi_datatype_type_size(dtype, &s->type_size);
    ompi_datatype_get_extent(dtype, &lb, &s->extent);
}

static char *side_block(const side_t *s, int p)
{
    return s->buf + (ptrdiff_t)s->disps[p] * s->extent;
}

static size_t side_bytes(const side_t *s, int p)
{
    return s->type_size * (size_t)(s->counts[p] > 0 ? s->counts[p] : 0);
}

static bool side_is_large(const side_t *s, int p)
{
    const size_t bytes = side_bytes(s, p);
    return bytes > 0 && !mca_coll_zip_block_is_plain(bytes, s->module, p);
}

/* Posts the small blocks of one direction; sets *any_large when some block of it needs the
 * compressed exchange. */
static int post_plain_side(mca_coll_zip_plain_t *plain, const side_t *s, bool sending, int size,
                           int rank, bool *any_large)
{
    int rc = OMPI_SUCCESS;
    for (int p = 0; p < size && OMPI_SUCCESS == rc; ++p) {
        if (p == rank || 0 == side_bytes(s, p))
            continue;
        if (side_is_large(s, p))
            *any_large = true;
        else if (sending)
            rc = mca_coll_zip_plain_isend(plain, side_block(s, p), s->counts[p], s->dtype, p);
        else
            rc = mca_coll_zip_plain_irecv(plain, side_block(s, p), s->counts[p], s->dtype, p);
    }
    return rc;
}

/* Receives first, so that early senders find them. */
static int post_plain(mca_coll_zip_plain_t *plain, const side_t *snd, const side_t *rcv, int size,
                      int rank, bool *any_large)
{
    *any_large = false;
    const int rc = post_plain_side(plain, rcv, false, size, rank, any_large);
    return OMPI_SUCCESS != rc ? rc : post_plain_side(plain, snd, true, size, rank, any_large);
}

typedef struct large_blocks {
    mca_coll_zip_view_t *send_views, *recv_views;
    zip_block_t *send, *recv;
} large_blocks_t;

static void large_free(large_blocks_t *b, int size)
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

/* Byte views of the large blocks; small and empty ones stay zero-length, which the exchange
 * skips. */
static int large_make(large_blocks_t *b, const side_t *snd, const side_t *rcv, int size, int rank)
{
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
        int rc = OMPI_SUCCESS;
        if (side_is_large(snd, p)) {
            rc = mca_coll_zip_view_send(&b->send_views[p], side_block(snd, p), snd->counts[p],
                                        snd->dtype);
            b->send[p] = (zip_block_t){b->send_views[p].bytes, b->send_views[p].len};
        }
        if (OMPI_SUCCESS == rc && side_is_large(rcv, p)) {
            rc = mca_coll_zip_view_recv(&b->recv_views[p], side_block(rcv, p), rcv->counts[p],
                                        rcv->dtype);
            b->recv[p] = (zip_block_t){b->recv_views[p].bytes, b->recv_views[p].len};
        }
        if (OMPI_SUCCESS != rc)
            return rc;
    }
    return OMPI_SUCCESS;
}

/* Pairwise steps in flight: coll_zip_alltoallv_window, or with 0 (auto) enough steps to keep
 * about 512 KiB of this rank's blocks moving, 2 to 4. Mid-sized blocks need several steps to
 * fill the link (8 ranks at 1 Gbit/s, 128 KiB blocks: 8.4-9.6 ms with 4 steps against
 * 11.0-13.5 ms with 2); large ones do not, and more steps only load every port with several
 * peers (32 KiB blocks: 2.6 ms with all 7 steps, 2.1-2.5 with 4 or 2). Ranks may differ: each
 * waits only for its peers' same step. */
static size_t exchange_window(const side_t *snd, const side_t *rcv, int size, int rank)
{
    const size_t fixed = mca_coll_zip_component.alltoallv_window;
    if (0 != fixed || size < 3) {
        return 0 != fixed ? fixed : 1;
    }
    size_t bytes = 0;
    for (int p = 0; p < size; ++p) {
        if (p != rank) {
            const size_t s = side_bytes(snd, p), r = side_bytes(rcv, p);
            bytes += s > r ? s : r;
        }
    }
    const size_t mean = bytes / (size_t)(size - 1);
    const size_t in_flight = 512 * 1024;
    const size_t most = size - 1 < 4 ? (size_t)(size - 1) : 4;
    size_t w = 0 == mean ? most : (in_flight + mean - 1) / mean;
    w = w < 2 ? 2 : w;
    return w > most ? most : w;
}

/* The compressed exchange of the large blocks. */
static int exchange_large(const side_t *snd, const side_t *rcv, struct ompi_communicator_t *comm,
                          mca_coll_zip_module_t *m)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    large_blocks_t b = {0};
    if (OMPI_SUCCESS != large_make(&b, snd, rcv, size, rank)) {
        large_free(&b, size);
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Alltoallv", comm);
    }
    const zip_exchange_args_t args = {
        .send = b.send,
        .recv = b.recv,
        .tag = MCA_COLL_BASE_TAG_ALLTOALLV,
        .elem_type = mca_coll_zip_elem_type(snd->dtype),
        .try_compress = 1,
        .threshold = z->threshold,
        .window = exchange_window(snd, rcv, size, rank),
        .policy = &m->call_policy,
    };
    int rc = mca_coll_zip_run(m, comm, COLL_ZIP_OP_ALLTOALLV, -1, &args);
    for (int p = 0; p < size && OMPI_SUCCESS == rc; ++p) {
        if (p != rank)
            rc = mca_coll_zip_view_deliver(&b.recv_views[p]);
    }
    large_free(&b, size);
    return rc;
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
        return m->previous_alltoallv(sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype,
                                     comm, m->previous_alltoallv_module);
    }

    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    /* The policy routes the call alike on every rank; under observe this rank's largest block
     * is its sample. */
    size_t ssize = 0, mine = 0, largest = 0;
    ptrdiff_t lb = 0, extent = 0;
    int sample_peer = -1;
    ompi_datatype_type_size(sdtype, &ssize);
    ompi_datatype_get_extent(sdtype, &lb, &extent);
    for (int p = 0; p < size; ++p) {
        const size_t b = ssize * (size_t)(scounts[p] > 0 ? scounts[p] : 0);
        if (p != rank && b >= mca_coll_zip_component.threshold) {
            mine += b;
            if (b > largest) {
                largest = b;
                sample_peer = p;
            }
        }
    }
    if (!mca_coll_zip_policy_takes(
            m, comm, COLL_ZIP_OP_ALLTOALLV, mca_coll_zip_component.threshold,
            sample_peer >= 0 ? (const char *)sbuf + (ptrdiff_t)sdisps[sample_peer] * extent : NULL,
            sample_peer >= 0 ? scounts[sample_peer] : 0, sdtype, mine)) {
        return m->previous_alltoallv(sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype,
                                     comm, m->previous_alltoallv_module);
    }
    side_t snd, rcv;
    side_init(&snd, sbuf, scounts, sdisps, sdtype, m);
    side_init(&rcv, rbuf, rcounts, rdisps, rdtype, m);

    mca_coll_zip_plain_t plain;
    if (OMPI_SUCCESS !=
        mca_coll_zip_plain_begin(&plain, m, comm, MCA_COLL_BASE_TAG_ALLTOALLV, 2 * size)) {
        return mca_coll_zip_algo_error(ZIP_ALGO_ERR_NOMEM, "MPI_Alltoallv", comm);
    }
    bool any_large = false;
    int rc = post_plain(&plain, &snd, &rcv, size, rank, &any_large);
    if (OMPI_SUCCESS != rc) {
        return mca_coll_zip_plain_abandon(&plain, rc);
    }
    rc = ompi_datatype_sndrcv(side_block(&snd, rank), scounts[rank], sdtype, side_block(&rcv, rank),
                              rcounts[rank], rdtype);
    if (MPI_SUCCESS != rc) {
        return mca_coll_zip_plain_abandon(&plain, rc);
    }
    if (!any_large) {
        mca_coll_zip_stats_add(COLL_ZIP_OP_ALLTOALLV, 1, 0, 0, 0, 0);
        return mca_coll_zip_plain_wait(&plain, "MPI_Alltoallv");
    }
    rc = exchange_large(&snd, &rcv, comm, m);
    if (OMPI_SUCCESS != rc) {
        return mca_coll_zip_plain_abandon(&plain, rc);
    }
    return mca_coll_zip_plain_wait(&plain, "MPI_Alltoallv");
}
