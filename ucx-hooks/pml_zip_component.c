/*
 * pml/zip component: MCA parameters, and how it gets in front of the selected PML.
 *
 * Open MPI has no stacking of PMLs; an interposer gets in the way pml/monitoring does. Its init
 * returns a module with priority 0, so it never wins selection. The base then closes every
 * component that lost, us included: that close is our cue to save the winner's module and
 * component and put ours in their place. We keep ourselves loaded (a retained repository
 * reference), and our finalize puts the winner back before finalizing it.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/mca/base/mca_base_component_repository.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"

#include "ompi/constants.h"
#include "ompi/mca/pml/base/base.h"

#include "pml_zip.h"
#include "zip_ompi_mca.h"

const char *mca_pml_zip_component_version_string =
    "ompi-zip compressing point-to-point PML interposer version 1.0.0";

mca_pml_base_component_t mca_pml_zip_wrapped_component;
mca_pml_base_module_t mca_pml_zip_wrapped;

/* Storage of the pml_zip_codec variable. The MCA variable system owns it: when the base closes
 * us as a losing PML it deregisters our variables right after zip_close returns, which frees
 * the string and sets this pointer to NULL. zip_close therefore copies the spec into
 * mca_pml_zip_component.codec, which is ours, before that happens. */
static char *codec_param;

static int zip_register(void);
static int zip_open(void);
static int zip_close(void);
static mca_pml_base_module_t *zip_init(int *priority, bool progress_threads, bool mpi_threads);
static int zip_finalize(void);
static void zip_stats_report(void);

mca_pml_zip_component_t mca_pml_zip_component = {
    .super =
        {
            .pmlm_version =
                {
                    MCA_PML_BASE_VERSION_2_0_0,
                    .mca_component_name = "zip",
                    MCA_BASE_MAKE_VERSION(component, 1, 0, 0),
                    .mca_open_component = zip_open,
                    .mca_close_component = zip_close,
                    .mca_register_component_params = zip_register,
                },
            .pmlm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT},
            .pmlm_init = zip_init,
            .pmlm_finalize = zip_finalize,
        },
    .output = -1,
};

static const zip_ompi_param_t params[] = {
    {"enable", OPAL_INFO_LVL_2, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_INT(&mca_pml_zip_component.enable, 0),
     "1: compress application point-to-point MPI_FLOAT/MPI_DOUBLE payloads on every "
     "communicator; 0 (default): only on communicators whose MPI_Info has zip_p2p=true. "
     "Open MPI opens this component only if it is in the pml list: use e.g. "
     "--mca pml ucx,zip or --mca pml ob1,zip (the real PML first). Must be the same on every "
     "rank"},
    {"codec", OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&codec_param, "fast"),
     "Codec spec for payloads (fast, fpc, dfcm, xorlz, lz4, zstd, ...; a lossy stage as in "
     "\"trunc:20+fast\" changes results). Any rank decodes any codec. An invalid spec "
     "stops MPI_Init"},
    /* 16 KiB, as coll_zip_threshold: the cost model decides above it (a fast link costs a
     * test); below it latency dominates and a message is too small for a sample (a quarter of
     * it, at least 4 KiB). 2 ranks over 1 Gbit/s, smooth doubles: compressed ping-pongs of
     * 16 KiB 1.4x faster than raw, of 4-8 KiB 0.8x (docs/performance.md). */
    {"threshold", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_pml_zip_component.threshold, 16384),
     "Smallest payload in bytes that is compressed; smaller float/double messages are sent "
     "raw (bare, see bare_max)"},
    /* As envelope + payload, streams of raw 4-64 KiB messages on shared memory ran at
     * 0.79-0.95x stock's rate (the payload waits as an unexpected message; docs/performance.md,
     * "The framing's cost on a fast link"), and small ones behind a 16-byte prefix at
     * 0.45-0.85x. Bare, they are stock's messages. Above 64 KiB the envelope costs a few
     * percent, and its payloads are what the link rate is timed on (from 128 KiB): a process
     * whose large messages all went bare would never learn its link, so they keep envelopes
     * until it has a rate, then about one in 16 does (pml_zip_wire.c). */
    {"bare_max", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_pml_zip_component.bare_max, 65536),
     "Largest raw payload in bytes sent bare: as the application's data alone, one message, "
     "as without zip. Larger raw ones to node mates go bare too; to other nodes (all peers "
     "under force_local), once this process knows its rate to them, all but about one in 16 "
     "(timed by receivers). Synchronous sends, compressed ones, 14-byte ones and those "
     "that carry this process's link rate to a peer go as an envelope followed by the "
     "payload. 0: envelopes for all. Receivers take either shape whatever their own value"},
    {"codec_threads", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_INT(&mca_pml_zip_component.codec_threads, 1),
     "Threads that compress and decompress the blocks of one message of 128 KiB or more "
     "(1..64; each pooled codec context keeps codec_threads - 1 threads; below 2 MiB they "
     "help only with calls that follow each other within 50 us). For ranks with idle cores"},
    {"verbose", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_LOCAL,
     ZIP_OMPI_PARAM_INT(&mca_pml_zip_component.verbose, 0),
     "Verbosity: 1 reports installation and decode failures"},
    {"gpu_guard", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_BOOL(&mca_pml_zip_component.gpu_guard, true),
     "On a communicator with a process that has a GPU driver runtime loaded by MPI_Init "
     "(libcuda, ROCm's HSA runtime, Level Zero: a CUDA-, ROCm- or Level Zero-aware MPI, which "
     "accepts device pointers), pass every message to the wrapped PML untouched: zip reads "
     "message data with the CPU, which would fault on device memory. 0: zip treats such "
     "communicators as any other (only for jobs that never hand MPI device memory). *Same on "
     "all ranks*"},
    {"force_local", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_BOOL(&mca_pml_zip_component.force_local, false),
     "Compress messages to peers on the same node too (shared memory is faster than any "
     "codec there; meant for testing on one machine). Off: such messages go raw behind the "
     "zip header"},
    /* A zip request around every small receive more than doubled its cost on shared memory
     * (docs/performance.md, "Direct receives"). */
    {"direct_recv", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_BOOL(&mca_pml_zip_component.direct_recv, true),
     "MPI_Irecv into a contiguous buffer returns the wrapped PML's own request, zip taking "
     "over only if an envelope arrives (not under MPI_THREAD_MULTIPLE). "
     "0: every such receive is a zip request"},
    {"policy", OPAL_INFO_LVL_2, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_pml_zip_component.policy_name, "auto"),
     "auto (default): compress a message only when the cost model predicts it arrives sooner "
     "(codec speed, measured link rate, sample ratio); always: whenever it shrinks; never; "
     "observe: decide as auto but send raw, and report at MPI_Finalize (pml_zip_stats) what "
     "compression would have saved. The MPI_Info key zip_policy overrides it per communicator"},
    {"link_gbps_remote", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_DOUBLE(&mca_pml_zip_component.link_gbps_remote, 0.0),
     "Rate in Gbit/s of one NIC to peers on other nodes, for the policy; 0 (default): "
     "measured from zip's own transfers"},
    {"temporal", OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_pml_zip_component.temporal_name, "off"),
     "off (default); auto: a compressed float/double/integer message may be coded as its "
     "difference (XOR) from the previous message of its stream (communicator, peer, tag, size) "
     "where a 16 KiB sample shows that pays; both ends keep the previous message of each stream "
     "(pml_zip_temporal_memory). Exact; needs a lossless codec; off under MPI_THREAD_MULTIPLE; "
     "synchronous sends are never coded so. The MPI_Info key zip_p2p_temporal overrides it per "
     "communicator. Only the sender's setting matters"},
    {"temporal_memory", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_pml_zip_component.temporal_memory, 64 * 1024 * 1024),
     "Bytes of previous messages pml_zip_temporal keeps per process, sent and received "
     "together: a process keeps for each peer at most this over 2 (processes - 1) of the "
     "messages it sent it, and as much of those it received from it. Same on all ranks"},
    {"stats", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_LOCAL,
     ZIP_OMPI_PARAM_INT(&mca_pml_zip_component.stats, 0),
     "1: every rank prints its point-to-point compression counters at MPI_Finalize"},
    {"version_check", OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_BOOL(&mca_pml_zip_component.version_check, true),
     "1 (default): pml/zip stays out of a run under an Open MPI release (major.minor.release) "
     "other than the one it was built against, after saying so, since it reads Open MPI's "
     "internal structures; 0: load it anyway, at your own risk"},
};

static int zip_register(void)
{
    zip_ompi_params_register(&mca_pml_zip_component.super.pmlm_version, params,
                             sizeof(params) / sizeof(params[0]));
    /* Before anything reads Open MPI's structures. Declining here would make MPI_Init fail
     * under "--mca pml X,zip" (a PML named but not found); instead pml/zip opens without
     * joining the selection, and X runs alone. */
    mca_pml_zip_component.release_ok =
        zip_ompi_release_ok("pml/zip", "pml_zip_version_check", mca_pml_zip_component.version_check,
                            0 != mca_pml_zip_component.enable);
    return OMPI_SUCCESS;
}

static int zip_open(void)
{
    if (!mca_pml_zip_component.release_ok)
        return OMPI_SUCCESS;
    mca_pml_zip_component.output = opal_output_open(NULL);
    opal_output_set_verbosity(mca_pml_zip_component.output, mca_pml_zip_component.verbose);
    /* The base only initializes the PMLs named in its include list. Add ourselves, as
     * pml/monitoring does; the winner must still be first in "--mca pml X,zip". */
    opal_pointer_array_add(&mca_pml_base_pml, strdup("zip"));
    return OMPI_SUCCESS;
}

static mca_pml_base_module_t *zip_init(int *priority, bool progress_threads, bool mpi_threads)
{
    (void)progress_threads;
    (void)mpi_threads;
    if (!mca_pml_zip_component.release_ok)
        return NULL;
    /* The base matches a PML against each list entry by prefix, so the real PML must lead
     * the list ("ob1,zip"); with "zip" or "zip,ob1" nothing but us could be selected. */
    bool real_pml = false;
    for (int i = 0; i < opal_pointer_array_get_size(&mca_pml_base_pml); ++i) {
        const char *name = opal_pointer_array_get_item(&mca_pml_base_pml, i);
        if (NULL != name && 0 != strncmp(name, "zip", 3)) {
            real_pml = true;
        }
    }
    if (!real_pml) {
        opal_output(0, "pml:zip is an interposer and needs a real PML named first, e.g. "
                       "--mca pml ob1,zip or --mca pml ucx,zip");
        return NULL;
    }
    *priority = 0; /* present, but never the winner */
    return &mca_pml_zip_module;
}

/* The codec spec in effect (zip_ompi_codec_resolve: pml_zip_codec, empty meaning the default,
 * checked by the engine), or NULL, after a message naming the value and the valid ones, if the
 * engine cannot make a context of it. A spec naming the temporal codec gives the default, with a
 * warning. The context of the check joins the pool. */
static char *zip_codec_resolve(void)
{
    zip_ompi_codec_t c;
    zip_ctx_t *ctx = NULL;
    const zip_ompi_codec_status_t st = zip_ompi_codec_resolve(codec_param, NULL, &c, &ctx);
    if (ZIP_OMPI_CODEC_REFUSED == st) {
        opal_output(0,
                    "pml:zip: pml_zip_codec \"%s\" cannot be used for point-to-point messages: "
                    "%s; using \"%s\"",
                    c.asked, c.reason, c.spec);
    } else if (ZIP_OMPI_CODEC_OK != st) {
        opal_output(0,
                    "pml:zip: pml_zip_codec \"%s\" cannot be used: %s. Valid codecs: %s; a lossy "
                    "stage goes first, as in \"trunc:20+fast\". MPI_Init fails",
                    NULL != c.asked ? c.asked : "", c.reason, zip_codec_list());
    }
    mca_pml_zip_ctx_put(ctx);
    char *spec = c.spec;
    c.spec = NULL;
    zip_ompi_codec_release(&c);
    return spec;
}

/* Stands in for the winner's add_procs when the parameters are wrong: MPI_Init fails there. */
static int zip_refuse_add_procs(struct ompi_proc_t **procs, size_t nprocs)
{
    (void)procs;
    (void)nprocs;
    return OMPI_ERR_BAD_PARAM;
}

/* Called twice: by the selection when we lose (install), and by MPI_Finalize (no-op). */
static int zip_close(void)
{
    mca_pml_zip_component_t *z = &mca_pml_zip_component;

    if (!z->release_ok || z->active || NULL == mca_pml.pml_send ||
        mca_pml.pml_send == mca_pml_zip_module.pml_send) {
        return OMPI_SUCCESS;
    }
    /* Stay loaded after the base unloads the losers. */
    if (OPAL_SUCCESS != mca_base_component_repository_retain_component("pml", "zip")) {
        return OMPI_ERROR;
    }
    /* Now: our variables are deregistered when we return. A user who named a codec expects
     * it, so a spec the engine rejects is not replaced: we do not interpose, and MPI_Init
     * fails. The selection ignores what close returns, but MPI_Init checks what the PML's
     * add_procs returns a little later: that is where it fails. */
    free(z->codec);
    z->codec = zip_codec_resolve();
    if (NULL == z->codec) {
        mca_pml.pml_add_procs = zip_refuse_add_procs;
        return OMPI_ERR_BAD_PARAM;
    }
    mca_pml_zip_wrapped_component = mca_pml_base_selected_component;
    mca_pml_zip_wrapped = mca_pml;

    mca_pml_base_selected_component = mca_pml_zip_component.super;
    mca_pml = mca_pml_zip_module;
    /* The wrapped PML's progress, limits and flags stay in force. Progress itself is
     * registered by the base from mca_pml.pml_progress after we return. */
    mca_pml.pml_progress = mca_pml_zip_wrapped.pml_progress;
    mca_pml.pml_max_contextid = mca_pml_zip_wrapped.pml_max_contextid;
    mca_pml.pml_max_tag = mca_pml_zip_wrapped.pml_max_tag;
    mca_pml.pml_flags = mca_pml_zip_wrapped.pml_flags;
    /* Ours completes zip requests whose wrapped request has completed. */
    opal_progress_register(mca_pml_zip_progress);
    /* Read the policy now: string parameters of a component the base closed as a loser do
     * not stay readable. */
    const int mode = zip_policy_mode_parse(z->policy_name);
    if (mode < 0) {
        opal_output(0,
                    "pml:zip: unknown pml_zip_policy \"%s\" (auto, always, never, observe): "
                    "using auto",
                    NULL != z->policy_name ? z->policy_name : "");
    }
    z->policy = mode < 0 ? ZIP_POLICY_AUTO : mode;
    const int temporal = mca_pml_zip_temporal_mode_parse(z->temporal_name);
    if (temporal < 0) {
        opal_output(0, "pml:zip: unknown pml_zip_temporal \"%s\" (off, auto): using off",
                    NULL != z->temporal_name ? z->temporal_name : "");
    }
    z->temporal = temporal < 0 ? 0 : temporal;
    mca_pml_zip_policy_init();
    mca_pml_zip_temporal_init();
    mca_pml_zip_landing_init();
    mca_pml_zip_direct_init();
    mca_pml_zip_gpu_publish();
    z->active = true;
    memset(&z->counters, 0, sizeof(z->counters));
    opal_output_verbose(
        1, z->output, "pml:zip: interposed in front of pml/%s (enable=%d, codec=%s)",
        mca_pml_zip_wrapped_component.pmlm_version.mca_component_name, z->enable, z->codec);
    return OMPI_SUCCESS;
}

static int zip_finalize(void)
{
    mca_pml_zip_component_t *z = &mca_pml_zip_component;

    if (!z->active) {
        return OMPI_SUCCESS; /* finalized as a loser before installation */
    }
    zip_stats_report();
    opal_progress_unregister(mca_pml_zip_progress);
    mca_pml_zip_stash_fini();
    mca_pml_zip_temporal_fini();
    mca_pml_zip_landing_fini();
    mca_pml_zip_direct_fini();
    mca_pml_zip_persistent_fini();
    mca_pml_zip_buffers_fini();
    mca_pml_zip_request_cache_fini();
    mca_pml_zip_policy_fini(); /* after the report: it prints the estimates */
    mca_pml_zip_gpu_fini();
    free(z->codec);
    z->codec = NULL;
    /* Put the original table back, then let the original PML finalize itself. */
    mca_pml_base_selected_component = mca_pml_zip_wrapped_component;
    mca_pml = mca_pml_zip_wrapped;
    z->active = false;
    if (z->output >= 0) {
        opal_output_close(z->output);
        z->output = -1;
    }
    if (NULL != mca_pml_zip_wrapped_component.pmlm_finalize) {
        return mca_pml_zip_wrapped_component.pmlm_finalize();
    }
    return OMPI_SUCCESS;
}

static void zip_stats_report(void)
{
    const mca_pml_zip_stats_t *s = &mca_pml_zip_component.counters;

    if (!mca_pml_zip_component.stats) {
        return;
    }
    double ratio = s->bytes_wire ? (double)s->bytes_raw / (double)s->bytes_wire : 0.0;
    opal_output(0,
                "pml:zip stats (rank %d): sent %" PRIu64 " zip messages (%" PRIu64
                " compressed), %" PRIu64 " raw bytes -> %" PRIu64 " wire bytes (ratio %.2f); "
                "received %" PRIu64 "; probes peeked %" PRIu64,
                ompi_comm_rank(&ompi_mpi_comm_world.comm), s->msgs_sent, s->msgs_compressed,
                s->bytes_raw, s->bytes_wire, ratio, s->msgs_received, s->probes_peeked);
    mca_pml_zip_temporal_report(ompi_comm_rank(&ompi_mpi_comm_world.comm));
    zip_estimator_t *e = mca_pml_zip_estimator();
    const zip_speeds_t local = zip_estimator_speeds(e, ZIP_PEER_LOCAL, 1);
    const zip_speeds_t remote = zip_estimator_speeds(e, ZIP_PEER_REMOTE, 1);
    opal_output(
        0,
        "pml:zip policy (rank %d): %s; decisions: compressed %" PRIu64 ", too_small %" PRIu64
        ", incompressible %" PRIu64 ", link_faster %" PRIu64 ", link_unknown %" PRIu64
        ", never %" PRIu64
        "; link MB/s local %.0f (%s) remote %.0f (%s); codec MB/s compress %.0f decompress %.0f; "
        "observe: %" PRIu64 " would compress, predicted saving %.3f ms",
        ompi_comm_rank(&ompi_mpi_comm_world.comm),
        zip_policy_mode_name((zip_policy_mode_t)mca_pml_zip_component.policy),
        s->verdicts[ZIP_VERDICT_COMPRESS], s->verdicts[ZIP_VERDICT_TOO_SMALL],
        s->verdicts[ZIP_VERDICT_INCOMPRESSIBLE], s->verdicts[ZIP_VERDICT_LINK_FASTER],
        s->link_unknown, s->verdicts[ZIP_VERDICT_NEVER], local.link_Bps / 1e6,
        mca_pml_zip_link_source(ZIP_PEER_LOCAL), remote.link_Bps / 1e6,
        mca_pml_zip_link_source(ZIP_PEER_REMOTE), remote.compress_Bps / 1e6,
        remote.decompress_Bps / 1e6, s->observed_compressible, (double)s->observed_saving_ns / 1e6);
    for (int c = 0; c < ZIP_OMPI_SIZE_CLASSES; ++c) {
        if (0 != s->observed_compressible_by_size[c]) {
            opal_output(
                0, "pml:zip observe (rank %d): %-10s %" PRIu64 " would compress, saving %.3f ms",
                ompi_comm_rank(&ompi_mpi_comm_world.comm), zip_ompi_size_class_name(c),
                s->observed_compressible_by_size[c],
                (double)s->observed_saving_ns_by_size[c] / 1e6);
        }
    }
}
