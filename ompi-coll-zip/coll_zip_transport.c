/*
 * The algorithms' transport on top of the PML, the way coll/base talks to it. Byte messages
 * carry MPI_BYTE, their length capped by the int count of the PML interface; plain blocks
 * travel as the user's own count of the user's datatype, by their view (coll_zip_view.h).
 */
#include "ompi_config.h"

#include <limits.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"
#include "opal/runtime/opal_progress.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/transport.h"

static int pml_isend(void *ctx, const void *buf, size_t len, int peer, int tag, zip_req_t *req)
{
    if (len > INT_MAX) {
        return OMPI_ERR_BAD_PARAM;
    }
    ompi_request_t *r = MPI_REQUEST_NULL;
    int rc = MCA_PML_CALL(isend(buf, (int)len, MPI_BYTE, peer, tag, MCA_PML_BASE_SEND_STANDARD,
                                (struct ompi_communicator_t *)ctx, &r));
    *req = r;
    return rc;
}

static int pml_irecv(void *ctx, void *buf, size_t cap, int peer, int tag, zip_req_t *req)
{
    if (cap > INT_MAX) {
        return OMPI_ERR_BAD_PARAM;
    }
    ompi_request_t *r = MPI_REQUEST_NULL;
    int rc = MCA_PML_CALL(
        irecv(buf, (int)cap, MPI_BYTE, peer, tag, (struct ompi_communicator_t *)ctx, &r));
    *req = r;
    return rc;
}

static int pml_isend_plain(void *ctx, void *typed, int peer, int tag, zip_req_t *req)
{
    const mca_coll_zip_view_t *v = typed;
    ompi_request_t *r = MPI_REQUEST_NULL;
    /* count came from an int */
    int rc = MCA_PML_CALL(isend(v->user, (int)v->count, v->dtype, peer, tag,
                                MCA_PML_BASE_SEND_STANDARD, (struct ompi_communicator_t *)ctx, &r));
    *req = r;
    return rc;
}

static int pml_irecv_plain(void *ctx, void *typed, int peer, int tag, zip_req_t *req)
{
    const mca_coll_zip_view_t *v = typed;
    ompi_request_t *r = MPI_REQUEST_NULL;
    int rc = MCA_PML_CALL(
        irecv(v->user, (int)v->count, v->dtype, peer, tag, (struct ompi_communicator_t *)ctx, &r));
    *req = r;
    return rc;
}

static int view_bytes(void *ctx, void *typed, int sending, void **bytes)
{
    mca_coll_zip_view_t *v = typed;
    (void)ctx;
    const int rc = mca_coll_zip_view_bytes(v, 0 != sending);
    *bytes = v->bytes;
    return rc;
}

static int pml_wait(void *ctx, zip_req_t *req, size_t *len)
{
    ompi_status_public_t status = {0};
    ompi_request_t *r = (ompi_request_t *)*req;
    (void)ctx;
    int rc = ompi_request_wait(&r, &status);
    *req = r;
    if (NULL != len) {
        *len = status._ucount;
    }
    return rc; /* MPI_Wait semantics: the status' MPI_ERROR field is not set */
}

static int pml_waitany(void *ctx, size_t n, zip_req_t *reqs, size_t *index, size_t *len)
{
    ompi_status_public_t status = {0};
    int which = MPI_UNDEFINED;
    (void)ctx;
    /* A handle not posted yet is NULL (a gatherv root's receives beyond its window), which
     * ompi_request_wait_any would dereference: it takes MPI_REQUEST_NULL for inactive, and the
     * algorithms NULL, so both ways round. zip_req_t and ompi_request_t * are both plain object
     * pointers. */
    for (size_t i = 0; i < n; ++i) {
        if (NULL == reqs[i]) {
            reqs[i] = MPI_REQUEST_NULL;
        }
    }
    int rc = ompi_request_wait_any(n, (ompi_request_t **)reqs, &which, &status);
    for (size_t i = 0; i < n; ++i) {
        if (MPI_REQUEST_NULL == reqs[i]) {
            reqs[i] = NULL;
        }
    }
    *index = MPI_UNDEFINED == which ? n : (size_t)which;
    if (NULL != len) {
        *len = status._ucount;
    }
    return rc;
}

static void pml_progress(void *ctx)
{
    (void)ctx;
    opal_progress();
}

void mca_coll_zip_transport_init(zip_transport_t *t, struct ompi_communicator_t *comm)
{
    /* Fields not named here (test: a blocking transport) are NULL. */
    *t = (zip_transport_t){
        .ctx = comm,
        .rank = ompi_comm_rank(comm),
        .size = ompi_comm_size(comm),
        .isend = pml_isend,
        .irecv = pml_irecv,
        .wait = pml_wait,
        .waitany = pml_waitany,
        .isend_plain = pml_isend_plain,
        .irecv_plain = pml_irecv_plain,
        .byte_view = view_bytes,
        .max_message = INT_MAX,
        .progress = pml_progress,
    };
}
