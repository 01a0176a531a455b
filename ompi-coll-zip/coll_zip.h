/*
 * coll/zip: compresses the payload of the collectives in COLL_ZIP_COLLECTIVES (algo/coll_ops.h)
 * and hands every other collective, and every call it cannot help, to the component selected
 * before it.
 */
#ifndef MCA_COLL_ZIP_EXPORT_H
#define MCA_COLL_ZIP_EXPORT_H

#include "ompi_config.h"

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/request/request.h"

#include "zip/zip.h"
#include "zip_ompi.h"
#include "algo/coll_ops.h"
#include "algo/codec_meter.h"
#include "algo/coll_stats.h"
#include "algo/zip_algo.h"

BEGIN_C_DECLS

typedef struct mca_coll_zip_component_t {
    mca_coll_base_component_2_0_0_t super;

    /* MCA parameters */
    int priority;
    char *codec;
    char *lossy;
    size_t threshold;
    size_t block_size;
    int codec_threads; /* threads that code one frame (zip_ctx_set_threads) */
    size_t segment_size;
    char *bcast_algorithm_name;      /* coll_zip_bcast_algorithm */
    int bcast_algorithm;             /* its ZIP_BCAST_* (zip_bcast_algorithm_parse) */
    double bcast_latency_us;         /* coll_zip_bcast_latency_us: the bcast cost model's latency */
    char *allreduce_algorithm_name;  /* coll_zip_allreduce_algorithm */
    int allreduce_algorithm;         /* its ZIP_ALLREDUCE_* (zip_allreduce_algorithm_parse) */
    char *allgatherv_algorithm_name; /* coll_zip_allgatherv_algorithm */
    int allgatherv_algorithm;        /* its ZIP_ALLGATHERV_* (zip_allgatherv_algorithm_parse) */
    size_t alltoallv_window;
    char *alltoallv_temporal_name;    /* coll_zip_alltoallv_temporal: off or auto */
    int alltoallv_temporal;           /* its zip_algo_temporal_mode_parse value */
    size_t alltoallv_temporal_memory; /* references per communicator, both directions */
    size_t buffer_cache;              /* working memory kept between calls (zip_algo.h) */
    int verbose;
    int stats;
    bool force_local;
    char *policy_name;            /* coll_zip_policy */
    int policy;                   /* its zip_policy_mode_t */
    double link_gbps_local;       /* 0: measured */
    double link_gbps_remote;      /* 0: measured */
    double codec_gbps_compress;   /* the codec speed the first agreement takes; 0: measured */
    double codec_gbps_decompress; /* (zip_calibrate) */
    bool agree_early; /* coll_zip_agree_early: new communicators agree as they are made */
    bool gpu_guard;   /* coll_zip_gpu_guard */
    int job_gpu;      /* a process of this job has a GPU runtime: 1; none: 0; not asked yet: -1 */
    int codec_agree_period;   /* coll_zip_codec_agree_period: blocking calls between agreements on
                                 the data's codec speed (algo/codec_meter.h); 0: the first only */
    zip_speeds_t last_speeds; /* the last agreed speeds (remote link), for the summary */
    /* The rate to other nodes the ranks of a communicator last agreed on, in MB/s (0: none
     * yet), published as the read-only variable coll_zip_agreed_link_remote_mbps: pml/zip reads
     * it where it has no rate of its own (pml_zip_policy.c). */
    double agreed_link_remote_mbps;
    int inject_corruption; /* testing: corrupt every Nth frame this process sends (0: never) */
    bool version_check;    /* stay out under another Open MPI release than the one built for */
    bool release_ok;       /* built for this Open MPI release, or version_check off */

    int output;       /* opal_output stream, verbosity from `verbose` */
    char *codec_spec; /* in effect (init_query: zip_ompi_codec_resolve); NULL while zip is off */

    zip_coll_stats_t op_stats[COLL_ZIP_OP_COUNT]; /* algo/coll_stats.h */
} mca_coll_zip_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_zip_component_t mca_coll_zip_component;

/* A collective's route on a communicator (zip_algo_route) under the policy mode it was found
 * for; mode -1: none found yet. */
typedef struct mca_coll_zip_route_t {
    int mode;
    zip_verdict_t verdict;
    zip_algo_policy_t policy;
} mca_coll_zip_route_t;

/* Open MPI 4.1 types its neighbourhood slots as alltoall(v) and allgather(v) functions; the
 * names the collectives' list (COLL_ZIP_COLLECTIVES) builds from "[i]neighbor_<name>": */
typedef mca_coll_base_module_alltoall_fn_t mca_coll_base_module_neighbor_alltoall_fn_t;
typedef mca_coll_base_module_alltoallv_fn_t mca_coll_base_module_neighbor_alltoallv_fn_t;
typedef mca_coll_base_module_allgather_fn_t mca_coll_base_module_neighbor_allgather_fn_t;
typedef mca_coll_base_module_allgatherv_fn_t mca_coll_base_module_neighbor_allgatherv_fn_t;
typedef mca_coll_base_module_ialltoall_fn_t mca_coll_base_module_ineighbor_alltoall_fn_t;
typedef mca_coll_base_module_ialltoallv_fn_t mca_coll_base_module_ineighbor_alltoallv_fn_t;
typedef mca_coll_base_module_iallgather_fn_t mca_coll_base_module_ineighbor_allgather_fn_t;
typedef mca_coll_base_module_iallgatherv_fn_t mca_coll_base_module_ineighbor_allgatherv_fn_t;

typedef struct mca_coll_zip_module_t {
    mca_coll_base_module_t super;

    /* The functions this module stands in front of, retained at enable time. */
#define COLL_ZIP_PREVIOUS(OP, name, Call)                                                          \
    mca_coll_base_module_##name##_fn_t previous_##name;                                            \
    mca_coll_base_module_t *previous_##name##_module;
    COLL_ZIP_COLLECTIVES(COLL_ZIP_PREVIOUS)
#undef COLL_ZIP_PREVIOUS
    /* MPI_Barrier, taken only as a point where the ranks may agree on speeds (coll_zip_barrier.c).
     */
    mca_coll_base_module_barrier_fn_t previous_barrier;
    mca_coll_base_module_t *previous_barrier_module;

    /* Blocking Alltoall(v)'s temporal streams (coll_zip_alltoallv_temporal), NULL: off.
     * Freed with the communicator, so a new one that reuses its context id starts afresh. */
    zip_algo_temporal_t *temporal;

    bool enabled; /* enable succeeded (the destructor says so at verbose 10) */

    /* peer_on_node[p]: rank p shares this rank's node (blocks to and from it move plainly);
     * NULL with force_local. Fixed at enable time so that every call decides alike. */
    bool *peer_on_node;
    int pairs_serialise; /* coll_zip_allreduce.c: -1 until looked at, then 0 or 1 */

    /* The speeds every rank agreed on at the first call that needed them (coll_zip_policy.c);
     * the codec's again now and then from what the meter saw of this communicator's data. */
    bool agreed;
    /* A non-blocking call was handed on for want of agreed speeds (its start must not wait for
     * the other ranks): the next blocking call of any size agrees first. Set and cleared at
     * calls every rank makes in the same order, so the same on every rank. */
    bool agreement_wanted;
    /* The agreement every rank started as comm was made (coll_zip_agree.c), until the first call
     * that needs speeds takes it; NULL: none, or taken. */
    struct mca_coll_zip_early_agreement_t *early_agreement;
    zip_algo_agreed_t speeds;
    zip_codec_meter_t meter;
    uint64_t blocking_calls;    /* blocking calls zip intercepted, the same count on every rank */
    uint64_t link_faster_calls; /* calls handed on as link_faster, for the meter's samples */
    bool probe_pending;         /* one of them is due to be sampled */
    /* Each collective's route, found at its first call under a policy mode and kept for every
     * later call under that mode: it depends on the agreed speeds, the mode and the flow, not on
     * a call's size (zip_algo_route), so a call that is handed on costs a lookup. */
    mca_coll_zip_route_t routes[COLL_ZIP_OP_COUNT];
    /* What the last blocking allgather(v) of each element type (ZIP_ALGO_*) moved: its ratio
     * weighs zip's schedules against tuned's (zip_algo_allgatherv_choose). */
    zip_algo_seen_t allgather_seen[ZIP_ALGO_I64 + 1];
    /* The same for the last blocking bcasts: their ratio shapes the plan (zip_bcast_route_seen). */
    zip_algo_seen_t bcast_seen[ZIP_ALGO_I64 + 1];
    /* This rank's memo of its last sample in the neighbourhood alltoall, alltoallv, allgather,
     * allgatherv and alltoallw calls, blocking and non-blocking apart (zip_algo_sender_memo_t;
     * this rank's alone). */
    zip_algo_sender_memo_t neighbor_memo[10];
    /* Alltoall, alltoallv, gather, gatherv, scatter, scatterv and alltoallw calls on data no
     * rank coded (in that order; mca_coll_zip_uncoded): handed on for a while
     * (zip_algo_uncoded_t). Not per element type as the ratios above: a rank whose blocks are all
     * empty may pass any datatype, so only the call itself is the same on every rank. */
    zip_algo_uncoded_t uncoded[7];
    /* The policy of the call in progress (one collective at a time per communicator). */
    zip_algo_policy_t call_policy;
} mca_coll_zip_module_t;

OBJ_CLASS_DECLARATION(mca_coll_zip_module_t);

/* coll_zip_module.c */
int mca_coll_zip_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_zip_comm_query(struct ompi_communicator_t *comm, int *priority);

/* coll_zip_pvars.c */
void mca_coll_zip_pvars_register(void);

/* coll_zip_stats.c */
void mca_coll_zip_stats_set_rank(int world_rank);
void mca_coll_zip_stats_add(int op, int fallback, int compressed, uint64_t bytes_in,
                            uint64_t bytes_out, uint64_t codec_ns);
void mca_coll_zip_stats_report(void);
/* Called on every zip call: the first one on MPI_COMM_WORLD, which all ranks make together,
 * arranges for the job-wide sum at MPI_Finalize. */
void mca_coll_zip_stats_arm_finalize_summary(struct ompi_communicator_t *comm);

/* coll_zip_transport.c: the algorithms' transport on the PML */
void mca_coll_zip_transport_init(zip_transport_t *t, struct ompi_communicator_t *comm);

/* A communicator's name in messages: the one MPI_Comm_set_name gave, else says it has none (a
 * communicator from MPI_Comm_dup or MPI_Comm_split is unnamed). */
static inline const char *mca_coll_zip_comm_name(const struct ompi_communicator_t *comm)
{
    return '\0' != comm->c_name[0] ? comm->c_name : "an unnamed communicator";
}

/* The algorithms' element type (ZIP_ALGO_*) of data of dtype: the type signature decides, as
 * for pml/zip (zip_ompi.h); ZIP_ALGO_* equal zip_elem_type_t (algo/codec_binding.cpp). */
static inline int mca_coll_zip_elem_type(struct ompi_datatype_t *dtype)
{
    return (int)zip_ompi_elem_type(dtype);
}

/* ---- coll_zip_codec_pool.c ---- */
/* A codec context made as the component's parameters say, for one call while it codes: from the
 * process's idle ones, else new (NULL: no memory, said). */
zip_ctx_t *mca_coll_zip_codec_take(void);
/* Back to the idle ones when the call is done with it (or freed, beyond what they keep). */
void mca_coll_zip_codec_give(zip_ctx_t *ctx);
/* At component close. */
void mca_coll_zip_codec_pool_fini(void);

/* ---- coll_zip_agree.c ---- */
typedef struct mca_coll_zip_early_agreement_t mca_coll_zip_early_agreement_t;
/* Measures what is needed and agrees on comm's speeds with every rank (blocking: for calls every
 * rank makes and that may wait for the others). */
int mca_coll_zip_agree(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm);
/* The ranks agree anew on the slowest codec their meters saw; the routes are then found anew. */
void mca_coll_zip_agree_on_codec(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm);
/* At enable, on every rank of a new communicator (but MPI_COMM_WORLD) alike: starts the
 * non-blocking agreement on the rates this process knows. Fails only for want of memory. */
int mca_coll_zip_agree_start_early(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm);
/* At the communicator's first call that needs agreed speeds, blocking or not: completes the early
 * agreement and settles on its speeds if every rank knew its links (m->agreed). */
void mca_coll_zip_agree_take_early(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm);
/* At the module's end: completes an early agreement no call took. */
void mca_coll_zip_agree_drop_early(mca_coll_zip_module_t *m);
/* At MPI_COMM_WORLD's enable, inside MPI_Init on every rank alike: whether its ranks agree there
 * (with the link rates given, no rank would time a link). */
bool mca_coll_zip_agrees_at_init(struct ompi_communicator_t *comm);

/* ---- coll_zip_policy.c ---- */
/* The Info key zip_policy of comm, else coll_zip_policy. */
zip_policy_mode_t mca_coll_zip_policy_mode(struct ompi_communicator_t *comm);
/* Every call zip intercepts comes here first, in the same order on every rank (MPI's rule for
 * collectives): a blocking one is counted, and at the counts zip_codec_meter_agree_at names the
 * ranks agree anew on the codec's speed from what their meters saw; a blocking one after a
 * non-blocking call that wanted agreed speeds agrees on them first. */
void mca_coll_zip_policy_count_call(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                    int op);
/* Agrees on the speeds now if comm's policy mode needs them and they are not agreed yet: for a
 * blocking call that every rank makes and that may wait for the others (MPI_Barrier). */
void mca_coll_zip_policy_agree_now(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm);
void mca_coll_zip_policy_subscribe(struct ompi_communicator_t *comm);
void mca_coll_zip_policy_fini(void);
/*
 * The policy's routing of a call of `op`, the same on every rank (the agreed speeds, the mode
 * and the collective decide; the first call under a mode finds the route, later ones look it
 * up): true if it takes zip's path (then m->call_policy is what the algorithm's sample decision
 * uses). Otherwise the call is counted as handed on (under observe, with what compressing this
 * rank's `my_bytes` would have saved, judged on sample_count x dtype at sample) and the caller
 * hands it to the previous component.
 */
bool mca_coll_zip_policy_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                               const void *sample, int sample_count, struct ompi_datatype_t *dtype,
                               size_t my_bytes);
/* Whether, under policy auto, the route of a call of `op` finds the link faster than the codec;
 * then m->call_policy is the route's (its agreed speeds), and nothing is counted: for a call zip
 * may still run raw where its schedule alone pays (scans). */
bool mca_coll_zip_policy_link_faster(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op);
/* Only whether the route takes a call of `op` (as mca_coll_zip_policy_takes, then with
 * m->call_policy set), counting nothing: for calls zip runs either way. */
bool mca_coll_zip_policy_route_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op);
/* Whether the communicator's route for `op` takes the call, as mca_coll_zip_policy_route_takes;
 * a call it hands on is counted so (neighbourhood collectives, which never sample). */
bool mca_coll_zip_policy_route_takes_counted(mca_coll_zip_module_t *m,
                                             struct ompi_communicator_t *comm, int op);
/* For a call whose largest block, `block`, every rank knows (MPI makes the type signatures
 * match: alltoall, gather, scatter, allgather(v)): empty or below the threshold, it is counted as
 * a fallback and goes to the previous component, like a small bcast; otherwise
 * mca_coll_zip_policy_takes with block. */
bool mca_coll_zip_policy_takes_known(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                     int op, size_t block, const void *sample, int sample_count,
                                     struct ompi_datatype_t *dtype, size_t my_bytes);
/* For a call whose block sizes the ranks do not all know (alltoallv, scatterv): the route uses
 * the threshold, the same everywhere; this rank's blocks at or above it (but block `skip`) are
 * its payload, the largest of them its sample. */
struct mca_coll_zip_layout_t;
bool mca_coll_zip_policy_takes_blocks(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                      int op, const struct mca_coll_zip_layout_t *mine, int skip);
/* Runs the algorithm of `op` (root: gatherv's) with zip's transport and timed codec, counts
 * and traces what it did (into *result too, unless NULL); returns an MPI error code (with a
 * message) or OMPI_SUCCESS. */
int mca_coll_zip_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op, int root,
                     const void *args, zip_algo_result_t *result);
/* After the algorithm of a call of `op` (blocking or not) ran: counts and traces what it did and
 * returns its status as an MPI error code, with a message. */
int mca_coll_zip_account(int op, struct ompi_communicator_t *comm, int root, int algo_rc,
                         const zip_algo_result_t *result, const zip_algo_codec_binding_t *binding);
/* Counts a call the policy decided on inside zip's path (a sender's sample). */
void mca_coll_zip_stats_policy(int op, zip_verdict_t verdict);
/* Counts a call handed to the previous component, with why (ZIP_VERDICT_TOO_SMALL: below the
 * threshold, or nothing zip takes) and, under observe, observe_saving: the predicted saving of a
 * call auto would have compressed, judged on `bytes` (this process's payload in it); else 0. */
void mca_coll_zip_stats_handed_on(int op, zip_verdict_t verdict, double observe_saving,
                                  size_t bytes);

/* The record of op's calls (blocking or not: alltoall(v/w), gather(v), scatter(v)) on data no
 * rank coded (zip_algo_uncoded_t). */
static inline zip_algo_uncoded_t *mca_coll_zip_uncoded(mca_coll_zip_module_t *m, int op)
{
    switch (zip_coll_op_blocking(op)) {
    case COLL_ZIP_OP_ALLTOALLV:
        return &m->uncoded[1];
    case COLL_ZIP_OP_GATHER:
        return &m->uncoded[2];
    case COLL_ZIP_OP_GATHERV:
        return &m->uncoded[3];
    case COLL_ZIP_OP_SCATTER:
        return &m->uncoded[4];
    case COLL_ZIP_OP_SCATTERV:
        return &m->uncoded[5];
    case COLL_ZIP_OP_ALLTOALLW:
        return &m->uncoded[6];
    default:
        return &m->uncoded[0];
    }
}

/* Whether the ranks keep the record of uncoded calls for the call zip is taking
 * (zip_algo_uncoded_applies: policy auto on a fast link). */
static inline bool mca_coll_zip_uncoded_kept(const mca_coll_zip_module_t *m)
{
    return zip_algo_uncoded_applies(&m->call_policy);
}

/* The record of uncoded calls for op's call zip is taking on comm, or NULL where none is kept:
 * alltoall(v) under policy auto on a fast link (mca_coll_zip_uncoded_kept), gather(v) and
 * scatter(v) there on two ranks only. Their one block goes in segments there
 * (algo/segments.cpp), a message each, which raw data pays for (netemu 10 Gbit/s, random data, 1
 * MiB: 0.93-0.96x of tuned's one message); on more ranks zip's raw path beats tuned's default
 * (docs/performance.md, "Alltoall(v) on data nobody codes"). */
static inline zip_algo_uncoded_t *mca_coll_zip_uncoded_of(mca_coll_zip_module_t *m,
                                                          struct ompi_communicator_t *comm, int op)
{
    const int base = zip_coll_op_blocking(op);
    const bool exchange = COLL_ZIP_OP_ALLTOALL == base || COLL_ZIP_OP_ALLTOALLV == base ||
                          COLL_ZIP_OP_ALLTOALLW == base;
    if (!mca_coll_zip_uncoded_kept(m) || (!exchange && 2 != ompi_comm_size(comm))) {
        return NULL;
    }
    return mca_coll_zip_uncoded(m, op);
}

/* Whether a call of alltoall(v), gather(v) or scatter(v) that zip would take is handed on
 * instead (and counted so): the last calls of its kind coded nothing on any rank. */
static inline bool mca_coll_zip_uncoded_hands_on(mca_coll_zip_module_t *m,
                                                 struct ompi_communicator_t *comm, int op)
{
    zip_algo_uncoded_t *u = mca_coll_zip_uncoded_of(m, comm, op);
    if (NULL == u || !zip_algo_uncoded_hands_on(u)) {
        return false;
    }
    mca_coll_zip_stats_handed_on(op, ZIP_VERDICT_INCOMPRESSIBLE, 0.0, 0);
    return true;
}

/* coll_zip_stats.c: maps an algorithm result to an MPI error code, reporting failures */
int mca_coll_zip_algo_error(int algo_rc, const char *op, struct ompi_communicator_t *comm);

/* The collectives: mca_coll_zip_<name> has the type of the module's coll_<name> slot it fills,
 * so the compiler holds each to Open MPI's signature. Each blocking entry is its non-blocking
 * twin called with request NULL. */
#define COLL_ZIP_DECLARE(OP, name, Call)                                                           \
    __typeof__(*(mca_coll_base_module_##name##_fn_t)0) mca_coll_zip_##name;
COLL_ZIP_COLLECTIVES(COLL_ZIP_DECLARE)
#undef COLL_ZIP_DECLARE
int mca_coll_zip_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
/* Hands a call of collective `name` on to the previous component: blocking (previous_<name>)
 * when request is NULL, else previous_i<name>; the arguments are the call's up to comm. */
#define COLL_ZIP_HAND_ON(m, request, name, ...)                                                    \
    (NULL == (request)                                                                             \
         ? (m)->previous_##name(__VA_ARGS__, (m)->previous_##name##_module)                        \
         : (m)->previous_i##name(__VA_ARGS__, (request), (m)->previous_i##name##_module))
/* The *_run functions below run their algorithm for a call of `op` that the policy took:
 * blocking with request NULL, else started as a non-blocking call whose *request completes
 * when Open MPI's progress engine has finished it (mca_coll_zip_exchange). */
/* Alltoallv's algorithm for alltoall(v/w) and ialltoall(v/w). */
int mca_coll_zip_alltoallv_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                               const struct mca_coll_zip_layout_t *snd,
                               const struct mca_coll_zip_layout_t *rcv,
                               struct ompi_request_t **request);
/* Gather(v) and scatter(v) (blocking or not): `many` is the root's side, a block per rank,
 * `one` every other rank's block (and the root's own, or MPI_IN_PLACE). */
int mca_coll_zip_rooted_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                            const struct mca_coll_zip_layout_t *many,
                            const struct mca_coll_zip_layout_t *one, int root,
                            struct ompi_request_t **request);
/* Allgatherv's schedule for allgather(v) (blocking or not): `mine` is this rank's send block (or
 * MPI_IN_PLACE), rcv every rank's, `algorithm` ZIP_ALLGATHERV_RING or ZIP_ALLGATHERV_BRUCK. */
int mca_coll_zip_allgatherv_run(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm, int op,
                                const struct mca_coll_zip_layout_t *mine,
                                const struct mca_coll_zip_layout_t *rcv, int algorithm,
                                struct ompi_request_t **request);
/* Whether zip takes an allgather(v) (of `op`, blocking or not) whose largest block is `largest`,
 * and with which schedule (*algorithm); otherwise it was counted as handed on. */
bool mca_coll_zip_allgather_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                  int op, const struct mca_coll_zip_layout_t *mine,
                                  const struct mca_coll_zip_layout_t *rcv, size_t largest,
                                  int *algorithm);
/* coll_zip_allreduce.c, for the reducing collectives (allreduce, reduce, reduce_scatter(_block),
 * scan, exscan):
 * the MPI operation and datatype a reduction's zip_reduce_ops_t applies; */
typedef struct mca_coll_zip_reduce_binding_t {
    struct ompi_op_t *op;
    struct ompi_datatype_t *dtype;
} mca_coll_zip_reduce_binding_t;
/* the bytes of count elements where zip can reduce them (a predefined float or double type with
 * MPI_SUM, MPI_PROD, MPI_MIN or MPI_MAX), else 0; */
size_t mca_coll_zip_reduce_bytes(int count, struct ompi_datatype_t *dtype, struct ompi_op_t *op);
/* whether zip takes a call of op_index moving `bytes` (each of the p chunks at least the
 * threshold, and the policy's route: otherwise counted as handed on); */
bool mca_coll_zip_reduce_takes(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                               int op_index, size_t bytes, const void *sample, int count,
                               struct ompi_datatype_t *dtype);
/* the arguments for reducing `bytes` of buf with op (allreduce: by `algorithm`, a
 * ZIP_ALLREDUCE_*); policy and tag are the call's; */
void mca_coll_zip_reduce_args(zip_allreduce_args_t *args, zip_reduce_ops_t *reduce,
                              mca_coll_zip_reduce_binding_t *binding, mca_coll_zip_module_t *m,
                              void *buf, size_t bytes, struct ompi_datatype_t *dtype,
                              struct ompi_op_t *op, int algorithm);
/* the link rate the schedules' cost models take (agreed, else configured; 0: unknown); */
double mca_coll_zip_schedule_link_Bps(const mca_coll_zip_module_t *m);
/* a reduction of op_index's (allreduce, reduce, scans: blocking or not) with those arguments,
 * `mine` the contribution where it is not in buf and `segment` a chain's (0: the rule's), run
 * now when request is NULL, else started as a non-blocking call. */
int mca_coll_zip_reduce_schedule(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm,
                                 int op_index, int root, void *buf, const void *mine, size_t bytes,
                                 struct ompi_datatype_t *dtype, struct ompi_op_t *op, int algorithm,
                                 size_t segment, struct ompi_request_t **request);

/* Whether ob1 moves this communicator's messages between nodes over the TCP BTL, which
 * serialises a pair's exchanges both ways (coll_zip_allreduce.c). */
bool mca_coll_zip_pairs_serialise(mca_coll_zip_module_t *m, struct ompi_communicator_t *comm);

END_C_DECLS

#endif /* MCA_COLL_ZIP_EXPORT_H */
