/*
 * coll/zip component: identity, MCA parameters, open and close.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"

#include "mpi.h"
#include "ompi/constants.h"
#include "coll_zip.h"
#include "coll_zip_nb.h"
#include "zip_ompi_mca.h"

const char *mca_coll_zip_component_version_string =
    "ompi-zip compressing collective MCA component version 1.0.0";

static int zip_register(void);
static int zip_open(void);
static int zip_close(void);

mca_coll_zip_component_t mca_coll_zip_component = {
    .super =
        {
            .collm_version =
                {
                    MCA_COLL_BASE_VERSION_2_0_0,
                    .mca_component_name = "zip",
                    MCA_BASE_MAKE_VERSION(component, 1, 0, 0),
                    .mca_open_component = zip_open,
                    .mca_close_component = zip_close,
                    .mca_register_component_params = zip_register,
                },
            .collm_data = {MCA_BASE_METADATA_PARAM_CHECKPOINT},
            .collm_init_query = mca_coll_zip_init_query,
            .collm_comm_query = mca_coll_zip_comm_query,
        },
    .output = -1,
    .job_gpu = -1,
};

static const zip_ompi_param_t params[] = {
    {"priority", OPAL_INFO_LVL_2, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_INT(&mca_coll_zip_component.priority, 0),
     "Priority of the zip coll component. 0 (default) turns zip off; any value above the "
     "priority of coll/tuned (30), e.g. 40, turns it on: zip then compresses the payloads of "
     "MPI_Bcast, Alltoall(v), Gather(v), Scatter(v), Allgather(v), Allreduce, Reduce, "
     "Neighbor_alltoall(v), Neighbor_allgather and their non-blocking forms (not the "
     "neighbourhood ones) and passes "
     "everything else to tuned/basic. A communicator created with the "
     "MPI_Info key zip_coll=false gets no zip"},
    {"codec", OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_coll_zip_component.codec, "fast"),
     "Lossless codec spec used for payloads: fast (default), fpc, dfcm, xorlz, lz4, zstd, "
     "raw, with options as in \"zstd:level=3\". Must be the same on every rank"},
    {"lossy", OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_coll_zip_component.lossy, ""),
     "Lossy stage applied to MPI_DOUBLE/MPI_FLOAT payloads before the codec, e.g. "
     "\"trunc:20\" (drop 20 mantissa bits), \"f32\", \"abs:1e-6\", \"rel:1e-4\". Empty "
     "(default) keeps results bit-identical. Changes results: use only where the application "
     "tolerates it"},
    /* 16 KiB: below it a message is latency bound, and the codec's fixed cost (a few us)
     * would be a visible share of the transfer time; above it bandwidth dominates. */
    {"threshold", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_coll_zip_component.threshold, 16384),
     "Smallest payload in bytes worth compressing (per message for bcast, per block for the "
     "other collectives, per chunk for allreduce). Smaller bcasts, and calls whose blocks every "
     "rank knows to be smaller, go to the previous component unchanged. Must be the same on "
     "every rank"},
    {"block_size", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_coll_zip_component.block_size, 0),
     "Codec block size in bytes (0: codec default, 64 KiB)"},
    {"codec_threads", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_INT(&mca_coll_zip_component.codec_threads, 1),
     "Threads that compress and decompress the blocks of one frame of 128 KiB or more (1..64; "
     "each codec context, one per call in flight and up to 8 kept idle, keeps codec_threads - 1 "
     "threads; below 2 MiB they help only "
     "with calls that follow each other within 50 us). For ranks with idle cores"},
    /* 48 KiB: a raw segment and its frame header stay below the TCP BTL's 64 KiB eager limit
     * (a 64 KiB segment of incompressible data takes the rendezvous protocol: 8 ranks at
     * 1 Gbit/s, 4 MiB bcast, 83 ms instead of 40), and on 8 ranks of a 2-core host fewer
     * messages than with 32 KiB cost less CPU (smooth data, 4 MiB: 30 ms instead of 36). */
    {"segment_size", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_coll_zip_component.segment_size, 49152),
     "Bcast pipeline segment in bytes: each segment is compressed into its own frame and "
     "forwarded by interior ranks as soon as it arrives. Must be the same on every rank"},
    {"bcast_algorithm", OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_coll_zip_component.bcast_algorithm_name, "auto"),
     "MPI_Bcast topology: auto (default) picks the segmented pipeline or the compressed "
     "scatter-allgather from their predicted times (link rate, codec speeds, "
     "coll_zip_bcast_latency_us, ranks, size); chain forces the pipeline (a chain, or a "
     "binomial tree when there are fewer segments than ranks), scatter_allgather the other "
     "(its scatter from the root to each rank or down a binomial tree, as predicted faster), "
     "scatter_allgather_flat or scatter_allgather_tree that with the scatter forced (for tests "
     "and benchmarks). Must be the same on every rank"},
    /* 20 us: between InfiniBand's few us and TCP over Ethernet's 30-50; only where the two
     * topologies' predictions cross does it matter (docs/design.md). */
    {"bcast_latency_us", OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_DOUBLE(&mca_coll_zip_component.bcast_latency_us, 20.0),
     "One message's latency in microseconds between nodes, for the MPI_Bcast cost model "
     "(coll_zip_bcast_algorithm auto), for MPI_Allreduce's choice of schedule and for whether "
     "the ring of MPI_Allgather(v) pays too many latencies on many ranks. Must be the same on "
     "every rank"},
    {"allreduce_algorithm", OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_coll_zip_component.allreduce_algorithm_name, "auto"),
     "MPI_Allreduce and MPI_Iallreduce schedule: auto (default) picks the ring or recursive "
     "halving and doubling from their predicted times (link rate, "
     "coll_zip_bcast_latency_us, ranks, size); ring or halving forces one (for tests and "
     "benchmarks). Must be the same on every rank"},
    {"allgatherv_algorithm", OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_coll_zip_component.allgatherv_algorithm_name, "auto"),
     "MPI_Allgather(v) and MPI_Iallgather(v) schedule: auto (default) takes the ring where its "
     "p - 1 latencies (coll_zip_bcast_latency_us) cost at most 1/32 of its wire time; elsewhere, "
     "if every rank has a core of its own, the ring or Bruck's log2 p steps, whichever is "
     "predicted faster (block sizes, link rate, ranks per node, whether the TCP BTL serialises "
     "a pair's exchanges), else hands the call on; ring or bruck forces one (bruck: a message per "
     "step for blocks of at most 512 KiB, else per block; bruck_steps, bruck_blocks force either; "
     "for tests and "
     "benchmarks). Must be the same on every rank"},
    /* 0, auto: from the mean block and the link rate (alltoallv_auto_window, exchange.hpp). */
    {"alltoallv_window", OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_coll_zip_component.alltoallv_window, 0),
     "MPI_Alltoallv runs in pairwise steps (send to rank+k, receive from rank-k); this many "
     "steps are in flight at once. 0 (default): below 3 Gbit/s per rank (or unknown) a step "
     "per 32 KiB of the mean block, at most about 512 KiB in flight, 2 to 4; from 3 Gbit/s "
     "up to 16 steps and about 8 MiB in flight. 1 is strictly pairwise; larger values "
     "overlap more transfers but load every port with several peers"},
    {"alltoallv_temporal", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_coll_zip_component.alltoallv_temporal_name, "off"),
     "off (default) or auto: blocking MPI_Alltoallv and MPI_Alltoall may code each compressed "
     "block as its difference (XOR) from the previous block sent to the same peer on the "
     "communicator, where a sample shows that shrinks it more (data that change little "
     "between steps). Needs a lossless codec. The MPI_Info key zip_alltoallv_temporal, given "
     "when a communicator is created, overrides it for that communicator. Must be the same on "
     "every rank"},
    /* 64 MiB: the engine's own cap on temporal references (zip_ctx_set_memory_cap). */
    {"alltoallv_temporal_memory", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_coll_zip_component.alltoallv_temporal_memory, 64u << 20),
     "Bytes of previous blocks that coll_zip_alltoallv_temporal keeps per communicator, sent "
     "and received together: blocks longer than this over 2 (ranks - 1) are coded on their "
     "own. Must be the same on every rank"},
    /* 64 MiB: a scatter's root stages all its frames (7 MiB for 1 MiB per rank on 8 ranks),
     * and buffers mapped afresh on every call cost it up to 3x its time in page faults. */
    {"buffer_cache", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_SIZE(&mca_coll_zip_component.buffer_cache, 64u << 20),
     "Bytes of working memory (frames and staging, in buffers of 256 KiB or more) each "
     "process keeps between collective calls for the next one, until MPI_Finalize. 0 keeps "
     "none: every large call then allocates afresh. Lower it where many ranks share a node's "
     "memory"},
    {"policy", OPAL_INFO_LVL_2, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_STRING(&mca_coll_zip_component.policy_name, "auto"),
     "auto (default): a call takes zip's path only if, at the link rate and codec speed all "
     "ranks measured on the communicator, compressing can pay, and then each sender's "
     "sample decides; always: compress whatever shrinks by a tenth; never: hand every call "
     "to the previous component; observe: hand every call on, and count what auto would "
     "have compressed and the time it predicts it would have saved (coll_zip_stats, MPI_T). "
     "The MPI_Info key zip_policy overrides it per communicator. Must be the same on every "
     "rank"},
    {"link_gbps_local", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_DOUBLE(&mca_coll_zip_component.link_gbps_local, 0.0),
     "Rate in Gbit/s between ranks on one node, for the policy; 0 (default): "
     "measured at the first call on each communicator. Must be the same on every "
     "rank"},
    {"link_gbps_remote", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_DOUBLE(&mca_coll_zip_component.link_gbps_remote, 0.0),
     "Rate in Gbit/s of one node's NIC, for the policy; 0 (default): measured at "
     "the first call on each communicator. Must be the same on every rank"},
    {"codec_gbps_compress", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_DOUBLE(&mca_coll_zip_component.codec_gbps_compress, 0.0),
     "Compression speed in Gbit/s of raw data the policy starts from; 0 (default): measured "
     "on a synthetic field at the first call that needs it. Later agreements take the speed "
     "the communicator's own data coded at (coll_zip_codec_agree_period)"},
    {"codec_gbps_decompress", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_DOUBLE(&mca_coll_zip_component.codec_gbps_decompress, 0.0),
     "Decompression speed in Gbit/s of raw data the policy starts from; 0 (default): "
     "measured, as coll_zip_codec_gbps_compress"},
    {"agree_early", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_BOOL(&mca_coll_zip_component.agree_early, true),
     "Under policy auto and observe, MPI_COMM_WORLD's ranks agree on link and codec speeds "
     "inside MPI_Init (timing the links whose rate is not given: 0.03 s on shared memory with "
     "ranks sharing cores, 0.05 s at 1 Gbit/s), and the ranks of every later communicator start a "
     "small "
     "non-blocking agreement on the rates their processes know as it is made, which its first "
     "collective takes: every communicator compresses from its first call, non-blocking ones "
     "included. 0: only a blocking collective on a communicator agrees (a communicator whose "
     "collectives are all non-blocking never compresses). Must be the same on every rank"},
    /* Real application messages code 1.4-3.7x faster than the synthetic field (docs/scale.md):
     * the first agreement alone hands on calls that compressing would speed up. */
    {"codec_agree_period", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_INT(&mca_coll_zip_component.codec_agree_period, 1024),
     "Under policy auto and observe, the ranks of a communicator agree anew on the codec's "
     "speed, from the time their codec took on the communicator's data, at its 4th, 16th, "
     "64th ... blocking collective below this count and then at every multiple of it (one "
     "small allreduce each). 0: the speed agreed at the first call stays. Must be the same "
     "on every rank"},
    {"verbose", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_LOCAL,
     ZIP_OMPI_PARAM_INT(&mca_coll_zip_component.verbose, 0),
     "Verbosity: 1 reports why zip steps aside on a communicator and per-rank statistics, "
     "10 traces every call"},
    {"stats", OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_LOCAL,
     ZIP_OMPI_PARAM_INT(&mca_coll_zip_component.stats, 0),
     "1: print a compression summary (calls, calls compressed, bytes in/out, ratio, codec "
     "seconds per collective) from rank 0 at MPI_Finalize; with verbose >= 1 every rank "
     "prints its own"},
    {"gpu_guard", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_BOOL(&mca_coll_zip_component.gpu_guard, true),
     "Where a process of the job has a GPU driver runtime loaded by MPI_Init (libcuda, ROCm's "
     "HSA runtime, Level Zero: a CUDA-, ROCm- or Level Zero-aware MPI, which accepts device "
     "pointers), leave every communicator to the other coll components: zip reads message data "
     "with the CPU, which would fault on device memory. The ranks learn it together in "
     "MPI_Init (one allreduce). 0: zip runs as in any job (only for jobs that never hand MPI "
     "device memory). *Same on all ranks*"},
    {"force_local", OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_BOOL(&mca_coll_zip_component.force_local, false),
     "Compress even on communicators whose ranks all share one node (shared memory is "
     "faster than any codec there; meant for testing)"},
    /* The error path (a frame that fails its checks at a receiver) cannot be reached from an
     * application otherwise; the MPI tests use this to check it ends in MPI's error handler. */
    {"version_check", OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_READONLY,
     ZIP_OMPI_PARAM_BOOL(&mca_coll_zip_component.version_check, true),
     "1 (default): coll/zip stays out of a run under an Open MPI release (major.minor.release) "
     "other than the one it was built against, after saying so, since it reads Open MPI's "
     "internal structures; 0: load it anyway, at your own risk"},
    {"inject_corruption", OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_LOCAL,
     ZIP_OMPI_PARAM_INT(&mca_coll_zip_component.inject_corruption, 0),
     "Testing only: corrupt one byte of every Nth compressed frame this process "
     "sends (0, the default: never), so that receivers report a corrupt frame "
     "through MPI's error handler"},
};

static int zip_register(void)
{
    zip_ompi_params_register(&mca_coll_zip_component.super.collm_version, params,
                             sizeof(params) / sizeof(params[0]));
    /* Before anything reads Open MPI's structures. Declining here would make Open MPI fail
     * MPI_Init where the coll framework is given as a list naming zip; init_query declines. */
    mca_coll_zip_component.release_ok = zip_ompi_release_ok("coll/zip", "coll_zip_version_check",
                                                            mca_coll_zip_component.version_check,
                                                            mca_coll_zip_component.priority > 0);
    /* Not a setting: what the ranks measured, for pml/zip to read (mca_base_var_find); users
     * cannot set it. */
    mca_coll_zip_component.agreed_link_remote_mbps = 0.0;
    (void)mca_base_component_var_register(
        &mca_coll_zip_component.super.collm_version, "agreed_link_remote_mbps",
        "Rate to other nodes, in MB/s, that the ranks of a communicator last agreed on under "
        "policy auto or observe (0: none yet); read by pml/zip where it has no rate of its own",
        MCA_BASE_VAR_TYPE_DOUBLE, NULL, 0,
        MCA_BASE_VAR_FLAG_DEFAULT_ONLY | MCA_BASE_VAR_FLAG_INTERNAL, OPAL_INFO_LVL_9,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_coll_zip_component.agreed_link_remote_mbps);
    mca_coll_zip_pvars_register();
    return OMPI_SUCCESS;
}

static int zip_open(void)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;

    z->output = opal_output_open(NULL);
    opal_output_set_verbosity(z->output, z->verbose);
    /* z->codec_spec: set by init_query from coll_zip_codec and coll_zip_lossy. */
    memset(z->op_stats, 0, sizeof(z->op_stats));
    zip_algo_set_buffer_cache(z->buffer_cache);
    return OMPI_SUCCESS;
}

static int zip_close(void)
{
    mca_coll_zip_component_t *z = &mca_coll_zip_component;

    if (z->release_ok)
        mca_coll_zip_stats_report();
    mca_coll_zip_policy_fini();
    mca_coll_zip_nb_fini();
    mca_coll_zip_codec_pool_fini();
    zip_algo_release_buffers();
    free(z->codec_spec);
    z->codec_spec = NULL;
    if (z->output >= 0) {
        opal_output_close(z->output);
        z->output = -1;
    }
    return OMPI_SUCCESS;
}
