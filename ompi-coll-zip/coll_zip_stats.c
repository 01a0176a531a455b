/*
 * Per-process statistics (atomic: collectives on different communicators may run on
 * different threads) and the error report of a failed compressed call.
 */
#include "ompi_config.h"

#include <stdio.h>

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"

#include "coll_zip.h"
#include "coll_zip_help.h"
#include "algo/transport.h"

static const char *const op_names[COLL_ZIP_OP_COUNT] = {"bcast", "alltoallv", "gatherv"};

/* World rank of this process, known once the component is initialised (-1 in ompi_info). */
static int stats_world_rank = -1;

void mca_coll_zip_stats_set_rank(int world_rank)
{
    stats_world_rank = world_rank;
}

static void add(uint64_t *counter, uint64_t value)
{
    if (0 != value) {
        __atomic_fetch_add(counter, value, __ATOMIC_RELAXED);
    }
}

void mca_coll_zip_stats_add(int op, int fallback, int compressed, uint64_t bytes_in,
                            uint64_t bytes_out, uint64_t codec_ns)
{
    mca_coll_zip_op_stats_t *s = &mca_coll_zip_component.op_stats[op];
    add(&s->calls, 1);
    add(&s->calls_fallback, fallback ? 1 : 0);
    add(&s->calls_compressed, compressed ? 1 : 0);
    add(&s->bytes_in, bytes_in);
    add(&s->bytes_out, bytes_out);
    add(&s->codec_ns, codec_ns);
}

/* The totals are this process's own: at MPI_Finalize no communicator is left to sum them. */
void mca_coll_zip_stats_report(void)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    if (!z->stats || stats_world_rank < 0 || (0 != stats_world_rank && z->verbose < 1)) {
        return;
    }
    opal_output(0, "coll:zip stats (rank %d, codec %s, threshold %zu bytes):", stats_world_rank,
                NULL != z->codec_spec ? z->codec_spec : "?", z->threshold);
    opal_output(0, "coll:zip   %-9s %10s %10s %10s %14s %14s %7s %10s", "op", "calls", "fallback",
                "compressed", "bytes_in", "bytes_out", "ratio", "codec_s");
    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        mca_coll_zip_op_stats_t s;
        s.calls = __atomic_load_n(&z->op_stats[op].calls, __ATOMIC_RELAXED);
        s.calls_fallback = __atomic_load_n(&z->op_stats[op].calls_fallback, __ATOMIC_RELAXED);
        s.calls_compressed = __atomic_load_n(&z->op_stats[op].calls_compressed, __ATOMIC_RELAXED);
        s.bytes_in = __atomic_load_n(&z->op_stats[op].bytes_in, __ATOMIC_RELAXED);
        s.bytes_out = __atomic_load_n(&z->op_stats[op].bytes_out, __ATOMIC_RELAXED);
        s.codec_ns = __atomic_load_n(&z->op_stats[op].codec_ns, __ATOMIC_RELAXED);
        const double ratio = s.bytes_out > 0 ? (double) s.bytes_in / (double) s.bytes_out : 1.0;
        opal_output(0, "coll:zip   %-9s %10llu %10llu %10llu %14llu %14llu %7.3f %10.6f",
                    op_names[op], (unsigned long long) s.calls,
                    (unsigned long long) s.calls_fallback, (unsigned long long) s.calls_compressed,
                    (unsigned long long) s.bytes_in, (unsigned long long) s.bytes_out, ratio,
                    (double) s.codec_ns * 1e-9);
    }
}

int mca_coll_zip_algo_error(int algo_rc, const char *op, struct ompi_communicator_t *comm)
{
    const char *why;
    int rc;
    switch (algo_rc) {
    case ZIP_ALGO_OK:
        return OMPI_SUCCESS;
    case ZIP_ALGO_ERR_NOMEM:
        why = "out of memory for compression buffers";
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        break;
    case ZIP_ALGO_ERR_CODEC:
        why = "a received frame was corrupt or did not decode to the expected length";
        rc = OMPI_ERROR;
        break;
    case ZIP_ALGO_ERR_ARG:
        why = "invalid arguments";
        rc = OMPI_ERR_BAD_PARAM;
        break;
    default:
        why = "a point-to-point transfer failed";
        rc = OMPI_ERROR;
        break;
    }
    mca_coll_zip_show_help("codec failure", "%s on communicator %s failed: %s", op, comm->c_name,
                           why);
    return rc;
}
