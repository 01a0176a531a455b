/*
 * What the sender needs to decide whether to compress: the communicator's settings (MCA
 * parameters, overridden per communicator by the Info keys zip_p2p and zip_policy) and the
 * class of the peer (same node or not); the type signature is zip_ompi_elem_type's (common/).
 * Only the sender asks: the receiver reads the decision from the envelope.
 */
#include "ompi_config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opal/mca/hwloc/hwloc-internal.h"
#include "opal/util/info_subscriber.h"
#include "opal/util/output.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"

#include "pml_zip.h"

mca_pml_zip_comm_setting_t *mca_pml_zip_comm_settings;
uint32_t mca_pml_zip_comm_settings_len;

static mca_pml_zip_comm_setting_t *setting_of(ompi_communicator_t *comm)
{
    if (NULL != mca_pml_zip_comm_settings && comm->c_contextid < mca_pml_zip_comm_settings_len) {
        return &mca_pml_zip_comm_settings[comm->c_contextid];
    }
    return NULL;
}

int mca_pml_zip_peer_class(ompi_communicator_t *comm, int dst)
{
    /* force_local: a peer on this node is judged like a remote one, on the rate zip measures
     * to it (a stand-in for a fast network when testing on one machine); without it such a
     * peer never gets a frame (pml_zip_wire.c). */
    if (mca_pml_zip_component.force_local) {
        return ZIP_PEER_REMOTE;
    }
    ompi_proc_t *proc = ompi_comm_peer_lookup(comm, dst);
    return (NULL != proc && OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags)) ? ZIP_PEER_LOCAL
                                                                             : ZIP_PEER_REMOTE;
}

zip_policy_mode_t mca_pml_zip_comm_policy(ompi_communicator_t *comm)
{
    const mca_pml_zip_comm_setting_t *c = setting_of(comm);
    if (NULL != c && c->policy >= 0) {
        return (zip_policy_mode_t)c->policy;
    }
    return (zip_policy_mode_t)mca_pml_zip_component.policy;
}

bool mca_pml_zip_comm_temporal(ompi_communicator_t *comm)
{
    const mca_pml_zip_comm_setting_t *c = setting_of(comm);
    if (NULL != c && c->temporal >= 0) {
        return 1 == c->temporal;
    }
    return 1 == mca_pml_zip_component.temporal;
}

bool mca_pml_zip_comm_enabled(ompi_communicator_t *comm)
{
    const mca_pml_zip_comm_setting_t *c = setting_of(comm);
    if (NULL != c && c->enable >= 0) {
        return 1 == c->enable;
    }
    return 0 != mca_pml_zip_component.enable;
}

/* Called when the key is set (MPI_Comm_set_info, MPI_Comm_dup_with_info, and at subscription
 * with what the communicator already holds). MPI_Comm_set_info keeps only keys somebody
 * subscribed to; we keep ours as given. */
static char *zip_info_changed(opal_infosubscriber_t *obj, char *key, char *value)
{
    (void)key;
    /* The subscriber object is the communicator's first member. */
    mca_pml_zip_comm_setting_t *c = setting_of((ompi_communicator_t *)obj);
    if (NULL != c) {
        /* "default" (our subscription's placeholder) or anything unknown: -1, unset. */
        c->enable = (int8_t)zip_ompi_info_switch(value);
    }
    return value;
}

/* zip_policy: auto, always, never, observe; anything else defers to pml_zip_policy. */
static char *zip_policy_changed(opal_infosubscriber_t *obj, char *key, char *value)
{
    (void)key;
    mca_pml_zip_comm_setting_t *c = setting_of((ompi_communicator_t *)obj);
    if (NULL != c) {
        c->policy = (int8_t)zip_policy_mode_parse(value);
    }
    return value;
}

/* zip_p2p_temporal: off, auto; anything else defers to pml_zip_temporal. Only the sender's
 * setting matters: the receiver follows the envelope. */
static char *zip_temporal_changed(opal_infosubscriber_t *obj, char *key, char *value)
{
    (void)key;
    mca_pml_zip_comm_setting_t *c = setting_of((ompi_communicator_t *)obj);
    if (NULL != c) {
        c->temporal = (int8_t)mca_pml_zip_temporal_mode_parse(value);
    }
    return value;
}

int mca_pml_zip_add_comm(ompi_communicator_t *comm)
{
    if (NULL == mca_pml_zip_comm_settings) {
        /* Context ids are below the wrapped PML's limit; 16 Mi entries at most. */
        uint64_t n = (uint64_t)mca_pml_zip_wrapped.pml_max_contextid + 1;
        mca_pml_zip_comm_settings_len = (uint32_t)(n < (1u << 24) ? n : (1u << 24));
        /* 192 KiB over ob1: its own pages (zip_mem_alloc), not the application's heap. */
        mca_pml_zip_comm_settings =
            zip_mem_alloc(mca_pml_zip_comm_settings_len * sizeof(*mca_pml_zip_comm_settings));
        if (NULL != mca_pml_zip_comm_settings) {
            memset(mca_pml_zip_comm_settings, -1,
                   mca_pml_zip_comm_settings_len * sizeof(*mca_pml_zip_comm_settings));
        }
    }
    int rc = mca_pml_zip_wrapped.pml_add_comm(comm);
    if (OMPI_SUCCESS == rc) {
        mca_pml_zip_comm_setting_t *c = setting_of(comm); /* a reused context id starts unset */
        const bool gpu = mca_pml_zip_gpu_in_comm(comm);
        if (NULL != c) {
            c->enable = -1;
            c->policy = -1;
            c->temporal = -1;
            c->untouched = gpu;
        } else if (gpu) {
            /* No table: nothing keeps this communicator's messages from the CPU's reads. */
            opal_output(0,
                        "pml:zip: %s has a process with a GPU runtime, and no memory is left "
                        "to note it: its messages may be read by the CPU",
                        comm->c_name);
        }
        /* The defaults must be strings (the subscriber saves a copy of them). */
        (void)opal_infosubscribe_subscribe(&comm->super, MCA_PML_ZIP_INFO_KEY, "default",
                                           zip_info_changed);
        (void)opal_infosubscribe_subscribe(&comm->super, MCA_PML_ZIP_POLICY_KEY, "default",
                                           zip_policy_changed);
        (void)opal_infosubscribe_subscribe(&comm->super, MCA_PML_ZIP_TEMPORAL_KEY, "default",
                                           zip_temporal_changed);
    }
    return rc;
}

int mca_pml_zip_del_comm(ompi_communicator_t *comm)
{
    mca_pml_zip_comm_setting_t *c = setting_of(comm);
    if (NULL != c) {
        c->enable = -1;
        c->policy = -1;
        c->temporal = -1;
        c->untouched = 0;
    }
    /* Messages pulled out for this communicator can no longer be received. */
    mca_pml_zip_stash_drop_comm(comm);
    /* Nor can its streams go on; a communicator that reuses the context id starts afresh at
     * both ends (a context id is reused only once every member has released it). */
    mca_pml_zip_temporal_drop_comm(comm);
    return mca_pml_zip_wrapped.pml_del_comm(comm);
}

double mca_pml_zip_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Below this the time from envelope to payload is mostly latency, not rate. */
#define ZIP_LINK_OBSERVE_MIN_BYTES (128 * 1024)

/* Per peer class: whether this process has timed a payload arriving (links are taken as
 * symmetric). Senders do not time their sends (mca_pml_zip_link_source); they hear their
 * receivers' times through the link hint. */
static volatile bool arrival_timed[2];
/* One arrival alone says little: a busy host (a sender descheduled between envelope and
 * payload) makes it far too slow, and a slow estimate makes zip compress on a fast link. So
 * arrivals count from the fastest of the first ZIP_LINK_WARMUP on; until then the link stays
 * unknown (raw). */
#define ZIP_LINK_WARMUP 4
typedef struct {
    int seen;
    double best;
} link_warmup_t;
static link_warmup_t arrival_warmup[2];
/* Arrival times against size (zip.h): a transport that moves part of a payload before zip
 * starts the clock makes each arrival's own rate too fast. Once arrivals of sizes twofold apart
 * were timed, that fixed part is taken out of every arrival's time (pending_refit: the estimate
 * of the uncorrected rates is reset when the corrected ones' warm-up ends). Under warmup_lock. */
static zip_link_fit_t arrival_fit[2];
static bool arrival_fitted[2];
static bool pending_refit[2];
static opal_mutex_t warmup_lock = OPAL_MUTEX_STATIC_INIT;

/* Whether an observation of *Bps may be used; the one that ends the warm-up becomes the
 * fastest seen. Under warmup_lock. */
static bool warmed_up(link_warmup_t *w, double *Bps)
{
    if (w->seen < ZIP_LINK_WARMUP) {
        if (*Bps > w->best) {
            w->best = *Bps;
        }
        *Bps = w->best;
        return ++w->seen == ZIP_LINK_WARMUP;
    }
    return true;
}

/* Feeds a rate to the estimator as a millisecond's worth of bytes at that rate. */
static void observe_rate(zip_estimator_t *e, int peer_class, double Bps)
{
    zip_estimator_observe_link(e, peer_class, (size_t)(Bps * 1e-3) + 1, 1e-3, 1);
}
/* Whether the rate to other nodes came from peers' link hints (ranked between the two: a
 * peer's arrival times are right for the peer's link, ours are right for ours). */
static volatile bool remote_hinted;
/* This process's own rate to other nodes as a link hint (timed or given), 0: none yet; and the
 * last hint adopted from a peer. */
static volatile uint16_t own_hint;
static volatile uint16_t adopted_hint;

static uint16_t hint_of_rate(double Bps)
{
    if (!(Bps >= 1.0)) {
        return 0;
    }
    const double h = nearbyint(256.0 * log2(Bps));
    return (uint16_t)(h < 1.0 ? 1.0 : (h > 65535.0 ? 65535.0 : h));
}

static double rate_of_hint(uint16_t hint)
{
    return exp2((double)hint / 256.0);
}

uint16_t mca_pml_zip_link_hint(void)
{
    return own_hint;
}

/* The hint each peer was last told, in a direct-mapped table by process: a collision or a
 * peer not seen yet only costs one more envelope. */
#define ZIP_TOLD_SLOTS 1024
/* Re-tell a peer once this process's rate moved by more than about 20 % (hint units are
 * 1/256 of a doubling). */
#define ZIP_HINT_RETELL 64
/* A slot holds (proc >> 4) << 16 | hint in one word, read and written whole, so that threads
 * sending at once take no lock: two that both find a peer due both tell it (one envelope
 * more). proc >> 4 tells processes apart (their structures are larger than 16 bytes) and keeps
 * its 48 bits up to 52-bit addresses. */
static volatile uint64_t told[ZIP_TOLD_SLOTS];

bool mca_pml_zip_hint_due(ompi_communicator_t *comm, int dst, bool tell)
{
    const uint16_t hint = own_hint;
    if (0 == hint) {
        return false;
    }
    const ompi_proc_t *proc = ompi_comm_peer_lookup(comm, dst);
    if (NULL == proc || ZIP_PEER_REMOTE != mca_pml_zip_peer_class(comm, dst)) {
        return false; /* a peer on this node does not take a hint (mca_pml_zip_observe_hint) */
    }
    const uint64_t key = (uint64_t)((uintptr_t)proc >> 4) << 16;
    const size_t slot =
        (((uintptr_t)proc >> 4) * UINT64_C(0x9e3779b97f4a7c15) >> 32) % ZIP_TOLD_SLOTS;
    const uint64_t seen = told[slot];
    const bool due = (seen & ~UINT64_C(0xffff)) != key ||
                     abs((int)(seen & 0xffff) - (int)hint) > ZIP_HINT_RETELL;
    if (due && tell) {
        told[slot] = key | hint;
    }
    return due;
}

void mca_pml_zip_observe_arrival(int peer_class, size_t bytes, double seconds)
{
    if (peer_class < 0 || peer_class > 1 || bytes < ZIP_LINK_OBSERVE_MIN_BYTES) {
        return;
    }
    if (!(seconds > 0.0)) {
        return;
    }
    int fitted;
    OPAL_THREAD_LOCK(&warmup_lock);
    double Bps = zip_link_fit_observe(&arrival_fit[peer_class], bytes, seconds, &fitted);
    if (fitted && !arrival_fitted[peer_class]) {
        /* The rates before were uncorrected, too fast by any early part: the corrected ones
         * start afresh, through a warm-up of their own. */
        arrival_fitted[peer_class] = true;
        arrival_warmup[peer_class] = (link_warmup_t){0};
        pending_refit[peer_class] = true;
    }
    opal_output_verbose(20, mca_pml_zip_component.output,
                        "pml:zip: %zu bytes from class %d timed in %.1f us: %.1f MB/s, %.1f MB/s "
                        "%s",
                        bytes, peer_class, 1e6 * seconds, 1e-6 * (double)bytes / seconds,
                        1e-6 * Bps,
                        fitted ? "less the fixed part fitted over sizes" : "(no fixed part yet)");
    const bool ready = warmed_up(&arrival_warmup[peer_class], &Bps);
    /* The first rate, or the first corrected one: the estimate starts from it. */
    const bool reset = ready && (!arrival_timed[peer_class] || pending_refit[peer_class]);
    if (reset) {
        pending_refit[peer_class] = false;
    }
    OPAL_THREAD_UNLOCK(&warmup_lock);
    if (!ready) {
        return;
    }
    zip_estimator_t *e = mca_pml_zip_estimator();
    if (reset) {
        arrival_timed[peer_class] = true;
        zip_estimator_reset_link(e, peer_class);
    }
    observe_rate(e, peer_class, Bps);
    if (ZIP_PEER_REMOTE == peer_class && mca_pml_zip_component.link_gbps_remote <= 0.0) {
        own_hint = hint_of_rate(zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1).link_Bps);
    }
}

void mca_pml_zip_observe_hint(ompi_communicator_t *comm, int src, uint16_t link_hint)
{
    /* Cheap tests first: this runs for every message received on an enabled communicator. */
    if (0 == link_hint || link_hint == adopted_hint || 0 != own_hint ||
        ZIP_PEER_REMOTE != mca_pml_zip_peer_class(comm, src)) {
        return;
    }
    zip_estimator_t *e = mca_pml_zip_estimator();
    if (!remote_hinted) {
        remote_hinted = true;
        zip_estimator_reset_link(e, ZIP_PEER_REMOTE);
    }
    observe_rate(e, ZIP_PEER_REMOTE, rate_of_hint(link_hint));
    adopted_hint = link_hint;
}

/* Whether the rate to other nodes came from coll/zip's agreement (the least direct source:
 * taken only while zip has no rate of its own, from arrivals or peers). */
static volatile bool remote_from_coll;
/* coll/zip's read-only variable coll_zip_agreed_link_remote_mbps, once found; and whether it
 * is known to be absent (looked for after MPI_Init, which opens the coll components), so that
 * a job without coll/zip does not search the variables at every large send. */
static const double *coll_agreed_mbps;
static volatile bool coll_var_absent;

bool mca_pml_zip_adopt_coll_link(void)
{
    if (remote_from_coll || arrival_timed[ZIP_PEER_REMOTE] || remote_hinted ||
        mca_pml_zip_component.link_gbps_remote > 0.0) {
        return false;
    }
    if (NULL == coll_agreed_mbps) {
        if (coll_var_absent) {
            return false;
        }
        /* Absent while coll/zip is not loaded; opened after this PML, during MPI_Init. */
        const int index = mca_base_var_find("ompi", "coll", "zip", "agreed_link_remote_mbps");
        const double *value = NULL;
        if (index < 0 || OPAL_SUCCESS != mca_base_var_get_value(index, &value, NULL, NULL) ||
            NULL == value) {
            coll_var_absent = ompi_mpi_state >= OMPI_MPI_STATE_INIT_COMPLETED;
            return false;
        }
        coll_agreed_mbps = value;
    }
    const double mbps = *coll_agreed_mbps;
    if (!(mbps > 0.0)) {
        return false;
    }
    remote_from_coll = true;
    observe_rate(mca_pml_zip_estimator(), ZIP_PEER_REMOTE, mbps * 1e6);
    return true;
}

static zip_estimator_t *volatile estimator;
static opal_mutex_t estimator_lock = OPAL_MUTEX_STATIC_INIT;

zip_estimator_t *mca_pml_zip_estimator(void)
{
    zip_estimator_t *e = estimator;
    if (NULL != e) {
        return e;
    }
    OPAL_THREAD_LOCK(&estimator_lock);
    if (NULL == estimator) {
        e = zip_estimator_create();
        const mca_pml_zip_component_t *z = &mca_pml_zip_component;
        /* Gbit/s to bytes per second; 0 leaves the class to be measured. */
        zip_estimator_fix_link(e, ZIP_PEER_REMOTE, z->link_gbps_remote * 1e9 / 8.0);
        /* Seed the codec speeds with a millisecond of this process's codec on a smooth field;
         * every message the codec handles afterwards refines them. */
        zip_ctx_t *ctx = mca_pml_zip_ctx_get();
        double c = 0.0, d = 0.0;
        if (NULL != ctx && ZIP_OK == zip_calibrate(ctx, &c, &d) && c > 0.0 && d > 0.0) {
            const size_t probe = 1u << 20;
            zip_estimator_observe_codec(e, 0, probe, (double)probe / c);
            zip_estimator_observe_codec(e, 1, probe, (double)probe / d);
        }
        mca_pml_zip_ctx_put(ctx);
        opal_atomic_wmb();
        estimator = e;
    }
    OPAL_THREAD_UNLOCK(&estimator_lock);
    return estimator;
}

bool mca_pml_zip_link_known(int peer_class)
{
    const zip_estimator_t *e = estimator;
    return NULL != e && zip_estimator_speeds(e, peer_class, 1).link_Bps > 0.0;
}

const char *mca_pml_zip_link_source(int peer_class)
{
    if (ZIP_PEER_REMOTE == peer_class && mca_pml_zip_component.link_gbps_remote > 0.0) {
        return "given";
    }
    if (arrival_timed[peer_class]) {
        return "arrivals";
    }
    if (ZIP_PEER_REMOTE == peer_class && remote_hinted) {
        return "peers";
    }
    if (ZIP_PEER_REMOTE == peer_class && remote_from_coll) {
        return "coll/zip";
    }
    return "none";
}

void mca_pml_zip_policy_init(void)
{
    own_hint = hint_of_rate(mca_pml_zip_component.link_gbps_remote * 1e9 / 8.0);
}

void mca_pml_zip_policy_fini(void)
{
    zip_estimator_destroy(estimator);
    estimator = NULL;
    arrival_timed[0] = arrival_timed[1] = false;
    remote_hinted = false;
    remote_from_coll = false;
    coll_agreed_mbps = NULL;
    coll_var_absent = false;
    memset(arrival_warmup, 0, sizeof(arrival_warmup));
    memset(arrival_fit, 0, sizeof(arrival_fit));
    arrival_fitted[0] = arrival_fitted[1] = false;
    pending_refit[0] = pending_refit[1] = false;
    own_hint = adopted_hint = 0;
    zip_mem_free(mca_pml_zip_comm_settings,
                 mca_pml_zip_comm_settings_len * sizeof(*mca_pml_zip_comm_settings));
    mca_pml_zip_comm_settings = NULL;
    mca_pml_zip_comm_settings_len = 0;
}
