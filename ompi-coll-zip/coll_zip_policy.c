/*
 * coll/zip's side of the speed-aware policy (zip.h, docs/design.md "The cost model").
 *
 * Whether a call takes zip's path or goes to the previous component must be the same on every
 * rank, or the ranks would run different algorithms. So that answer uses only values all ranks
 * agreed on: at the first call that needs them, every rank measures its codec (zip_calibrate)
 * and the link to one or two partners (a short ping-pong, zip_algo_probe_links), and one
 * allreduce (through the previous component) gives everyone the fastest link and the slowest
 * codec seen, and the largest number of ranks sharing a node. Calls are then handed back when, with
 * those speeds, no plausible ratio could pay ("link faster than codec"). Inside zip's path the
 * sender's sample decides locally with the same speeds; receivers learn the outcome from lengths.
 * The links are probed only where some rank knows no rate yet for a link it would time: what
 * earlier agreements on other communicators settled on is the same machine's.
 * The codec's speed is agreed again at fixed blocking call counts, from what each rank's codec
 * did on the communicator's own data (algo/codec_meter.h), and the routes are found anew.
 */
#include "ompi_config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opal/util/info_subscriber.h"
#include "opal/util/output.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

#include "coll_zip.h"
#include "coll_zip_view.h"
#include "algo/coll_policy.h"
#include "algo/zip_algo.h"

/* ---- the per-communicator Info key zip_policy ---- */

static char *policy_key_changed(opal_infosubscriber_t *obj, char *key, char *value)
{
    (void)key;
    /* The subscriber object is the communicator's first member. */
    ompi_communicator_t *comm = (ompi_communicator_t *)obj;
    zip_coll_policy_set(comm->c_contextid, zip_policy_mode_parse(value));
    return value;
}

void mca_coll_zip_policy_subscribe(struct ompi_communicator_t *comm)
{
    zip_coll_policy_set(comm->c_contextid, -1); /* a reused context id starts unset */
    (void)opal_infosubscribe_subscribe(&comm->super, "zip_policy", "default", policy_key_changed);
}

zip_policy_mode_t mca_coll_zip_policy_mode(struct ompi_communicator_t *comm)
{
    const int mode = zip_coll_policy_get(comm->c_contextid);
    return (zip_policy_mode_t)(mode >= 0 ? mode : mca_coll_zip_component.policy);
}

void mca_coll_zip_policy_fini(void)
{
    zip_coll_policy_clear();
}

/* ---- agreeing on the speeds ---- */

/* This process's codec, measured once (or as coll_zip_codec_gbps_* say: with both set, never). */
static void codec_speeds(mca_coll_zip_module_t *m, double *c, double *d)
{
    static double cached_c, cached_d;
    static opal_mutex_t lock = OPAL_MUTEX_STATIC_INIT;
    const mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const bool given = z->codec_gbps_compress > 0.0 && z->codec_gbps_decompress > 0.0;
    opal_mutex_lock(&lock);
    if (!given && 0.0 == cached_c && ZIP_OK != zip_calibrate(m->codec, &cached_c, &cached_d)) {
        cached_c = cached_d = 0.0;
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
    return OMPI_SUCCESS == rc ? zip_coll_ranks_per_core(machines, size) : 0.0;
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

/* Slots after the agreed values: whether a rank lacks the buffer for the machines' exchange, and
 * whether a rank lacks a rate its probe would time (so that all of them take each or none). */
enum { AGREE_NO_BUFFER = ZIP_COLL_AGREE_VALUES, AGREE_MUST_PROBE, AGREE_SLOTS };

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
}

static int agree(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;
    const double given[2] = {z->link_gbps_local * 1e9 / 8.0, z->link_gbps_remote * 1e9 / 8.0};
    const double none[2] = {0.0, 0.0};
    double c = 0.0, d = 0.0;
    codec_speeds(m, &c, &d);
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
        /* Some rank knows no rate for a link it times: every rank probes, and agrees again. */
        double measured[2] = {0.0, 0.0};
        zip_transport_t t;
        mca_coll_zip_transport_init(&t, comm);
        (void)zip_algo_probe_links(&t, MCA_COLL_BASE_TAG_BCAST, m->peer_on_node, measured);
        agree_values(m, comm, given, measured, c, d, mine);
        mine[AGREE_NO_BUFFER] = NULL == machines ? 1.0 : 0.0;
        rc = m->previous_allreduce(mine, all, AGREE_SLOTS, MPI_DOUBLE, MPI_MAX, comm,
                                   m->previous_allreduce_module);
    }
    if (OMPI_SUCCESS != rc) {
        free(machines);
        return rc;
    }
    const zip_algo_agreed_t *s = &m->speeds;
    m->speeds = zip_coll_agree_result(all);
    m->speeds.ranks_per_core = ranks_per_core(m, comm, machines, 0.0 == all[AGREE_NO_BUFFER]);
    free(machines);
    m->agreed = true;
    learn_links(s->link_Bps);
    opal_output_verbose(1, z->output,
                        "coll:zip: %s: link MB/s local %.0f remote %.0f (%s), codec MB/s %.0f / "
                        "%.0f, up to %d ranks per node, at least %.0f %% of the chain's hops on a "
                        "node, up to %.2f ranks per core",
                        mca_coll_zip_comm_name(comm), s->link_Bps[0] / 1e6, s->link_Bps[1] / 1e6,
                        probed ? "probed" : "not probed", s->compress_Bps / 1e6,
                        s->decompress_Bps / 1e6, s->ranks_per_node, 100.0 * s->chain_local_share,
                        s->ranks_per_core);
    z->last_speeds.link_Bps = s->link_Bps[ZIP_PEER_REMOTE];
    if (s->link_Bps[ZIP_PEER_REMOTE] > 0.0) {
        z->agreed_link_remote_mbps = s->link_Bps[ZIP_PEER_REMOTE] / 1e6;
    }
    z->last_speeds.compress_Bps = s->compress_Bps;
    z->last_speeds.decompress_Bps = s->decompress_Bps;
    return OMPI_SUCCESS;
}

static inline bool needs_agreement(zip_policy_mode_t mode)
{
    return ZIP_POLICY_AUTO == mode || ZIP_POLICY_OBSERVE == mode;
}

/* The ranks agree on the slowest codec their meters saw; the routes are then found anew (a
 * plan made from the speeds, bcast's or allreduce's, reads them at its next call). */
static void agree_on_codec(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
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

void mca_coll_zip_policy_count_call(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                    int op)
{
    if (zip_coll_op_blocking(op) != op) {
        return;
    }
    ++m->blocking_calls;
    if (m->agreement_wanted) {
        /* A communicator whose large calls are all non-blocking agrees at its first blocking
         * call, however small (a dot product's allreduce, a flag's bcast). */
        m->agreement_wanted = false;
        mca_coll_zip_policy_agree_now(m, comm);
    }
    const int period = mca_coll_zip_component.codec_agree_period; /* below 0: as 0 */
    /* m->agreed and the mode are the same on every rank: both change only at calls all make. */
    if (period > 0 && m->agreed && needs_agreement(mca_coll_zip_policy_mode(comm)) &&
        zip_codec_meter_agree_at(m->blocking_calls, (uint64_t)period)) {
        agree_on_codec(m, comm);
    }
}

void mca_coll_zip_policy_agree_now(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm)
{
    if (m->agreed || !needs_agreement(mca_coll_zip_policy_mode(comm))) {
        return;
    }
    const int rc = agree(m, comm);
    if (OMPI_SUCCESS != rc) {
        opal_output_verbose(1, mca_coll_zip_component.output,
                            "coll:zip: %s: could not agree on speeds (%d): handing calls on",
                            mca_coll_zip_comm_name(comm), rc);
    }
}

/* The route of a call of `op` under `mode` when m->routes has none for that mode: agrees on the
 * speeds first if the mode needs them and keeps what zip_algo_route finds. Without agreed speeds
 * the call is handed on (as stock Open MPI) and nothing is kept, so the next call tries again. */
static const mca_coll_zip_route_t *find_route(mca_coll_zip_module_t *m,
                                              struct ompi_communicator_t *comm, int op,
                                              zip_policy_mode_t mode)
{
    static const mca_coll_zip_route_t unknown = {.mode = -1, .verdict = ZIP_VERDICT_UNAGREED};
    const bool needs_speeds = needs_agreement(mode);
    const zip_algo_flow_t flow = zip_coll_op_flow(op);
    if (needs_speeds && !m->agreed) {
        /* The agreement waits for every rank. A non-blocking start must not: a correct program
         * may start one and then block on a message that another rank sends before its own
         * start (tests/mpi/test_nb_start.c hung here). Such a call is handed on until a
         * blocking call has agreed: MPI_Barrier, and since this call, any other. */
        if (zip_coll_op_blocking(op) != op) {
            m->agreement_wanted = true;
            return &unknown;
        }
        mca_coll_zip_policy_agree_now(m, comm);
        if (!m->agreed) {
            return &unknown;
        }
    }
    mca_coll_zip_route_t *r = &m->routes[op];
    r->verdict = zip_algo_route(mode, flow, ompi_comm_size(comm), needs_speeds ? &m->speeds : NULL,
                                NULL == m->peer_on_node, &r->policy);
    r->mode = (int)mode;
    opal_output_verbose(10, mca_coll_zip_component.output, "coll:zip: %s on %s under policy %s: %s",
                        zip_coll_op_calls[op], mca_coll_zip_comm_name(comm),
                        zip_policy_mode_name(mode), zip_verdict_name(r->verdict));
    return r;
}

/* The route of a call of `op`: m->routes' for the communicator's mode, found at the first call
 * under that mode. */
static inline const mca_coll_zip_route_t *route(mca_coll_zip_module_t *m,
                                                struct ompi_communicator_t *comm, int op)
{
    const zip_policy_mode_t mode = mca_coll_zip_policy_mode(comm);
    const mca_coll_zip_route_t *r = &m->routes[op];
    return OPAL_LIKELY(r->mode == (int)mode) ? r : find_route(m, comm, op, mode);
}

/* Whether the route r takes the call into zip's path. Otherwise it may still be observed: auto
 * would have compressed it (the caller then judges a sample). */
static inline bool route_takes(const mca_coll_zip_route_t *r)
{
    return ZIP_VERDICT_COMPRESS == r->verdict && ZIP_POLICY_OBSERVE != r->policy.mode;
}
static inline bool route_observes(const mca_coll_zip_route_t *r)
{
    return ZIP_VERDICT_COMPRESS == r->verdict && ZIP_POLICY_OBSERVE == r->policy.mode;
}

/* Whether a call route r hands on samples its data for the meter: of those handed on because
 * the link looked faster than the codec, the ones zip_codec_meter_probe_at names, each or, where
 * this rank has no sample of its own there, the next that has one; so that a later agreement
 * may find otherwise on the data's own speed. */
static bool probe_due(mca_coll_zip_module_t *m, const mca_coll_zip_route_t *r)
{
    if (ZIP_VERDICT_LINK_FASTER != r->verdict) {
        return false;
    }
    if (zip_codec_meter_probe_at(++m->link_faster_calls)) {
        m->probe_pending = true;
    }
    return m->probe_pending;
}

/* Counts a call route r hands on; under observe with the saving compressing this rank's
 * my_bytes would have brought, judged on sample_count x dtype at sample, which the meter also
 * times where `probes`. */
static void hand_on(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                    const mca_coll_zip_route_t *r, bool probes, const void *sample,
                    int sample_count, struct ompi_datatype_t *dtype, size_t my_bytes)
{
    double saving = 0.0;
    size_t tsize = 0;
    const bool observes = route_observes(r);
    if ((observes || probes) && NULL != sample && sample_count > 0 && NULL != dtype &&
        OMPI_SUCCESS == ompi_datatype_type_size(dtype, &tsize) &&
        ompi_datatype_is_contiguous_memory_layout(dtype, sample_count) &&
        my_bytes >= mca_coll_zip_component.threshold) {
        zip_algo_codec_binding_t binding = {.codec = m->codec, .meter = &m->meter};
        zip_codec_ops_t codec;
        zip_algo_codec_bind(&codec, &binding);
        const char *at = (const char *)sample + dtype->super.true_lb;
        const int elem_type = mca_coll_zip_elem_type(dtype);
        if (observes) {
            saving = zip_algo_observe_saving(&codec, &r->policy, elem_type, at,
                                             tsize * (size_t)sample_count, my_bytes);
            saving *= zip_algo_observe_share(zip_coll_op_flow(op), ompi_comm_size(comm));
        }
        if (probes) {
            zip_algo_codec_binding_t unmetered = {.codec = m->codec};
            zip_codec_ops_t plain;
            zip_algo_codec_bind(&plain, &unmetered);
            (void)zip_codec_meter_probe(&m->meter, &plain, elem_type, at,
                                        tsize * (size_t)sample_count, my_bytes);
            m->probe_pending = false;
        }
    }
    mca_coll_zip_stats_handed_on(op, r->verdict, saving, my_bytes);
}

bool mca_coll_zip_policy_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                               const void *sample, int sample_count, struct ompi_datatype_t *dtype,
                               size_t my_bytes)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (route_takes(r)) {
        m->call_policy = r->policy;
        return true;
    }
    hand_on(m, comm, op, r, probe_due(m, r), sample, sample_count, dtype, my_bytes);
    return false;
}

bool mca_coll_zip_policy_link_faster(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (ZIP_VERDICT_LINK_FASTER != r->verdict || ZIP_POLICY_AUTO != r->policy.mode) {
        return false;
    }
    m->call_policy = r->policy;
    return true;
}

bool mca_coll_zip_policy_route_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (route_takes(r)) {
        m->call_policy = r->policy;
        return true;
    }
    return false;
}

bool mca_coll_zip_policy_route_takes_counted(mca_coll_zip_module_t *m,
                                             struct ompi_communicator_t *comm, int op)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (route_takes(r)) {
        m->call_policy = r->policy;
        return true;
    }
    mca_coll_zip_stats_handed_on(op, r->verdict, 0.0, 0);
    return false;
}

bool mca_coll_zip_policy_takes_known(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op, size_t block, const void *sample, int sample_count,
                                     struct ompi_datatype_t *dtype, size_t my_bytes)
{
    if (0 == block || block < mca_coll_zip_component.threshold) {
        mca_coll_zip_stats_handed_on(op, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
        return false;
    }
    return mca_coll_zip_policy_takes(m, comm, op, sample, sample_count, dtype, my_bytes);
}

bool mca_coll_zip_policy_takes_blocks(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                      int op, const mca_coll_zip_layout_t *mine, int skip)
{
    const mca_coll_zip_route_t *r = route(m, comm, op);
    if (route_takes(r)) {
        m->call_policy = r->policy;
        return true;
    }
    const bool probes = probe_due(m, r);
    if (!route_observes(r) && !probes) {
        mca_coll_zip_stats_handed_on(op, r->verdict, 0.0, 0);
        return false;
    }
    /* Observed or sampled: this rank's blocks at or above the threshold (but block `skip`) are its
     * payload, the largest of them its sample. */
    const size_t threshold = mca_coll_zip_component.threshold;
    size_t total = 0, largest = 0;
    int sample = -1;
    for (int p = 0; p < ompi_comm_size(comm); ++p) {
        const size_t b = mca_coll_zip_layout_bytes(mine, p);
        if (p != skip && b >= threshold) {
            total += b;
            if (b > largest) {
                largest = b;
                sample = p;
            }
        }
    }
    int count = 0;
    const char *at = sample >= 0 ? mca_coll_zip_layout_block(mine, sample, &count) : NULL;
    hand_on(m, comm, op, r, probes, at, count,
            sample >= 0 ? mca_coll_zip_layout_type(mine, sample) : NULL, total);
    return false;
}
