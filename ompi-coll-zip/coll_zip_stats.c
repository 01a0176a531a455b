/*
 * The statistics table (algo/coll_stats.h) in the component: its sum over ranks at
 * MPI_Finalize, the per-rank report, and the error report of a failed compressed call.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <string.h>

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"
#include "ompi/runtime/mpiruntime.h"

#include "coll_zip.h"
#include "coll_zip_help.h"
#include "algo/transport.h"

/* World rank of this process, known once the component is initialised (-1 in ompi_info). */
static int stats_world_rank = -1;

void mca_coll_zip_stats_set_rank(int world_rank)
{
    stats_world_rank = world_rank;
}

void mca_coll_zip_stats_add(int op, int fallback, int compressed, uint64_t bytes_in,
                            uint64_t bytes_out, uint64_t codec_ns)
{
    zip_coll_stats_add(&mca_coll_zip_component.op_stats[op], fallback, compressed, bytes_in,
                       bytes_out, codec_ns);
}

void mca_coll_zip_stats_policy(int op, zip_verdict_t verdict)
{
    zip_coll_stats_policy(&mca_coll_zip_component.op_stats[op], verdict, 0.0, 0);
}

void mca_coll_zip_stats_handed_on(int op, zip_verdict_t verdict, double observe_saving,
                                  size_t bytes)
{
    zip_coll_stats_handed_on(&mca_coll_zip_component.op_stats[op], verdict, observe_saving, bytes);
}

static void print_line(void *ctx, const char *text)
{
    (void)ctx;
    opal_output(0, "%s", text);
}

static void print_table(const char *whose, const zip_coll_stats_t t[COLL_ZIP_OP_COUNT])
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const zip_coll_stats_header_t h = {
        .whose = whose,
        .codec = NULL != z->codec_spec ? z->codec_spec : "?",
        .threshold = z->threshold,
        .policy = zip_policy_mode_name((zip_policy_mode_t)z->policy),
        .speeds = z->last_speeds,
    };
    zip_coll_stats_print(t, zip_coll_op_names, COLL_ZIP_OP_COUNT, &h, print_line, NULL);
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
    zip_coll_stats_t mine[COLL_ZIP_OP_COUNT], total[COLL_ZIP_OP_COUNT];
    int nprocs = 0;
    zip_coll_stats_snapshot(mca_coll_zip_component.op_stats, mine, COLL_ZIP_OP_COUNT);
    memset(total, 0, sizeof(total));
    PMPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* The counters are all uint64_t, so the table reduces as one flat array. */
    const int count = (int)(COLL_ZIP_OP_COUNT * sizeof(zip_coll_stats_t) / sizeof(uint64_t));
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

void mca_coll_zip_stats_arm_finalize_summary(struct ompi_communicator_t *comm)
{
    static int armed = 0;
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    /* A plain load first: after the first call, no atomic exchange per call. Not inside
     * MPI_Init (a spawned process's MPI_Init runs collectives on MPI_COMM_WORLD to connect to
     * its parents), where MPI_Comm_create_keyval fails on the fatal error handler: a later call
     * arms it. */
    if (comm != &ompi_mpi_comm_world.comm || !z->stats ||
        __atomic_load_n(&armed, __ATOMIC_RELAXED) ||
        OMPI_MPI_STATE_INIT_COMPLETED != ompi_mpi_state ||
        __atomic_exchange_n(&armed, 1, __ATOMIC_ACQ_REL)) {
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
        zip_coll_stats_t mine[COLL_ZIP_OP_COUNT];
        char whose[64];
        snprintf(whose, sizeof(whose), "rank %d", stats_world_rank);
        zip_coll_stats_snapshot(mca_coll_zip_component.op_stats, mine, COLL_ZIP_OP_COUNT);
        print_table(whose, mine);
    }
}

int mca_coll_zip_algo_error(int algo_rc, const char *op, struct ompi_communicator_t *comm)
{
    int rc;
    switch (algo_rc) {
    case ZIP_ALGO_OK:
        return OMPI_SUCCESS;
    case ZIP_ALGO_ERR_NOMEM:
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        break;
    case ZIP_ALGO_ERR_ARG:
        rc = OMPI_ERR_BAD_PARAM;
        break;
    default:
        rc = OMPI_ERROR;
        break;
    }
    mca_coll_zip_show_help("codec failure", "%s on %s failed: %s", op, mca_coll_zip_comm_name(comm),
                           zip_coll_error_text(algo_rc));
    return rc;
}
