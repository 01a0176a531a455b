/*
 * coll/zip module life cycle: whether to run on a communicator (comm_query), what to stand
 * in front of (enable), and releasing it again (destructor).
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/argv.h"
#include "opal/util/info.h"
#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"
#include "ompi/group/group.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/rte/rte.h"

#include "coll_zip.h"
#include "gpu_runtime.h"
#include "coll_zip_help.h"

static int zip_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);

static void zip_module_construct(mca_coll_zip_module_t *m)
{
#define ZIP_CLEAR_PREVIOUS(OP, name, Call)                                                         \
    m->previous_##name = NULL;                                                                     \
    m->previous_##name##_module = NULL;
    COLL_ZIP_COLLECTIVES(ZIP_CLEAR_PREVIOUS)
    ZIP_CLEAR_PREVIOUS(BARRIER, barrier, Barrier)
#undef ZIP_CLEAR_PREVIOUS
    m->temporal = NULL;
    m->peer_on_node = NULL;
    m->pairs_serialise = -1;
    m->agreed = false;
    m->agreement_wanted = false;
    m->enabled = false;
    m->early_agreement = NULL;
    m->speeds = (zip_algo_agreed_t){.ranks_per_node = 1};
    m->meter = (zip_codec_meter_t){0};
    m->blocking_calls = 0;
    m->link_faster_calls = 0;
    m->probe_pending = false;
    memset(m->allgather_seen, 0, sizeof(m->allgather_seen));
    memset(m->bcast_seen, 0, sizeof(m->bcast_seen));
    memset(m->neighbor_memo, 0, sizeof(m->neighbor_memo));
    memset(m->uncoded, 0, sizeof(m->uncoded));
    memset(&m->call_policy, 0, sizeof(m->call_policy));
    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        m->routes[op] = (mca_coll_zip_route_t){.mode = -1};
    }
}

static void zip_module_destruct(mca_coll_zip_module_t *m)
{
    mca_coll_zip_agree_drop_early(m); /* through the previous modules released below */
#define ZIP_RELEASE_PREVIOUS(OP, name, Call)                                                       \
    if (NULL != m->previous_##name##_module)                                                       \
        OBJ_RELEASE(m->previous_##name##_module);
    COLL_ZIP_COLLECTIVES(ZIP_RELEASE_PREVIOUS)
    ZIP_RELEASE_PREVIOUS(BARRIER, barrier, Barrier)
#undef ZIP_RELEASE_PREVIOUS
    free(m->peer_on_node);
    zip_algo_temporal_destroy(m->temporal);
    if (m->enabled) {
        opal_output_verbose(10, mca_coll_zip_component.output, "coll:zip: module released");
    }
}

OBJ_CLASS_INSTANCE(mca_coll_zip_module_t, mca_coll_base_module_t, zip_module_construct,
                   zip_module_destruct);

/* "--mca coll zip" keeps every other coll component from opening, and zip cannot run alone. */
/* Set when zip was left without components to fall back on (see init_query). */
static bool zip_alone = false;

static bool coll_framework_excludes_fallbacks(const char *selection)
{
    if (NULL == selection || '\0' == selection[0] || '^' == selection[0]) {
        return false;
    }
    char **names = opal_argv_split(selection, ',');
    bool has_fallback = false;
    for (int i = 0; NULL != names && NULL != names[i]; ++i) {
        if (0 == strcmp(names[i], "basic") || 0 == strcmp(names[i], "tuned")) {
            has_fallback = true;
        }
    }
    opal_argv_free(names);
    return !has_fallback;
}

/* z->codec_spec from coll_zip_codec and coll_zip_lossy, checked once (zip_ompi.h), so that a
 * typo gives one message instead of one per communicator: a spec naming the temporal codec is
 * replaced by the default, one the engine rejects disables zip. */
static int resolve_codec_spec(bool speaker)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    zip_ompi_codec_t c;
    const zip_ompi_codec_status_t st = zip_ompi_codec_resolve(z->codec, z->lossy, &c, NULL);
    int rc = OMPI_SUCCESS;
    if (ZIP_OMPI_CODEC_REFUSED == st) {
        if (speaker)
            mca_coll_zip_show_help("temporal codec",
                                   "codec spec \"%s\" cannot be used for collectives: %s; using "
                                   "\"%s\" (for Alltoall(v) see coll_zip_alltoallv_temporal)",
                                   c.asked, c.reason, c.spec);
    } else if (ZIP_OMPI_CODEC_INVALID == st) {
        if (speaker)
            mca_coll_zip_show_help("bad codec", "cannot create codec \"%s\": %s; zip is disabled",
                                   c.asked, c.reason);
        rc = OMPI_ERR_NOT_AVAILABLE;
    } else if (ZIP_OMPI_CODEC_NO_MEMORY == st) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    free(z->codec_spec);
    z->codec_spec = c.spec; /* NULL unless usable */
    c.spec = NULL;
    zip_ompi_codec_release(&c);
    return rc;
}

/* Open MPI's mpi_yield_when_idle (on by itself where ranks outnumber cores), read through the
 * MCA variable, which every release registers, rather than its C variable, which no header
 * declares. */
static bool mpi_yields_when_idle(void)
{
    const bool *yields = NULL;
    const int var = mca_base_var_find("ompi", "mpi", NULL, "yield_when_idle");
    return var >= 0 && OPAL_SUCCESS == mca_base_var_get_value(var, &yields, NULL, NULL) &&
           NULL != yields && *yields;
}

/* Priority 1..30 is a silent no-op: tuned, enabled after zip, takes all three collectives. */
static void warn_if_below_tuned(int priority)
{
    const int *tuned_priority = NULL;
    const int var = mca_base_var_find("ompi", "coll", "tuned", "priority");
    if (var < 0 || OPAL_SUCCESS != mca_base_var_get_value(var, &tuned_priority, NULL, NULL) ||
        NULL == tuned_priority || priority > *tuned_priority) {
        return;
    }
    opal_output(0,
                "coll:zip: coll_zip_priority %d is not above coll_tuned_priority %d, so tuned "
                "handles every collective and zip compresses nothing; use e.g. "
                "--mca coll_zip_priority 40",
                priority, *tuned_priority);
}

int mca_coll_zip_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    (void)enable_progress_threads;
    (void)enable_mpi_threads;
    if (!z->release_ok)
        return OMPI_ERR_NOT_AVAILABLE; /* said so at registration; nothing read yet */

    /* Every process reaches the same verdict on the settings below; one of them says it. */
    const bool speaker = 0 == OMPI_PROC_MY_NAME->vpid;

    mca_coll_zip_help_init();
    mca_coll_zip_stats_set_rank((int)OMPI_PROC_MY_NAME->vpid);
    if (coll_framework_excludes_fallbacks(ompi_coll_base_framework.framework_selection)) {
        if (speaker)
            mca_coll_zip_show_help_now(
                "coll zip alone",
                "the coll framework was restricted to \"%s\"; zip needs "
                "coll/tuned and coll/basic to fall back on. Do not use "
                "\"--mca coll zip\"; type \"--mca coll_zip_priority 40\" instead",
                ompi_coll_base_framework.framework_selection);
        /* Stay loaded but decline every communicator: failing here instead makes Open MPI
         * print a garbled "component not found" message before ours. MPI_Init then stops
         * with Open MPI's "no collective component available". */
        zip_alone = true;
        return OMPI_SUCCESS;
    }
    if (z->priority <= 0) {
        return OMPI_SUCCESS; /* off: comm_query says no without further checks */
    }

    if (speaker)
        warn_if_below_tuned(z->priority);
    const int mode = zip_policy_mode_parse(z->policy_name);
    if (mode < 0) {
        if (speaker)
            mca_coll_zip_show_help("bad policy",
                                   "coll_zip_policy \"%s\" is not one of auto, always, never, "
                                   "observe; zip is disabled",
                                   NULL != z->policy_name ? z->policy_name : "");
        return OMPI_ERR_NOT_AVAILABLE;
    }
    z->policy = mode;
    z->bcast_algorithm = zip_bcast_algorithm_parse(z->bcast_algorithm_name);
    if (z->bcast_algorithm < 0 || !(z->bcast_latency_us >= 0.0)) {
        if (speaker)
            mca_coll_zip_show_help("bad bcast algorithm",
                                   "coll_zip_bcast_algorithm \"%s\" is not one of auto, chain, "
                                   "scatter_allgather, scatter_allgather_flat, "
                                   "scatter_allgather_tree, or coll_zip_bcast_latency_us is "
                                   "negative; zip is disabled",
                                   NULL != z->bcast_algorithm_name ? z->bcast_algorithm_name : "");
        return OMPI_ERR_NOT_AVAILABLE;
    }
    z->allreduce_algorithm = zip_allreduce_algorithm_parse(z->allreduce_algorithm_name);
    if (z->allreduce_algorithm < 0) {
        if (speaker)
            mca_coll_zip_show_help("bad allreduce algorithm",
                                   "coll_zip_allreduce_algorithm \"%s\" is not one of auto, ring, "
                                   "halving; zip is disabled",
                                   NULL != z->allreduce_algorithm_name ? z->allreduce_algorithm_name
                                                                       : "");
        return OMPI_ERR_NOT_AVAILABLE;
    }
    z->allgatherv_algorithm = zip_allgatherv_algorithm_parse(z->allgatherv_algorithm_name);
    if (z->allgatherv_algorithm < 0) {
        if (speaker)
            mca_coll_zip_show_help(
                "bad allgatherv algorithm",
                "coll_zip_allgatherv_algorithm \"%s\" is not one of auto, "
                "ring, bruck, bruck_blocks, bruck_steps; zip is disabled",
                NULL != z->allgatherv_algorithm_name ? z->allgatherv_algorithm_name : "");
        return OMPI_ERR_NOT_AVAILABLE;
    }
    z->alltoallv_temporal = zip_algo_temporal_mode_parse(z->alltoallv_temporal_name);
    if (z->alltoallv_temporal < 0) {
        if (speaker)
            mca_coll_zip_show_help("bad temporal",
                                   "coll_zip_alltoallv_temporal \"%s\" is not one of off, auto; "
                                   "zip is disabled",
                                   NULL != z->alltoallv_temporal_name ? z->alltoallv_temporal_name
                                                                      : "");
        return OMPI_ERR_NOT_AVAILABLE;
    }
    return resolve_codec_spec(speaker);
}

static bool all_ranks_on_this_node(struct ompi_communicator_t *comm)
{
    return !ompi_group_have_remote_peers(comm->c_local_group);
}

/* The MPI_Info key zip_coll set to false (zip_ompi_info_switch) when the communicator was made
 * (MPI_Comm_dup_with_info, MPI_Comm_split_type): Open MPI 4.1 copies that info onto the new
 * communicator before it selects the collectives, so comm_query sees it here, and such a
 * communicator runs exactly what stock Open MPI selects. Set later (MPI_Comm_set_info) it
 * changes nothing: the collectives are chosen once. */
static bool info_keeps_zip_off(struct ompi_communicator_t *comm)
{
    char value[16];
    int flag = 0;
    if (NULL == comm->super.s_info) {
        return false;
    }
    /* opal_info_get writes up to its length and a terminator after it. */
    (void)opal_info_get(comm->super.s_info, "zip_coll", (int)sizeof(value) - 1, value, &flag);
    return flag && 0 == zip_ompi_info_switch(value);
}

mca_coll_base_module_t *mca_coll_zip_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const char *no = NULL;
    int level = 1; /* reasons a user who turned zip on may want to know */

    if (zip_alone) {
        no = "no other coll component to fall back on";
    } else if (z->priority <= 0) {
        no = "coll_zip_priority is 0 (off)";
        level = 10;
    } else if (OMPI_COMM_IS_INTER(comm)) {
        no = "inter-communicator";
    } else if (comm == &ompi_mpi_comm_self.comm || ompi_comm_size(comm) < 2) {
        no = "single-rank communicator";
        level = 10;
    } else if (info_keeps_zip_off(comm)) {
        no = "the MPI_Info key zip_coll is false";
        level = 10;
    } else if (!z->force_local && all_ranks_on_this_node(comm)) {
        no = "all ranks share one node (shared memory beats compression; "
             "coll_zip_force_local 1 overrides)";
    }
    if (NULL != no) {
        opal_output_verbose(level, z->output, "coll:zip: not used on %s (cid %d): %s",
                            mca_coll_zip_comm_name(comm), comm->c_contextid, no);
        return NULL;
    }

    mca_coll_zip_module_t *m = OBJ_NEW(mca_coll_zip_module_t);
    if (NULL == m) {
        return NULL;
    }
    *priority = z->priority;
    m->super.coll_module_enable = zip_module_enable;
#define ZIP_OFFER(OP, name, Call) m->super.coll_##name = mca_coll_zip_##name;
    COLL_ZIP_COLLECTIVES(ZIP_OFFER)
    ZIP_OFFER(BARRIER, barrier, Barrier)
#undef ZIP_OFFER
    opal_output_verbose(10, z->output, "coll:zip: offered on %s (cid %d) with priority %d",
                        mca_coll_zip_comm_name(comm), comm->c_contextid, *priority);
    return &m->super;
}

/* Which peers share this node. Open MPI may know a peer only by name until it is first used
 * (a sentinel), which would read as remote one call and local the next; looking every peer up
 * here, once, gives both ends of every pair the same, lasting answer. */
static int find_peers_on_node(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    const int size = ompi_comm_size(comm);
    m->peer_on_node = calloc((size_t)size, sizeof(*m->peer_on_node));
    if (NULL == m->peer_on_node) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int p = 0; p < size; ++p) {
        ompi_proc_t *proc = ompi_group_peer_lookup(comm->c_remote_group, p);
        m->peer_on_node[p] = NULL != proc && OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags);
    }
    return OMPI_SUCCESS;
}

/* Whether blocking Alltoall(v) on comm code against the previous block: the Info key
 * zip_alltoallv_temporal given when comm was made (read as zip_coll is), else
 * coll_zip_alltoallv_temporal. An unknown value is reported and counts as off. */
static bool temporal_wanted(struct ompi_communicator_t *comm)
{
    char value[16];
    int flag = 0;
    if (NULL != comm->super.s_info) {
        (void)opal_info_get(comm->super.s_info, "zip_alltoallv_temporal", (int)sizeof(value) - 1,
                            value, &flag);
    }
    if (!flag) {
        return 1 == mca_coll_zip_component.alltoallv_temporal;
    }
    const int mode = zip_algo_temporal_mode_parse(value);
    if (mode < 0) {
        opal_output(0,
                    "coll:zip: MPI_Info zip_alltoallv_temporal \"%s\" on %s is not one of off, "
                    "auto; off",
                    value, mca_coll_zip_comm_name(comm));
    }
    return 1 == mode;
}

/* The temporal streams of comm, if wanted and the codec (as ctx) can code deltas (only a
 * lossless one can: a receiver keeps what it decoded). */
static void enable_temporal(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                            zip_ctx_t *ctx)
{
    if (!temporal_wanted(comm)) {
        return;
    }
    const double probe[2] = {1.0, 2.0};
    unsigned char frame[256];
    size_t frame_len = 0;
    if (ZIP_OK !=
        zip_compress_delta(ctx, ZIP_TYPE_F64, probe, 2, probe, frame, sizeof(frame), &frame_len)) {
        static bool told = false; /* the codec is the same on every communicator: say it once */
        if (told) {
            return;
        }
        told = true;
        opal_output(0,
                    "coll:zip: coll_zip_alltoallv_temporal is off on %s: codec \"%s\" cannot "
                    "code deltas (%s)",
                    mca_coll_zip_comm_name(comm), zip_ctx_spec(ctx), zip_ctx_last_error(ctx));
        return;
    }
    m->temporal = zip_algo_temporal_create(ompi_comm_size(comm),
                                           mca_coll_zip_component.alltoallv_temporal_memory);
    if (NULL == m->temporal) {
        opal_output(0, "coll:zip: coll_zip_alltoallv_temporal is off on %s: out of memory",
                    mca_coll_zip_comm_name(comm));
    }
}

/* Whether a process of the job has a GPU driver runtime loaded (common/gpu_runtime.h): its MPI
 * may then be handed device memory, which zip would read with the CPU. Asked once, by
 * MPI_COMM_WORLD's enable inside MPI_Init (after the PML's initialisation, which loads the
 * driver where the MPI can take device pointers), through one allreduce, so that every rank
 * leaves every communicator of the job to the other components alike. */
static int gpu_in_job(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    const char *runtime = zip_gpu_runtime_loaded();
    int mine = NULL != runtime, any = mine;
    const int rc =
        m->previous_allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm, m->previous_allreduce_module);
    if (OMPI_SUCCESS != rc) {
        /* The other ranks' answers are unknown: staying out is right whatever they are. */
        opal_output(0,
                    "coll:zip: could not learn whether a process of the job has a GPU runtime "
                    "(%d): zip is not used",
                    rc);
        return 1;
    }
    if (NULL != runtime) {
        opal_output_verbose(1, mca_coll_zip_component.output,
                            "coll:zip: %s is loaded in this process (coll_zip_gpu_guard)", runtime);
    }
    return any;
}

static int zip_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    mca_coll_zip_module_t *m = (mca_coll_zip_module_t *)module;
    const char *missing = NULL;

    /* Modules are enabled in increasing priority, so c_coll holds what zip replaces. */
#define ZIP_SAVE_PREVIOUS(OP, name, Call)                                                          \
    if (NULL == comm->c_coll->coll_##name##_module) {                                              \
        missing = #name;                                                                           \
    } else {                                                                                       \
        m->previous_##name = comm->c_coll->coll_##name;                                            \
        m->previous_##name##_module = comm->c_coll->coll_##name##_module;                          \
        OBJ_RETAIN(m->previous_##name##_module);                                                   \
    }
    COLL_ZIP_COLLECTIVES(ZIP_SAVE_PREVIOUS)
    ZIP_SAVE_PREVIOUS(BARRIER, barrier, Barrier)
#undef ZIP_SAVE_PREVIOUS

    if (NULL != missing) {
        mca_coll_zip_show_help("missing collective",
                               "on host %s with priority %d no lower-priority component "
                               "provides %s to fall back on; zip is not used",
                               ompi_process_info.nodename, z->priority, missing);
        return OMPI_ERR_NOT_FOUND; /* the destructor releases what was retained */
    }

    if (&ompi_mpi_comm_world.comm == comm) {
        z->job_gpu = z->gpu_guard ? gpu_in_job(m, comm) : 0;
    }
    if (1 == z->job_gpu) {
        /* Every rank returns here for every communicator: the previous components keep them. */
        opal_output_verbose(1, z->output,
                            "coll:zip: not used on %s (cid %d): a process of the job has a GPU "
                            "runtime loaded (coll_zip_gpu_guard)",
                            mca_coll_zip_comm_name(comm), comm->c_contextid);
        return OMPI_ERR_NOT_SUPPORTED;
    }
    if (!z->force_local && OMPI_SUCCESS != find_peers_on_node(m, comm)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    /* A context from the process's pool (made now if it has none): zip stays out of comm if
     * none can be made, before any rank could rely on it. */
    zip_ctx_t *ctx = mca_coll_zip_codec_take();
    if (NULL == ctx) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    enable_temporal(m, comm, ctx);
    opal_output_verbose(10, z->output, "coll:zip: enabled on %s (cid %d), codec %s%s",
                        mca_coll_zip_comm_name(comm), comm->c_contextid, zip_ctx_spec(ctx),
                        NULL != m->temporal ? ", alltoall(v) temporal" : "");
    mca_coll_zip_codec_give(ctx);
    mca_coll_zip_policy_subscribe(comm);
    if (OMPI_SUCCESS != mca_coll_zip_agree_start_early(m, comm)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (mca_coll_zip_agrees_at_init(comm)) {
        /* MPI_Init sets progress to yield when idle (mpi_yield_when_idle, on by itself when
         * ranks outnumber cores) only after the communicators' enables: until then ranks
         * waiting in the agreement spin, and shared memory's probe took 0.16-0.18 s there
         * against 0.025 s after MPI_Init (netemu, 4 ranks on 2 cores), one rank reading
         * 36 MB/s. The agreement runs as progress runs after MPI_Init. */
        const bool yielded = opal_progress_set_yield_when_idle(mpi_yields_when_idle());
        mca_coll_zip_policy_agree_now(m, comm); /* a failure is said there; calls agree later */
        opal_progress_set_yield_when_idle(yielded);
    }
    m->enabled = true;
    return OMPI_SUCCESS;
}
