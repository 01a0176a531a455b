/*
 * Per-process statistics (atomic: collectives on different communicators may run on
 * different threads) and the error report of a failed compressed call.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <string.h>

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"

#include "coll_zip.h"
#include "coll_zip_help.h"
#include "algo/transport.h"

const char *const mca_coll_zip_op_names[COLL_ZIP_OP_COUNT] = {
    "bcast", "alltoallv", "gatherv", "allreduce", "reduce", "iallreduce", "ibcast"};
const char *const mca_coll_zip_op_calls[COLL_ZIP_OP_COUNT] = {
    "MPI_Bcast",  "MPI_Alltoallv",  "MPI_Gatherv", "MPI_Allreduce",
    "MPI_Reduce", "MPI_Iallreduce", "MPI_Ibcast"};

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

void mca_coll_zip_stats_policy(int op, zip_verdict_t verdict, double observe_saving, size_t bytes)
{
    mca_coll_zip_op_stats_t *s = &mca_coll_zip_component.op_stats[op];
    switch (verdict) {
    case ZIP_VERDICT_LINK_FASTER:
        add(&s->calls_link_faster, 1);
        break;
    case ZIP_VERDICT_NEVER:
        add(&s->calls_never, 1);
        break;
    case ZIP_VERDICT_INCOMPRESSIBLE:
        add(&s->calls_incompressible, 1);
        break;
    default:
        break;
    }
    if (observe_saving > 0.0) {
        const int c = zip_ompi_size_class(bytes);
        add(&s->observe_compressible, 1);
        add(&s->observe_saving_ns, (uint64_t)(observe_saving * 1e9));
        add(&s->observe_compressible_by_size[c], 1);
        add(&s->observe_saving_ns_by_size[c], (uint64_t)(observe_saving * 1e9));
    }
}

/* The counters are all uint64_t: read them as one flat array. */
static void snapshot(mca_coll_zip_op_stats_t out[COLL_ZIP_OP_COUNT])
{
    const size_t n = COLL_ZIP_OP_COUNT * sizeof(mca_coll_zip_op_stats_t) / sizeof(uint64_t);
    const uint64_t *from = (const uint64_t *)mca_coll_zip_component.op_stats;
    uint64_t *to = (uint64_t *)out;
    for (size_t i = 0; i < n; ++i) {
        to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
    }
}

static void print_table(const char *whose, const mca_coll_zip_op_stats_t t[COLL_ZIP_OP_COUNT])
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    opal_output(0, "coll:zip stats (%s, codec %s, threshold %zu bytes):", whose,
                NULL != z->codec_spec ? z->codec_spec : "?", z->threshold);
    opal_output(0, "coll:zip   %-9s %10s %10s %10s %14s %14s %7s %10s", "op", "calls", "fallback",
                "compressed", "bytes_in", "bytes_out", "ratio", "codec_s");
    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        const mca_coll_zip_op_stats_t *s = &t[op];
        const double ratio = s->bytes_out > 0 ? (double)s->bytes_in / (double)s->bytes_out : 1.0;
        opal_output(0, "coll:zip   %-9s %10llu %10llu %10llu %14llu %14llu %7.3f %10.6f",
                    mca_coll_zip_op_names[op], (unsigned long long)s->calls,
                    (unsigned long long)s->calls_fallback, (unsigned long long)s->calls_compressed,
                    (unsigned long long)s->bytes_in, (unsigned long long)s->bytes_out, ratio,
                    (double)s->codec_ns * 1e-9);
    }
    const zip_speeds_t *v = &z->last_speeds;
    opal_output(0, "coll:zip policy %s (link %.0f MB/s, codec %.0f / %.0f MB/s as last agreed):",
                zip_policy_mode_name((zip_policy_mode_t)z->policy), v->link_Bps / 1e6,
                v->compress_Bps / 1e6, v->decompress_Bps / 1e6);
    opal_output(0, "coll:zip:policy %-9s %12s %10s %15s %14s %16s", "op", "link_faster", "never",
                "incompressible", "observe_calls", "observe_saved_s");
    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        const mca_coll_zip_op_stats_t *s = &t[op];
        opal_output(0, "coll:zip:policy %-9s %12llu %10llu %15llu %14llu %16.6f",
                    mca_coll_zip_op_names[op], (unsigned long long)s->calls_link_faster,
                    (unsigned long long)s->calls_never, (unsigned long long)s->calls_incompressible,
                    (unsigned long long)s->observe_compressible,
                    (double)s->observe_saving_ns * 1e-9);
    }
    /* What observe found, by operation and size: where compression would pay. */
    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        for (int c = 0; c < ZIP_OMPI_SIZE_CLASSES; ++c) {
            const mca_coll_zip_op_stats_t *s = &t[op];
            if (0 == s->observe_compressible_by_size[c]) {
                continue;
            }
            opal_output(0, "coll:zip:observe %-9s %-10s calls %llu would save %.6f s",
                        mca_coll_zip_op_names[op], zip_ompi_size_class_name(c),
                        (unsigned long long)s->observe_compressible_by_size[c],
                        (double)s->observe_saving_ns_by_size[c] * 1e-9);
        }
    }
}

/* Set once the job-wide summary has been printed, so component close does not repeat it. */
static bool summary_printed = false;

/*
 * MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI is still fully usable: the
 * delete callback is the one moment where every rank can still sum its counters onto rank 0.
 */
static int sum_at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    mca_coll_zip_op_stats_t mine[COLL_ZIP_OP_COUNT], total[COLL_ZIP_OP_COUNT];
    int nprocs = 0;
    snapshot(mine);
    memset(total, 0, sizeof(total));
    PMPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* The counters are all uint64_t, so the table reduces as one flat array. */
    const int count = (int)(COLL_ZIP_OP_COUNT * sizeof(mca_coll_zip_op_stats_t) / sizeof(uint64_t));
    if (MPI_SUCCESS != PMPI_Reduce(mine, total, count, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD)) {
        return MPI_SUCCESS; /* component close prints the local numbers instead */
    }
    if (0 == stats_world_rank) {
        char whose[64];
        snprintf(whose, sizeof(whose), "sum over all %d ranks", nprocs);
        print_table(whose, total);
    }
    summary_printed = true;
    return MPI_SUCCESS;
}

void mca_coll_zip_stats_arm_finalize_summary(void)
{
    static int armed = 0;
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    if (!z->stats || __atomic_exchange_n(&armed, 1, __ATOMIC_ACQ_REL)) {
        return;
    }
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_SUCCESS ==
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, sum_at_finalize, &keyval, NULL)) {
        (void)PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
    }
}

/* At component close: each rank's own numbers with verbose >= 1; rank 0's alone when the
 * job-wide sum could not be taken (no zip collective ever ran on MPI_COMM_WORLD). */
void mca_coll_zip_stats_report(void)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    if (!z->stats || stats_world_rank < 0) {
        return;
    }
    if (z->verbose >= 1 || (0 == stats_world_rank && !summary_printed)) {
        mca_coll_zip_op_stats_t mine[COLL_ZIP_OP_COUNT];
        char whose[64];
        snprintf(whose, sizeof(whose), "rank %d", stats_world_rank);
        snapshot(mine);
        print_table(whose, mine);
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
