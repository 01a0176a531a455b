/*
 * What every call that takes zip's path does around its algorithm: bind the transport and the
 * timed codec (algo/codec_binding.cpp), run the algorithm, count what it did (bytes, codec time,
 * the sample's verdict), trace it, and turn its status into an MPI error code with a message.
 */
#include "ompi_config.h"

#include "opal/util/output.h"
#include "mpi.h"
#include "ompi/constants.h"

#include "coll_zip.h"
#include "coll_zip_help.h"
#include "algo/zip_algo.h"

int mca_coll_zip_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op, int root,
                     const void *args, zip_algo_result_t *out)
{
    zip_ctx_t *ctx = mca_coll_zip_codec_take();
    if (NULL == ctx) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    zip_transport_t transport;
    zip_codec_ops_t codec;
    zip_algo_codec_binding_t binding = {
        .codec = ctx,
        .corrupt_every = mca_coll_zip_component.inject_corruption,
        .meter = &m->meter,
    };
    mca_coll_zip_transport_init(&transport, comm);
    zip_algo_codec_bind(&codec, &binding);

    zip_algo_result_t result;
    const int algo_rc = zip_coll_op_run(op, &transport, &codec, root, args, &result);
    if (NULL != out) {
        *out = result;
    }
    const int rc = mca_coll_zip_account(op, comm, root, algo_rc, &result, &binding);
    mca_coll_zip_codec_give(ctx);
    return rc;
}

int mca_coll_zip_account(int op, struct ompi_communicator_t *comm, int root, int algo_rc,
                         const zip_algo_result_t *result, const zip_algo_codec_binding_t *binding)
{
    const char *call = zip_coll_op_calls[op];
    /* A call whose blocks all moved plainly here never entered zip's path: a fallback. */
    mca_coll_zip_stats_add(op, result->all_plain, result->compressed, result->bytes_in,
                           result->bytes_out, binding->codec_ns);
    if (result->verdict >= 0) {
        mca_coll_zip_stats_policy(op, (zip_verdict_t)result->verdict);
    }
    opal_output_verbose(10, mca_coll_zip_component.output,
                        "coll:zip: %s on %s (root %d): sent %zu as %zu", call,
                        mca_coll_zip_comm_name(comm), root, result->bytes_in, result->bytes_out);
    if (ZIP_OK != binding->failed) {
        opal_output_verbose(1, mca_coll_zip_component.output,
                            "coll:zip: %s on %s: a frame did not decode: %s (%s)", call,
                            mca_coll_zip_comm_name(comm), zip_status_str(binding->failed),
                            zip_ctx_last_error(binding->codec));
    }
    if (ZIP_ALGO_ERR_LENGTH == algo_rc) {
        mca_coll_zip_show_help("plain length",
                               "%s on %s: a block that should have arrived plain "
                               "brought %zu bytes instead of %zu",
                               call, mca_coll_zip_comm_name(comm), result->plain_got,
                               result->plain_want);
        return MPI_ERR_TRUNCATE;
    }
    return mca_coll_zip_algo_error(algo_rc, call, comm);
}
