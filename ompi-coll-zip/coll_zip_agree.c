/*
 * The speeds the ranks of a communicator agree on (coll_zip_policy.c routes calls with them).
 *
 * At the first call that needs them, every rank measures its codec (zip_calibrate) and the link
 * to one or two partners (a short ping-pong, zip_algo_probe_links), and one allreduce (through
 * the previous component) gives everyone the fastest link and the slowest codec seen, and the
 * largest number of ranks sharing a node. The links are probed only where some rank knows no
 * rate yet for a link it would time: what earlier agreements on other communicators settled on
 * is the same machine's. The codec's speed is agreed again at fixed blocking call counts, from
 * what each rank's codec did on the communicator's own data (algo/codec_meter.h).
 *
 * That agreement waits for every rank, so it runs only inside a blocking call. A communicator
 * made after its ranks know the rates also gets an agreement that needs no blocking call: every
 * rank starts it, non-blocking, inside the MPI call that makes the communicator, and its first
 * collective of any kind completes it (docs/design.md, "Where the ranks agree").
 */
#include "ompi_config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "opal/util/output.h"
#include "ompi/communicator/communicator.h"
#include "ompi/attribute/attribute.h"
#include "ompi/constants.h"
#include "ompi/runtime/mpiruntime.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/request/request.h"

#include "coll_zip.h"
#include "algo/coll_policy.h"
#include "algo/zip_algo.h"

/* This process's codec, measured once (or as coll_zip_codec_gbps_* say: with both set, never). */
static void codec_speeds(double *c, double *d)
{
    static double cached_c, cached_d;
    static opal_mutex_t lock = OPAL_MUTEX_STATIC_INIT;
    const mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const bool given = z->codec_gbps_compress > 0.0 && z->codec_gbps_decompress > 0.0;
    opal_mutex_lock(&lock);
    if (!given && 0.0 == cached_c) {
        zip_ctx_t *ctx = mca_coll_zip_codec_take();
        if (NULL == ctx || ZIP_OK != zip_calibrate(ctx, &cached_c, &cached_d)) {
            cached_c = cached_d = 0.0;
        }
        mca_coll_zip_codec_give(ctx);
    }
    *c = z->codec_gbps_compress > 0.0 ? z->codec_gbps_compress * 1e9 / 8.0 : cached_c;
    *d = z->codec_gbps_decompress > 0.0 ? z->codec_gbps_decompress * 1e9 / 8.0 : cached_d;
    opal_mutex_unlock(&lock);
}

/* This process's machine: a name (FNV-1a of the kernel's boot id: ranks that share a kernel share
 * its cores, whatever host names they carry, as in containers or netemu's namespaces; 0 where it
 * cannot be read) and its online cores (0: unknown). */
static void my_machine(uint64_t machine[2])
{
    char id[64];
    size_t n = 0;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (NULL != f) {
        n = fread(id, 1, sizeof id, f);
        fclose(f);
    }
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ (unsigned char)id[i]) * 1099511628211ull;
    }
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    machine[0] = n > 0 ? h : 0;
    machine[1] = cores > 0 ? (uint64_t)cores : 0;
}

/* The machine (my_machine) of each process of this job that an agreement's exchange named, by
 * its rank in MPI_COMM_WORLD: a process's machine never changes, so a communicator whose ranks'
 * machines are all known here needs no exchange to count its ranks per core. */
static uint64_t *known_machine; /* two per rank of MPI_COMM_WORLD */
static bool *machine_known;
static opal_mutex_t known_machine_lock = OPAL_MUTEX_STATIC_INIT;

/* Rank p of comm's rank in MPI_COMM_WORLD (-1: not of this job, as after MPI_Comm_spawn). */
static int world_rank_of(struct ompi_communicator_t *comm, int p)
{
    const ompi_proc_t *proc = ompi_group_peer_lookup(comm->c_remote_group, p);
    if (NULL == proc || proc->super.proc_name.jobid != OMPI_PROC_MY_NAME->jobid) {
        return -1;
    }
    const uint32_t vpid = proc->super.proc_name.vpid;
    return vpid < (uint32_t)ompi_comm_size(&ompi_mpi_comm_world.comm) ? (int)vpid : -1;
}

static void learn_machines(struct ompi_communicator_t *comm, const uint64_t *machines)
{
    const int world = ompi_comm_size(&ompi_mpi_comm_world.comm);
    opal_mutex_lock(&known_machine_lock);
    if (NULL == known_machine) {
        known_machine = calloc(2 * (size_t)world, sizeof *known_machine);
        machine_known = calloc((size_t)world, sizeof *machine_known);
        if (NULL == known_machine || NULL == machine_known) {
            free(known_machine);
            free(machine_known);
            known_machine = NULL;
            machine_known = NULL;
        }
    }
    for (int p = 0; NULL != known_machine && p < ompi_comm_size(comm); ++p) {
        const int w = world_rank_of(comm, p);
        if (w >= 0) {
            known_machine[2 * w] = machines[2 * p];
            known_machine[2 * w + 1] = machines[2 * p + 1];
            machine_known[w] = true;
        }
    }
    opal_mutex_unlock(&known_machine_lock);
}

/* Fills machines (two per rank of comm) from what this process has learnt; false where it
 * lacks one. */
static bool machines_known(struct ompi_communicator_t *comm, uint64_t *machines)
{
    bool all = true;
    opal_mutex_lock(&known_machine_lock);
    for (int p = 0; all && p < ompi_comm_size(comm); ++p) {
        const int w = world_rank_of(comm, p);
        all = w >= 0 && NULL != machine_known && machine_known[w];
        if (all) {
            machines[2 * p] = known_machine[2 * w];
            machines[2 * p + 1] = known_machine[2 * w + 1];
        }
    }
    opal_mutex_unlock(&known_machine_lock);
    return all;
}

/* The most ranks per core any of comm's machines runs (zip_coll_ranks_per_core), from every
 * rank's machine through the previous component's allgather. `exchange` must be the same on
 * every rank (agreed: every rank has the buffer); otherwise, or should the allgather fail, 0. */
static double ranks_per_core(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                             uint64_t *machines, bool exchange)
{
    if (!exchange) {
        return 0.0;
    }
    uint64_t mine[2];
    my_machine(mine);
    const int size = ompi_comm_size(comm);
    int rc = m->previous_allgather(mine, 2, MPI_UINT64_T, machines, 2, MPI_UINT64_T, comm,
                                   m->previous_allgather_module);
    if (OMPI_SUCCESS != rc) {
        return 0.0;
    }
    learn_machines(comm, machines);
    return zip_coll_ranks_per_core(machines, size);
}

/* The link rates this process's earlier agreements settled on, on any communicator (0: none
 * yet): shared memory's rate and a node's NIC (the probe reports the NIC, not a rank's share of
 * it) belong to the machine, so a communicator whose ranks all know both need not probe again. */
static double known_link[2];
static opal_mutex_t known_link_lock = OPAL_MUTEX_STATIC_INIT;

static void known_links(double link[2])
{
    opal_mutex_lock(&known_link_lock);
    link[0] = known_link[0];
    link[1] = known_link[1];
    opal_mutex_unlock(&known_link_lock);
}

static void learn_links(const double link[2])
{
    opal_mutex_lock(&known_link_lock);
    for (int cls = 0; cls < 2; ++cls) {
        if (link[cls] > 0.0) {
            known_link[cls] = link[cls];
        }
    }
    opal_mutex_unlock(&known_link_lock);
}

/* Slots after the agreed values: whether a rank lacks the buffer for the machines' exchange (the
 * early agreement: a machine in the table), whether a rank lacks a rate its probe would time (so
 * that all of them take each or none), and the ranks per core Open MPI's locality gives. */
enum {
    AGREE_NO_BUFFER = ZIP_COLL_AGREE_VALUES,
    AGREE_MUST_PROBE,
    AGREE_LOCAL_PER_CORE,
    AGREE_SLOTS
};

/* comm's ranks on this rank's node (Open MPI's locality, whatever coll_zip_force_local says) per
 * online core of this machine (0: unknown). Reduced to the most, it stands in for
 * zip_coll_ranks_per_core where the early agreement finds a machine missing from the table: on a
 * cluster Open MPI's node is the kernel's; where ranks of one kernel carry host names of their
 * own (containers, netemu's namespaces) it counts fewer ranks than share the cores. */
static double local_ranks_per_core(const mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    uint64_t mine[2];
    my_machine(mine);
    if (0 == mine[1]) {
        return 0.0;
    }
    const int size = ompi_comm_size(comm);
    /* Looked up at enable, except under force_local, which leaves peer_on_node NULL. */
    int on_node = 0;
    if (NULL != m->peer_on_node) {
        on_node = zip_coll_ranks_on_node(m->peer_on_node, size);
    } else {
        for (int p = 0; p < size; ++p) {
            const ompi_proc_t *proc = ompi_group_peer_lookup(comm->c_remote_group, p);
            on_node += NULL != proc && OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags) ? 1 : 0;
        }
    }
    return (double)(on_node > 0 ? on_node : 1) / (double)mine[1];
}

/* The links this rank agrees with (the given rate, else what `from` says, else the known rate)
 * and its share of the agreement's values. */
static void agree_values(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                         const double given[2], const double from[2], double c, double d,
                         double mine[AGREE_SLOTS])
{
    double known[2], link[2];
    known_links(known);
    for (int cls = 0; cls < 2; ++cls) {
        link[cls] = given[cls] > 0.0 ? given[cls] : from[cls] > 0.0 ? from[cls] : known[cls];
    }
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    zip_coll_agree_mine(link, c, d, zip_coll_ranks_on_node(m->peer_on_node, size),
                        zip_coll_chain_local_share(m->peer_on_node, rank, size), mine);
    bool times[2];
    zip_algo_probe_times(rank, size, m->peer_on_node, times);
    mine[AGREE_MUST_PROBE] = 0.0;
    for (int cls = 0; cls < 2; ++cls) {
        if (times[cls] && link[cls] <= 0.0) {
            mine[AGREE_MUST_PROBE] = 1.0;
        }
    }
    /* The early agreement's alone: mca_coll_zip_agree_start_early. */
    mine[AGREE_LOCAL_PER_CORE] = 0.0;
}

/* Takes the reduced values `all` (and the most ranks per core) as comm's agreed speeds. */
static void settle(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                   const double all[AGREE_SLOTS], double per_core, const char *how)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const zip_algo_agreed_t *s = &m->speeds;
    m->speeds = zip_coll_agree_result(all);
    m->speeds.ranks_per_core = per_core;
    m->agreed = true;
    learn_links(s->link_Bps);
    opal_output_verbose(1, z->output,
                        "coll:zip: %s: link MB/s local %.0f remote %.0f (%s), codec MB/s %.0f / "
                        "%.0f, up to %d ranks per node, at least %.0f %% of the chain's hops on a "
                        "node, up to %.2f ranks per core",
                        mca_coll_zip_comm_name(comm), s->link_Bps[0] / 1e6, s->link_Bps[1] / 1e6,
                        how, s->compress_Bps / 1e6, s->decompress_Bps / 1e6, s->ranks_per_node,
                        100.0 * s->chain_local_share, s->ranks_per_core);
    z->last_speeds.link_Bps = s->link_Bps[ZIP_PEER_REMOTE];
    if (s->link_Bps[ZIP_PEER_REMOTE] > 0.0) {
        z->agreed_link_remote_mbps = s->link_Bps[ZIP_PEER_REMOTE] / 1e6;
    }
    z->last_speeds.compress_Bps = s->compress_Bps;
    z->last_speeds.decompress_Bps = s->decompress_Bps;
}

int mca_coll_zip_agree(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    const mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const double given[2] = {z->link_gbps_local * 1e9 / 8.0, z->link_gbps_remote * 1e9 / 8.0};
    const double none[2] = {0.0, 0.0};
    double c = 0.0, d = 0.0;
    codec_speeds(&c, &d);
    const int size = ompi_comm_size(comm);
    double mine[AGREE_SLOTS], all[AGREE_SLOTS];
    agree_values(m, comm, given, none, c, d, mine);
    uint64_t *machines = malloc(2 * (size_t)size * sizeof *machines);
    mine[AGREE_NO_BUFFER] = NULL == machines ? 1.0 : 0.0;
    /* The previous component's allreduce: comm's own is zip's, which routes through here again
     * (with coll_zip_threshold at or below these 64 bytes it recursed until the stack ran out). */
    int rc = m->previous_allreduce(mine, all, AGREE_SLOTS, MPI_DOUBLE, MPI_MAX, comm,
                                   m->previous_allreduce_module);
    const bool probed = OMPI_SUCCESS == rc && all[AGREE_MUST_PROBE] > 0.0;
    if (probed) {
        /* Some rank knows no rate for a link it times: every rank probes, and agrees again. A
         * pair skips a class whose rate both ends have (given, or kept from an earlier
         * agreement): only shared memory is timed where the remote rate is given. */
        double measured[2] = {0.0, 0.0}, known[2];
        known_links(known);
        const bool wanted[2] = {given[0] <= 0.0 && known[0] <= 0.0,
                                given[1] <= 0.0 && known[1] <= 0.0};
        zip_transport_t t;
        mca_coll_zip_transport_init(&t, comm);
        (void)zip_algo_probe_links(&t, MCA_COLL_BASE_TAG_BCAST, m->peer_on_node, wanted, measured);
        agree_values(m, comm, given, measured, c, d, mine);
        mine[AGREE_NO_BUFFER] = NULL == machines ? 1.0 : 0.0;
        rc = m->previous_allreduce(mine, all, AGREE_SLOTS, MPI_DOUBLE, MPI_MAX, comm,
                                   m->previous_allreduce_module);
    }
    if (OMPI_SUCCESS != rc) {
        free(machines);
        return rc;
    }
    const double per_core = ranks_per_core(m, comm, machines, 0.0 == all[AGREE_NO_BUFFER]);
    free(machines);
    settle(m, comm, all, per_core, probed ? "probed" : "not probed");
    return OMPI_SUCCESS;
}

/* The ranks agree on the slowest codec their meters saw; the routes are then found anew (a
 * plan made from the speeds, bcast's or allreduce's, reads them at its next call). */
void mca_coll_zip_agree_on_codec(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    double mine[2], all[2];
    zip_codec_meter_mine(&m->meter, mine);
    const int rc = m->previous_allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, comm,
                                         m->previous_allreduce_module);
    if (OMPI_SUCCESS != rc || !zip_codec_meter_agreed(&m->meter, all, &m->speeds)) {
        return;
    }
    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        m->routes[op].mode = -1;
    }
    mca_coll_zip_component.last_speeds.compress_Bps = m->speeds.compress_Bps;
    mca_coll_zip_component.last_speeds.decompress_Bps = m->speeds.decompress_Bps;
    opal_output_verbose(1, mca_coll_zip_component.output,
                        "coll:zip: %s: codec MB/s %.0f / %.0f on its data, agreed at call %llu",
                        mca_coll_zip_comm_name(comm), m->speeds.compress_Bps / 1e6,
                        m->speeds.decompress_Bps / 1e6, (unsigned long long)m->blocking_calls);
}

/* ---- the agreement started as a communicator is made ---- */

/* The values of an agreement every rank started inside the call that made the communicator, and
 * every rank's machine (for ranks_per_core), until the communicator's first call takes them. */
struct mca_coll_zip_early_agreement_t {
    ompi_request_t *request; /* the allreduce of the values */
    double mine[AGREE_SLOTS];
    double all[AGREE_SLOTS];
    mca_coll_zip_module_t *module;
    mca_coll_zip_early_agreement_t *prev, *next; /* in `pending` */
    uint64_t machines[];                         /* two per rank, from learn_machines */
};

/* Every early agreement no call has taken yet: MPI_Finalize completes them (early_finalize). */
static mca_coll_zip_early_agreement_t *pending;
static opal_mutex_t pending_lock = OPAL_MUTEX_STATIC_INIT;
static int freed_keyval = MPI_KEYVAL_INVALID; /* the hook on each communicator */

static void unlink_pending(mca_coll_zip_early_agreement_t *e)
{
    opal_mutex_lock(&pending_lock);
    if (NULL != e->prev) {
        e->prev->next = e->next;
    } else {
        pending = e->next;
    }
    if (NULL != e->next) {
        e->next->prev = e->prev;
    }
    opal_mutex_unlock(&pending_lock);
}

/* Completes m's early agreement, if it has one no call took, and forgets it. Only where the
 * caller may wait: not in the communicator's destructor, which runs inside MPI's progress once
 * the last request on the communicator completes (and so inside this very wait's progress). */
static void complete_untaken(mca_coll_zip_module_t *m)
{
    mca_coll_zip_early_agreement_t *e = m->early_agreement;
    if (NULL == e) {
        return;
    }
    m->early_agreement = NULL;
    unlink_pending(e);
    (void)ompi_request_wait(&e->request, MPI_STATUS_IGNORE);
    free(e);
}

/* The hook is not copied to a communicator's duplicates (each gets its own at enable). */
static int early_no_copy(MPI_Comm comm, int keyval, void *extra, void *value, void *copy, int *flag,
                         MPI_Comm newcomm)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    (void)value;
    (void)copy;
    (void)newcomm;
    *flag = 0;
    return MPI_SUCCESS;
}

/* MPI_Comm_free deletes a communicator's attributes first, in the caller's context. */
static int early_comm_freed(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    complete_untaken((mca_coll_zip_module_t *)value);
    return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, while every rank still progresses:
 * the agreements of communicators never freed (or freed only by MPI_Finalize) complete there. */
static int early_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    (void)extra;
    for (;;) {
        opal_mutex_lock(&pending_lock);
        mca_coll_zip_module_t *m = NULL != pending ? pending->module : NULL;
        opal_mutex_unlock(&pending_lock);
        if (NULL == m) {
            return MPI_SUCCESS;
        }
        complete_untaken(m);
    }
}

/* The two hooks above, made once (pending_lock held). */
static int make_hooks(void)
{
    if (MPI_KEYVAL_INVALID != freed_keyval) {
        return OMPI_SUCCESS;
    }
    ompi_attribute_fn_ptr_union_t copy, freed, finalize;
    copy.attr_communicator_copy_fn = early_no_copy;
    freed.attr_communicator_delete_fn = early_comm_freed;
    finalize.attr_communicator_delete_fn = early_finalize;
    int key = MPI_KEYVAL_INVALID, at_finalize = MPI_KEYVAL_INVALID;
    int rc = ompi_attr_create_keyval(COMM_ATTR, copy, finalize, &at_finalize, NULL, 0, NULL);
    if (OMPI_SUCCESS == rc) {
        rc = ompi_attr_set_c(COMM_ATTR, &ompi_mpi_comm_self.comm,
                             &ompi_mpi_comm_self.comm.c_keyhash, at_finalize, NULL, false);
    }
    if (OMPI_SUCCESS == rc) {
        rc = ompi_attr_create_keyval(COMM_ATTR, copy, freed, &key, NULL, 0, NULL);
    }
    if (OMPI_SUCCESS == rc) {
        freed_keyval = key;
    }
    return rc;
}

/* MPI_COMM_WORLD's enable runs inside MPI_Init on every rank, called directly (not from a
 * request's completion, as a later communicator's is), after the PML knows every process: the
 * ranks may wait for each other there, so MPI_COMM_WORLD agrees there. Each rank measures its
 * codec once (5-20 ms), one allreduce and one allgather of the machines follow, and where some
 * rank times a link whose rate is not given (the allreduce tells all alike) the pairs of the
 * probe time the links not given first (measured: 0.03 s on shared memory with 4 ranks on 2
 * cores, 0.05 s at 1 Gbit/s). Then MPI_COMM_WORLD's non-blocking calls compress from the first,
 * every communicator made later agrees as it is made, and pml/zip has the rate between nodes. A job
 * would pay the same at its first MPI_Allreduce, MPI_Barrier or other collective zip takes on
 * MPI_COMM_WORLD (each agrees there), which nearly every job calls. The answer depends only
 * on parameters that are the same on every rank. */
bool mca_coll_zip_agrees_at_init(struct ompi_communicator_t *comm)
{
    return mca_coll_zip_component.agree_early && &ompi_mpi_comm_world.comm == comm &&
           ompi_comm_size(comm) > 1;
}

/* Whether comm gets an early agreement: the same answer on every rank of comm, since all of them
 * must start it or none. MPI_COMM_WORLD is made before any agreement could have settled a rate. */
static bool agrees_early(struct ompi_communicator_t *comm)
{
    return mca_coll_zip_component.agree_early && ompi_comm_size(comm) > 1 &&
           &ompi_mpi_comm_world.comm != comm && !OMPI_COMM_IS_INTER(comm) &&
           OMPI_MPI_STATE_INIT_COMPLETED == ompi_mpi_state;
}

int mca_coll_zip_agree_start_early(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    if (!agrees_early(comm)) {
        return OMPI_SUCCESS;
    }
    const mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const int size = ompi_comm_size(comm);
    mca_coll_zip_early_agreement_t *e = calloc(1, sizeof *e + 2 * (size_t)size * sizeof(uint64_t));
    if (NULL == e) {
        return OMPI_ERR_OUT_OF_RESOURCE; /* zip stays out of comm on this rank, as for any enable */
    }
    opal_mutex_lock(&pending_lock);
    int hooked = make_hooks();
    opal_mutex_unlock(&pending_lock);
    if (OMPI_SUCCESS == hooked) {
        hooked = ompi_attr_set_c(COMM_ATTR, comm, &comm->c_keyhash, freed_keyval, m, false);
    }
    if (OMPI_SUCCESS != hooked) {
        free(e);
        return hooked;
    }
    const double given[2] = {z->link_gbps_local * 1e9 / 8.0, z->link_gbps_remote * 1e9 / 8.0};
    const double none[2] = {0.0, 0.0};
    agree_values(m, comm, given, none, 0.0, 0.0, e->mine);
    if (0.0 == e->mine[AGREE_MUST_PROBE]) {
        /* Only a rank that knows its links measures its codec here (once per process): where one
         * does not, the first blocking call agrees and measures anyway. */
        double c = 0.0, d = 0.0;
        codec_speeds(&c, &d);
        agree_values(m, comm, given, none, c, d, e->mine);
    }
    /* Ranks per core from the machines earlier agreements named: an allgather here would post
     * p - 1 sends and receives on every rank (libnbc's linear iallgather) for each communicator
     * made. A rank that lacks one says so, and then Open MPI's locality counts them. */
    e->mine[AGREE_NO_BUFFER] = machines_known(comm, e->machines) ? 0.0 : 1.0;
    e->mine[AGREE_LOCAL_PER_CORE] = local_ranks_per_core(m, comm);
    e->request = MPI_REQUEST_NULL;
    /* The first non-blocking collective on comm on every rank, so they match; started inside the
     * call that makes comm, so every rank has started it (or goes on to, needing nothing more
     * from the others) before any rank's first collective on comm waits for it. */
    const int rc = m->previous_iallreduce(e->mine, e->all, AGREE_SLOTS, MPI_DOUBLE, MPI_MAX, comm,
                                          &e->request, m->previous_iallreduce_module);
    if (OMPI_SUCCESS != rc) {
        /* The other ranks' operation cannot complete without this rank's: said, not hidden. */
        opal_output(0, "coll:zip: %s: could not start the agreement on speeds (%d)",
                    mca_coll_zip_comm_name(comm), rc);
        e->all[AGREE_MUST_PROBE] = 1.0;
    }
    e->module = m;
    m->early_agreement = e;
    opal_mutex_lock(&pending_lock);
    e->next = pending;
    if (NULL != pending) {
        pending->prev = e;
    }
    pending = e;
    opal_mutex_unlock(&pending_lock);
    return OMPI_SUCCESS;
}

void mca_coll_zip_agree_take_early(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    mca_coll_zip_early_agreement_t *e = m->early_agreement;
    if (NULL == e) {
        return;
    }
    m->early_agreement = NULL;
    unlink_pending(e);
    const int rc = ompi_request_wait(&e->request, MPI_STATUS_IGNORE);
    /* all[] is the same on every rank: all settle here, or none (and a blocking call agrees). */
    if (OMPI_SUCCESS == rc && !m->agreed && 0.0 == e->all[AGREE_MUST_PROBE]) {
        if (0.0 == e->all[AGREE_NO_BUFFER]) {
            settle(m, comm, e->all, zip_coll_ranks_per_core(e->machines, ompi_comm_size(comm)),
                   "known as the communicator was made");
        } else {
            settle(m, comm, e->all, e->all[AGREE_LOCAL_PER_CORE],
                   "known as the communicator was made, ranks per core by Open MPI's nodes");
        }
    }
    free(e);
}

void mca_coll_zip_agree_drop_early(mca_coll_zip_module_t *m)
{
    mca_coll_zip_early_agreement_t *e = m->early_agreement;
    if (NULL == e) {
        return;
    }
    /* Not reached through MPI: MPI_Comm_free and MPI_Finalize complete every agreement first.
     * A communicator released otherwise must not wait here (see complete_untaken); its
     * agreement is left to run, its memory kept. */
    m->early_agreement = NULL;
    unlink_pending(e);
    if (REQUEST_COMPLETE(e->request)) {
        (void)ompi_request_wait(&e->request, MPI_STATUS_IGNORE);
        free(e);
    }
}
