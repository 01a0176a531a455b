/*
 * Entry points of the compressed collective algorithms. Blocks the algorithms may compress are
 * contiguous byte views (made on demand through the transport's byte_view for blocks in the
 * caller's own layout); plain blocks move in that layout (transport.h).
 *
 * Wire rule shared by all algorithms: a receiver always knows the raw length of what it
 * receives (MPI makes counts consistent), so it posts a receive of the raw length. A sender
 * uses a frame only when it is strictly smaller than the raw data, so the received length
 * alone tells a frame (shorter) from raw data (equal). No header, no extra round.
 */
#ifndef ZIP_COLL_ALGO_ZIP_ALGO_H
#define ZIP_COLL_ALGO_ZIP_ALGO_H

#include <stdbool.h>

#include "transport.h"
#include "zip/zip.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one call did, for the statistics. */
typedef struct zip_algo_result {
    size_t bytes_in;  /* raw bytes this rank put on the wire or would have */
    size_t bytes_out; /* bytes this rank actually put on the wire */
    int compressed;   /* nonzero if this rank sent or received at least one frame */
    int verdict;      /* what this rank's sample decided (zip_verdict_t), -1: no sample */
    int all_plain;    /* alltoallv, gatherv: every block of this rank, sent or received, moved
                         plainly (or there was none): the call never entered zip's own path */
    size_t plain_got, plain_want;       /* ZIP_ALGO_ERR_LENGTH: the first plain receive that brought
                                           plain_got bytes instead of plain_want */
    size_t gathered_raw, gathered_wire; /* allgather(v) and bcast: the blocks (segments) this
                                           rank holds at the end (its own as sent), raw and as
                                           they travelled: the same on every rank after a call
                                           that failed nowhere */
} zip_algo_result_t;

/*
 * How a sender decides from its sample whether compressing the rest pays: zip.h's cost model
 * with the mode and speeds the glue agreed on for the communicator. NULL: ZIP_POLICY_ALWAYS.
 * The decision is local; receivers learn it from the length of what arrives.
 */
typedef struct zip_algo_policy {
    zip_policy_mode_t mode;
    zip_speeds_t speeds;
    /* How a sender's blocks move: pipelined where coding one block overlaps the transfer of
     * another (bcast segments; alltoallv and gatherv with several blocks in turn), one-shot
     * where a sender has a single block (alltoallv and gatherv on two ranks). */
    zip_transfer_shape_t shape;
} zip_algo_policy_t;

/* How a collective's data flow, as far as routing it goes: */
typedef enum zip_algo_flow {
    ZIP_FLOW_PIPELINE = 0, /* bcast: one flow of segments, coding overlapping transfers */
    ZIP_FLOW_ALL_SEND =
        1,             /* alltoall(v): every rank sends at once; a node's ranks share its link */
    ZIP_FLOW_RING = 2, /* allgather(v): every block crosses size - 1 links at once */
    ZIP_FLOW_INTO_ROOT = 3, /* gather(v): the senders compress at once, the root's link and
                               decoder serve them in turn */
    ZIP_FLOW_REDUCE =
        4, /* reduce: a chain whose every hop decodes, reduces and encodes on its one core */
    ZIP_FLOW_ALLREDUCE = 5,  /* allreduce: as reduce, and where recursive halving crosses nodes
                               every rank of a node sends at once through its NIC */
    ZIP_FLOW_OUT_OF_ROOT = 6 /* scatter(v): the root compresses block after block as its link
                                sends them, the receivers decode at once */
} zip_algo_flow_t;

/* The speeds every rank of a communicator agreed on (coll_zip_policy.c): the fastest link rate
 * per peer class (ZIP_PEER_LOCAL, ZIP_PEER_REMOTE; bytes/s), the slowest codec, the most ranks
 * sharing a node, and the least share of consecutive ranks (p, p + 1 mod size) on one node that
 * any node has (zip_coll_chain_local_share; 0: none, or unknown): at least that share of the
 * bcast chain's hops stay on a node; and the most ranks any machine runs per core
 * (zip_coll_ranks_per_core; above 1 where ranks share cores, 0: unknown); and whether the
 * decompression speed is what a decoder did on the communicator's own data (nonzero: agreed
 * from the codec meters, zip_codec_meter_agreed) rather than on the calibration's field. */
typedef struct zip_algo_agreed {
    double link_Bps[2];
    double compress_Bps, decompress_Bps;
    int ranks_per_node;
    double chain_local_share;
    double ranks_per_core;
    int decompress_seen;
} zip_algo_agreed_t;

/* The route of a call of `flow` on `size` ranks, the same on every rank given the same
 * arguments: ZIP_VERDICT_COMPRESS takes zip's path (its sample decides inside with *out), any
 * other verdict hands the call on. agreed NULL: speeds unknown (policy always needs none).
 * all_remote: every peer counts as remote (force_local: no peer is known to share the node); else
 * the remote link rules where one was measured. The route does not depend on the call's size:
 * before a sample the model's raw and compressed times are both proportional to the bytes, so it
 * is judged on one size for all, and a caller may keep it for every call of its flow under that
 * mode (coll/zip keeps one per communicator and collective). */
zip_verdict_t zip_algo_route(zip_policy_mode_t mode, zip_algo_flow_t flow, int size,
                             const zip_algo_agreed_t *agreed, bool all_remote,
                             zip_algo_policy_t *out);
/* How a sender of `flow` on `size` ranks moves its payload, for the cost model: one shot where
 * it has a single block (two ranks, but a bcast's segments), an exchange where every rank also
 * decodes as much as it encodes (alltoall(v)), else a pipeline. */
zip_transfer_shape_t zip_algo_flow_shape(zip_algo_flow_t flow, int size);
/* Under observe, the part of a call's predicted saving that one rank's own payload stands for. */
double zip_algo_observe_share(zip_algo_flow_t flow, int size);

typedef struct zip_bcast_args {
    void *buf;    /* byte view of the message on every rank */
    size_t bytes; /* identical on every rank */
    int root;
    int tag;
    int elem_type;                   /* root only: ZIP_ALGO_* */
    int try_compress;                /* root only: zero sends everything raw */
    size_t segment_bytes;            /* identical on every rank: the largest segment (see below) */
    size_t chain_segment;            /* identical on every rank: the segment the cost model chose
                                        (zip_bcast_route), at most segment_bytes; 0: the rule of
                                        zip_bcast_segment_bytes */
    int topology;                    /* ZIP_BCAST_*, identical on every rank */
    size_t sag_chunk;                /* identical on every rank: the scatter-allgather's chunk
                                        (zip_bcast_route); 0: ZIP_BCAST_SAG_CHUNK */
    int sag_tree;                    /* identical on every rank: nonzero, the scatter-allgather
                                        scatters down a binomial tree (zip_bcast_route); 0: the
                                        root sends every rank its block */
    const zip_algo_policy_t *policy; /* root only */
} zip_bcast_args_t;

/* AUTO: the chain, or a binomial tree when there are fewer segments than ranks. SCATTER_ALLGATHER:
 * one block per rank, compressed once by the root, scattered, then gathered by every rank in
 * ceil(log2 P) steps (bcast_sag.cpp). zip_bcast_topology picks between them by their cost. */
enum {
    ZIP_BCAST_AUTO = 0,
    ZIP_BCAST_CHAIN = 1,
    ZIP_BCAST_BINOMIAL = 2,
    ZIP_BCAST_SCATTER_ALLGATHER = 3
};

/* What the bcast cost model weighs (docs/design.md, "Choosing the topology"): one message's
 * latency between nodes, the link rate (a node's NIC) and the codec speeds (0: unknown; an
 * unknown link counts as 10 Gbit/s, an unknown codec as free), the expected ratio (raw / wire,
 * below 1: 1), the most ranks of the communicator on one node (below 1: 1), which share that NIC
 * in the scatter-allgather's allgather, the rate between two ranks of one node and the least
 * share of the chain's hops that stay on a node (zip_algo_agreed_t; 0: unknown, every hop
 * counts as one between nodes), and whether the speeds are the ones all ranks measured and
 * agreed on (segment_by_model nonzero: the chain's segment is then the model's, see
 * zip_bcast_chain_segment; 0: zip_bcast_segment_bytes's rule), and the agreed ranks per core
 * (zip_bcast_segment_bytes; 0: a core per rank). */
typedef struct zip_bcast_model {
    double latency_s;
    double link_Bps;
    double compress_Bps, decompress_Bps;
    double ratio;
    int ranks_per_node;
    double local_link_Bps;
    double chain_local_share;
    int segment_by_model;
    double ranks_per_core;
} zip_bcast_model_t;

/* Predicted seconds of a bcast of `bytes` on `ranks` ranks with `topology` (AUTO: the chain or
 * binomial tree AUTO runs), segment_bytes as in zip_bcast_args_t, the chain's segment
 * zip_bcast_chain_segment's. */
double zip_bcast_predict(int topology, size_t bytes, int ranks, size_t segment_bytes,
                         const zip_bcast_model_t *model);
/* The segment the pipeline cuts `bytes` into on `ranks` ranks: with model->segment_by_model, of
 * zip_bcast_segment_bytes's segment (with the topology AUTO gives it: the binomial tree when
 * there are fewer segments than ranks) and the larger ones of 8-256 KiB (all at most `largest`,
 * as that caps) each in a chain and in a binomial tree, the one the model predicts fastest
 * (zip_bcast_route names the topology where AUTO would run the other); zip_bcast_segment_bytes's
 * unless another is predicted at least 10 % faster, and always without the model. Never smaller
 * than the rule's: the model does not price messages, only bytes and latencies. A function of its
 * arguments alone:
 * ranks that pass the same (agreed) values cut the same segments, as they must, since a receiver
 * posts each segment at its raw length. */
size_t zip_bcast_chain_segment(size_t bytes, int ranks, size_t largest,
                               const zip_bcast_model_t *model);
/* The topology the model predicts fastest: ZIP_BCAST_AUTO (chain or binomial) or
 * ZIP_BCAST_SCATTER_ALLGATHER, the latter only while a block fits one message of at most
 * max_message bytes (0: no limit). Depends on its arguments alone, so every rank that passes
 * the same ones (the agreed speeds) picks the same. */
int zip_bcast_topology(size_t bytes, int ranks, size_t segment_bytes, size_t max_message,
                       const zip_bcast_model_t *model);
/* coll_zip_bcast_algorithm: auto (the cost model), chain (the segmented pipeline: a chain, or
 * a binomial tree when there are fewer segments than ranks; ZIP_BCAST_AUTO) or
 * scatter_allgather (its scatter flat or down a binomial tree, as the model predicts faster),
 * scatter_allgather_flat or scatter_allgather_tree (that scatter forced; the tree only where
 * half the message fits one message, else flat). */
typedef enum zip_bcast_algorithm {
    ZIP_BCAST_ALGORITHM_AUTO = 0,
    ZIP_BCAST_ALGORITHM_CHAIN = 1,
    ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER = 2,
    ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER_FLAT = 3,
    ZIP_BCAST_ALGORITHM_SCATTER_ALLGATHER_TREE = 4
} zip_bcast_algorithm_t;
/* The zip_bcast_algorithm_t a name stands for, -1 for anything else. */
int zip_bcast_algorithm_parse(const char *name);
/* How a bcast runs: zip_bcast_args_t's topology, chain_segment, sag_chunk and sag_tree. */
typedef struct zip_bcast_plan {
    int topology;
    size_t chain_segment;
    size_t sag_chunk;
    int sag_tree;
    int hand_on; /* nonzero: the call goes to the previous component (zip_bcast_route) */
} zip_bcast_plan_t;
/* The scatter-allgather's allgather moves blocks of at most half a chunk coalesced, a chunk's
 * worth of blocks in one message, forwarded as soon as it arrives (bcast_sag.cpp): the default
 * and largest chunk, and the chunk for a link of link_Bps (0: unknown, 10 Gbit/s), which
 * zip_bcast_route plans: a power of two of 8 KiB or more whose wire outlasts the cost of a few
 * messages. */
enum { ZIP_BCAST_SAG_CHUNK = 131072 };
/* What the bcast cost model charges a message at each end beside its bytes and latency (the
 * CPU of a send or a receive on the rank's one core), in nanoseconds. */
enum { ZIP_BCAST_MESSAGE_COST_NS = 1000 };
size_t zip_bcast_sag_chunk(double link_Bps);
/* The plan of a call: the topology `algorithm` forces, or for ZIP_BCAST_ALGORITHM_AUTO
 * zip_bcast_topology's (ZIP_BCAST_CHAIN or ZIP_BCAST_BINOMIAL where the model chose the one
 * that AUTO would not run with its segment), and the pipeline's segment (zip_bcast_chain_segment,
 * at most segment_bytes and max_message, 0: no limit), from the call's agreed speeds (policy NULL
 * or without a link rate: unknown; the chain then keeps zip_bcast_segment_bytes's rule), the
 * configured link rate where those have none (policy always; 0: unknown), latency, and the agreed
 * ranks per node and local link (agreed NULL: unknown; one rank per node, every hop between nodes).
 * hand_on where policy auto planned the scatter-allgather and its exchange can never compress on
 * these speeds (zip's raw scatter-allgather is no faster than tuned's). The same on every rank
 * given the same arguments. */
zip_bcast_plan_t zip_bcast_route(int algorithm, const zip_algo_policy_t *policy,
                                 const zip_algo_agreed_t *agreed, double configured_link_Bps,
                                 double latency_s, size_t bytes, int ranks, size_t segment_bytes,
                                 size_t max_message);
/* zip_bcast_route for data expected to shrink by seen_ratio (raw / wire), what the
 * communicator's last blocking bcasts of the element type achieved (zip_algo_seen_t: every rank
 * receives every frame, so all know it alike); the model's wire terms shrink by it. 0 or 1:
 * none, as zip_bcast_route. A shrunk wire leaves latencies and messages to weigh: the chain or
 * the tree's scatter may then beat the root's flat one, and a scatter-allgather that would be
 * handed on runs as the pipeline where that is predicted faster than it raw. */
zip_bcast_plan_t zip_bcast_route_seen(int algorithm, const zip_algo_policy_t *policy,
                                      const zip_algo_agreed_t *agreed, double configured_link_Bps,
                                      double latency_s, size_t bytes, int ranks,
                                      size_t segment_bytes, size_t max_message, double seen_ratio);

int zip_algo_bcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                   const zip_bcast_args_t *args, zip_algo_result_t *result);

/* The segment zip_algo_bcast cuts `bytes` into: `largest` (a multiple of 8, below INT_MAX), or
 * less, so that a message gets four segments per rank (while they stay 8 KiB or more; where
 * several ranks share a core, ranks_per_core > 1, 8 KiB times that, up to 32 KiB) and at least
 * one (down to ZIP_BCAST_MIN_SEGMENT, unless `largest` is below it) and takes the pipelined
 * chain. */
size_t zip_bcast_segment_bytes(size_t bytes, int ranks, size_t largest, double ranks_per_core);
enum { ZIP_BCAST_MIN_SEGMENT = 2048 };

/* One block going to, or coming from, one peer: a byte view (ptr, bytes), or a block in the
 * caller's own layout (typed: the transport's handle, bytes: its size in bytes, ptr: NULL until
 * the algorithm asks the transport's byte_view for it). */
typedef struct zip_block {
    void *ptr;
    size_t bytes;
    void *typed; /* NULL: the block is its byte view */
} zip_block_t;

/*
 * Inter-step coding for alltoallv (algo/temporal_streams.hpp, docs/design.md "Temporal
 * streams"): per peer and direction the block that last took the compressed path, at both ends.
 * A block longer than memory / (2 (size - 1)) bytes is not kept, so the references of `size`
 * ranks hold at most `memory` bytes. NULL when memory is short.
 */
typedef struct zip_algo_temporal zip_algo_temporal_t;
/* coll_zip_alltoallv_temporal and the Info key zip_alltoallv_temporal: "off" 0, "auto" 1, -1
 * for anything else. */
int zip_algo_temporal_mode_parse(const char *name);
zip_algo_temporal_t *zip_algo_temporal_create(int size, size_t memory);
void zip_algo_temporal_destroy(zip_algo_temporal_t *t);
/* Bytes the references hold now. */
size_t zip_algo_temporal_bytes(const zip_algo_temporal_t *t);
/* Blocks sent as delta frames, and as plain frames while a reference was held (for statistics
 * and tests). */
void zip_algo_temporal_counts(const zip_algo_temporal_t *t, uint64_t *delta_frames,
                              uint64_t *plain_frames);

/* What a sender's last sample in a blocking neighbourhood call of one kind said
 * (algo/neighbor.cpp): after a sample that said raw, the sender's next calls skip the codec
 * and its sample until the 16th, which samples again (a halo exchange repeats every time step
 * with data of the same kind; at 400 Gbit/s in nodes of 32 the 64 KiB sample alone cost a tenth
 * of a call). The choice is this sender's alone, as every sample's is: its frames, or their
 * absence, tell the receivers. Zeroed: sample at the next call. */
typedef struct zip_algo_sender_memo {
    unsigned raw_calls_left;
} zip_algo_sender_memo_t;
#define ZIP_ALGO_RAW_CALLS_AFTER_SAMPLE 15

/*
 * Alltoallv and gatherv split the blocks of a call: a block is plain, never compressed and moved
 * as is (in the caller's layout when the transport can), when it is
 *   - below `threshold` (or a single byte): nothing would pay there, and the compressed path's
 *     latency would show;
 *   - between two ranks on one node (peer_on_node[peer]): shared memory beats any codec;
 *   - longer than the transport's max_message.
 * Both ends of a block know all three, so both agree; a plain receive that brings another
 * length is ZIP_ALGO_ERR_LENGTH. Plain blocks are all posted at once (receives first) before the
 * compressed schedule starts, and waited for after it.
 */
typedef struct zip_exchange_args {
    const zip_block_t *send; /* alltoallv: size entries; gatherv: one block (ignored at root) */
    const zip_block_t *recv; /* size entries (gatherv: root only, else NULL) */
    int tag;
    int elem_type;    /* of this rank's send data */
    int try_compress; /* zero sends everything raw */
    size_t threshold; /* blocks below this many bytes are never compressed; identical
                         on every rank, so receivers of such blocks skip the frame check */
    size_t window;    /* alltoallv: pairwise steps in flight (0: chosen from the block sizes
                         and the policy's link rate, see exchange.hpp) */
    const zip_algo_policy_t *policy;
    const bool *peer_on_node; /* size entries, or NULL: no peer shares this rank's node */
    /* Blocking alltoallv only (NULL: off): the communicator's temporal streams, with which a
     * sender may code a block against the previous one it sent the same peer (the codec needs
     * compress_delta and decompress_ref). Every rank must pass streams or none, made with the
     * same memory. Not for the non-blocking calls, which may code one stream's blocks of two
     * calls out of order. */
    zip_algo_temporal_t *temporal;
    int algorithm; /* allgatherv only: ZIP_ALLGATHERV_RING (0) or one of the Bruck forms; the
                      same on every rank */
    size_t root_window_bytes; /* gatherv's root only: keeps receives of about this many bytes
                                 posted, at least two, each next one posted as one completes
                                 (0: every receive at once); ZIP_GATHERV_ROOT_WINDOW_BYTES */
    /* Neighbourhood alltoall(v) only: send[k] goes to send_peers[k] (k < out_degree), recv[k]
     * comes from recv_peers[k] (k < in_degree); a negative peer (MPI_PROC_NULL) moves nothing. */
    int out_degree, in_degree;
    const int *send_peers, *recv_peers;
    /* Neighbourhood calls under policy auto (NULL: none): this sender's memo of its last sample
     * for calls of this kind on this communicator (read and written atomically). */
    zip_algo_sender_memo_t *memo;
} zip_exchange_args_t;

/* A gatherv root's receives in flight (zip_exchange_args_t.root_window_bytes): with every
 * receive posted at once the senders share the root's link and their blocks arrive together at
 * the end, so the root decodes them after the last byte came instead of while the next ones
 * travel (simscale, 64 ranks one per node at 25 Gbit/s, 16 MiB of gauss each: 357 ms, 0.95x of
 * tuned's linear gatherv; with two receives of 16 MiB posted 224 ms, 1.52x). About 1 MiB keeps
 * the link busy at every rate and latency simulated (1-100 Gbit/s, 2-30 us), also for blocks of
 * 64 KiB, where two at a time lost (2.12x -> 1.69x at 10 Gbit/s). Not over Open MPI's TCP BTL,
 * whose connections start slowly again after being idle. */
enum { ZIP_GATHERV_ROOT_WINDOW_BYTES = 1 << 20 };

/* Alltoallv: every rank sends send[p] to p and receives recv[p] from p (self excluded:
 * the glue copies the local block itself); compressed blocks in pairwise steps. */
int zip_algo_alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                       const zip_exchange_args_t *args, zip_algo_result_t *result);

/* Neighbourhood alltoall(v): send[k] to send_peers[k], recv[k] from recv_peers[k], every block
 * compressed once by its sender where that pays (a rank may be a neighbour more than once: both
 * ends post in neighbour order, which MPI's matching keeps). */
int zip_algo_neighbor_alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                const zip_exchange_args_t *args, zip_algo_result_t *result);

/* Gatherv: non-roots send send[0] to the root; the root receives recv[p] from every other p
 * (the root's own block is the glue's business, like MPI_IN_PLACE). */
int zip_algo_gatherv(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                     const zip_exchange_args_t *args, zip_algo_result_t *result);

/* Scatterv: the root sends send[p] to every other p, each compressed once; non-roots receive
 * recv[0] (the root's own block is the glue's business). */
int zip_algo_scatterv(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                      const zip_exchange_args_t *args, zip_algo_result_t *result);

/* Allgatherv: this rank's send[0] reaches every other rank, whose recv[rank] receives it, and
 * this rank receives every recv[p]; a ring of size-1 steps (ring.hpp) or Bruck's ceil(log2 size)
 * steps (bruck.hpp, bruck_steps.hpp), as args->algorithm says. Each block is compressed once by its
 * owner and forwarded as the frame it became, so it is decoded once per receiver. Plain blocks
 * (below the threshold, longer than a byte message) travel as they are; peer_on_node is not used,
 * as every block crosses links to several ranks. */
int zip_algo_allgatherv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                        const zip_exchange_args_t *args, zip_algo_result_t *result);

/* coll_zip_allgatherv_algorithm (allgather and allgatherv, blocking or not): auto
 * (zip_algo_allgatherv_choose), ring or bruck (a message per step for blocks of at most 512 KiB,
 * bruck_steps.hpp, else a message per block, bruck.hpp; bruck_blocks and bruck_steps force
 * either); HAND_ON: the chooser's "neither: the previous component". */
enum {
    ZIP_ALLGATHERV_RING = 0,
    ZIP_ALLGATHERV_BRUCK = 1,
    ZIP_ALLGATHERV_AUTO = 2,
    ZIP_ALLGATHERV_HAND_ON = 3,
    ZIP_ALLGATHERV_BRUCK_BLOCKS = 4,
    ZIP_ALLGATHERV_BRUCK_STEPS = 5
};
/* The ZIP_ALLGATHERV_* a name stands for (NULL: auto), -1 for anything else. */
int zip_allgatherv_algorithm_parse(const char *name);

/* The schedule for an allgatherv whose rank p contributes bytes_of(ctx, p) bytes, over links
 * of link_Bps per node with latency_s between nodes. The ring wherever zip_algo_ring_suits (its
 * latencies within 1/32 of its wire time; also where link or latency is unknown, 0). Elsewhere
 * ZIP_ALLGATHERV_HAND_ON unless every rank has a core of its own (agreed->ranks_per_core at
 * most 1, 0 counting as a core each as for bcast's segments; agreed NULL: nothing agreed, no);
 * then the faster by a store-and-forward model of the wire, ranks placed by node,
 * agreed->ranks_per_node of them: the ring takes (size - 1) (latency + largest block / rate),
 * since the largest block is on some link at every step and a node's link carries one block a
 * step; Bruck takes, per step of distance d, a latency plus min(d, ranks_per_node) times the
 * largest sum of the neighbouring blocks one rank receives (that many of a node's ranks have
 * their partner elsewhere) over the rate, twice where pairs_serialise (Open MPI's TCP BTL) and
 * the step is an exchange between two ranks (distance size / 2). The ring on a tie; Bruck
 * (ZIP_ALLGATHERV_BRUCK) where its blocks travel a message per step (none above 512 KiB) or
 * every non-empty block carries at least 8 latencies of wire time, else ZIP_ALLGATHERV_HAND_ON.
 * Also handed on there where zip's faster schedule, raw, is more than 8 % behind tuned's
 * neighbor exchange (size / 2 steps of two blocks each way; with ranks per node above 1,
 * size / 4 steps of four blocks on a node's link), and before Bruck where its owner's sample
 * costs more than 3 % of Bruck's time. seen_ratio (zip_algo_seen_ratio; 0: none) replaces
 * the last two rules, and the ring's by itself, where speeds were agreed, the link and
 * latency are known and pairs do not serialise (the TCP BTL: there zip's ring of segments beat
 * tuned's schedules raw on netemu): zip's schedule (the ring where it suits, else the faster),
 * its wire divided by the ratio, each ring step waiting for a segment's decoding and the whole
 * no faster than decoding every block at agreed->decompress_Bps (Bruck: plus coding the own
 * block first), must be 3 % ahead of the best of ring, Bruck and neighbor
 * exchange raw, else ZIP_ALLGATHERV_HAND_ON. Without a ratio, a call that `records` (a blocking
 * one, zip_algo_seen_t) that the rules would hand on takes zip's path where a ratio of 1.5 would
 * win by that rule (pairs not serialising), so that the calls after it know. The same on every rank
 * given the same arguments; it allocates nothing, so no rank can decide otherwise for lack of
 * memory. */
typedef size_t (*zip_algo_block_bytes_t)(const void *ctx, int p);
int zip_algo_allgatherv_choose(zip_algo_block_bytes_t bytes_of, const void *ctx, int size,
                               const zip_algo_agreed_t *agreed, double link_Bps, double latency_s,
                               int pairs_serialise, double seen_ratio, int records);

/* The ratio the communicator's blocking allgather(v) calls of an element type achieved on zip's
 * path: every block, raw over as it travelled (zip_algo_result_t's gathered_*), which every rank
 * counts alike, averaged half the last call, half the ones before; 0: nothing yet. Only blocking
 * calls record it: each has ended on every rank before any later collective starts there, so every
 * rank reads the same at the same call (a non-blocking call ends at a moment of its own on each
 * rank). A call that failed anywhere may leave the ranks with different records, as MPI leaves the
 * state after an error undefined. */
typedef struct zip_algo_seen {
    double ratio;
    int handed_on; /* calls handed on since, while the ratio was known */
} zip_algo_seen_t;
/* After this many calls handed on while a ratio was known it is forgotten, so that the next
 * call takes zip's path by the rules without it and measures the data again. */
#define ZIP_ALGO_SEEN_RECHECK 16
/* The ratio seen, 0 where nothing was. */
double zip_algo_seen_ratio(const zip_algo_seen_t *seen);
/* Records what a blocking allgather(v) that succeeded moved (res->gathered_*; nothing: no
 * record). */
void zip_algo_seen_record(zip_algo_seen_t *seen, const zip_algo_result_t *res);
/* Counts a call's schedule (ZIP_ALLGATHERV_*) against ZIP_ALGO_SEEN_RECHECK. */
void zip_algo_seen_chosen(zip_algo_seen_t *seen, int algorithm);

/*
 * Alltoall(v) calls on data that nobody codes. Each rank sees only its own blocks, so no rank
 * can tell alone that zip's path brings nothing; at some blocking calls on zip's path the ranks
 * share, with one allreduce, whether any of them sent or received a frame since they last
 * shared (zip_algo_result_t's `compressed`, of blocking and non-blocking calls). Where none did
 * (incompressible data, blocks below the threshold, a link the senders' samples found faster
 * than the codec), zip's path moved every call raw; where the link is fast (the alltoallv
 * window's fast rule, many steps at once) that is what tuned's linear algorithm does without
 * zip's samples, so the next calls are handed on, for a
 * period that doubles from ZIP_ALGO_UNCODED_FIRST to ZIP_ALGO_UNCODED_LONGEST calls while the
 * data stays so, and the ranks share again at the ZIP_ALGO_UNCODED_RECHECK-th blocking call on
 * zip's path after it. Otherwise they share at the 4th, 16th, 64th and 256th blocking call on
 * zip's path and every 1024th after. Every rank counts the same calls (MPI orders the
 * collectives on a communicator alike on every rank, non-blocking ones included), so every
 * rank hands on the same ones.
 */
typedef struct zip_algo_uncoded {
    uint64_t taken;   /* blocking calls zip's path took */
    unsigned hand_on; /* calls still to hand on */
    unsigned period;  /* the last period handed on (0: none since data was coded) */
    unsigned recheck; /* after a period: blocking calls on zip's path until the ranks share */
    int coded;        /* this rank sent or received a frame since they last shared */
} zip_algo_uncoded_t;
#define ZIP_ALGO_UNCODED_FIRST 16
#define ZIP_ALGO_UNCODED_LONGEST 256
#define ZIP_ALGO_UNCODED_RECHECK 4
/* Whether calls under `policy` keep the record: policy auto (always asks for zip's path) on a
 * link of at least 3 Gbit/s per rank. On slower links zip's few steps at a time move raw data
 * faster than tuned's default, which posts every transfer at once (netemu, 8 ranks at 1 Gbit/s,
 * random data: 1.05-1.26x), and the calls stay on zip's path. */
bool zip_algo_uncoded_applies(const zip_algo_policy_t *policy);
/* At every call (blocking or not) that zip would take: whether it is handed on instead. */
bool zip_algo_uncoded_hands_on(zip_algo_uncoded_t *u);
/* At a blocking call that takes zip's path: whether the ranks share after it. */
bool zip_algo_uncoded_shares(zip_algo_uncoded_t *u);
/* A call on zip's path ended (a non-blocking one may end while another thread shares: an
 * atomic store) having sent or received a frame on this rank or not. */
void zip_algo_uncoded_record(zip_algo_uncoded_t *u, bool coded);
/* This rank's share: whether it coded since the ranks last shared. */
bool zip_algo_uncoded_mine(const zip_algo_uncoded_t *u);
/* What they shared: whether any rank coded since they last did. */
void zip_algo_uncoded_shared(zip_algo_uncoded_t *u, bool any_coded);

/* The reduction operator of an allreduce or reduce: inout = in op inout, elementwise over
 * `bytes` bytes (a whole number of elements). The glue binds it to an MPI operation. */
typedef struct zip_reduce_ops {
    void *ctx;
    size_t elem_bytes; /* chunks are cut between elements */
    void (*reduce)(void *ctx, const void *in, void *inout, size_t bytes);
    /* Copies `bytes` of this rank's contribution to where a reduce chain reduces into it;
     * NULL: memcpy. (perftest/simscale charges the copy's time here.) */
    void (*copy)(void *ctx, void *dst, const void *src, size_t bytes);
} zip_reduce_ops_t;

typedef struct zip_allreduce_args {
    void *buf;    /* this rank's contribution on entry; the result on return (reduce: at the
                     root, other ranks' buf is clobbered) */
    size_t bytes; /* identical on every rank */
    int tag;
    int elem_type;
    size_t threshold; /* chunks below this many bytes travel raw; identical on every rank */
    size_t segment;   /* reduce and scans: the chain's segment, identical on every rank
                         (zip_algo_reduce_segment; 0: the rule's with a 16 KiB floor) */
    const zip_algo_policy_t *policy;
    const zip_reduce_ops_t *reduce;
    /* peer_on_node[p]: rank p shares this rank's node, so what goes to it is not compressed
     * (frames received from elsewhere are forwarded as they are). NULL: every peer remote. */
    const bool *peer_on_node;
    int algorithm; /* allreduce only: ZIP_ALLREDUCE_RING (0) or ZIP_ALLREDUCE_HALVING; the same
                      on every rank */
    /* reduce and scans: this rank's contribution, read and never written, when it is not in
     * buf; buf then receives the result (reduce: at the root, and may be NULL elsewhere). NULL:
     * buf holds it (and a reduce clobbers it off the root). */
    const void *contribution;
    /* reduce-scatter only: block c's bytes (rank c's result), block c following block c - 1 in
     * buf; identical on every rank. */
    const size_t *block_bytes;
} zip_allreduce_args_t;

/* coll_zip_allreduce_algorithm: auto (zip_algo_allreduce_choose), ring or halving; HAND_ON:
 * zip_algo_allreduce_choose's "neither: the previous component". */
enum {
    ZIP_ALLREDUCE_RING = 0,
    ZIP_ALLREDUCE_HALVING = 1,
    ZIP_ALLREDUCE_AUTO = 2,
    ZIP_ALLREDUCE_HAND_ON = 3
};
/* The ZIP_ALLREDUCE_* a name stands for (NULL: auto), -1 for anything else. */
int zip_allreduce_algorithm_parse(const char *name);

/* Allreduce, by the schedule args->algorithm names. Ring (allreduce_algo.cpp): a ring
 * reduce-scatter of p chunks, whose partial results travel as frames, then a ring allgather that
 * forwards each finished chunk's frame unchanged; chunk c is reduced as
 * (...((x_c op x_{c+1}) op x_{c+2}) ...) op x_{c+p-1}, ranks mod p. Halving
 * (allreduce_halving.cpp): recursive halving and doubling over pof2 virtual ranks (the largest
 * power of two <= p; ranks 2i and 2i+1, i < p - pof2, fold into one as y_i = x_2i op x_2i+1,
 * the others are y_{r - (p - pof2)}), every chunk the balanced tree
 * ((y_0 op y_1) op (y_2 op y_3)) op ... in order. Either way each chunk is reduced on one rank
 * and forwarded, so every rank gets the same bits. */
int zip_algo_allreduce(const zip_transport_t *t, const zip_codec_ops_t *codec,
                       const zip_allreduce_args_t *args, zip_algo_result_t *result);
/* Whether a ring of `steps` steps that moves wire_bytes through each link (bytes/s link_Bps,
 * latency_s between nodes) suits a call: its latencies must stay within 1/32 of its wire time,
 * where tuned's recursive algorithms pay log2 p of them (ring.cpp says why). link_Bps or
 * latency_s 0 (unknown): it suits. The same on every rank given the same arguments; a call it
 * does not suit goes to the previous component. */
bool zip_algo_ring_suits(size_t wire_bytes, int steps, double link_Bps, double latency_s);

/* The schedule for an allreduce of `bytes` on `size` ranks (link_Bps, latency_s as above): the
 * ring wherever its 2 (p - 1) latencies stay within 1/32 of its wire time (zip_algo_ring_suits;
 * also where link or latency is unknown, 0); beyond that recursive halving where a simple model
 * finds it faster than the ring (2 (p - 1) latencies and 2 (p - 1) / p of the vector through
 * each link for the ring, 2 log2 pof2 latencies and 2 (pof2 - 1) / pof2 for halving, plus two
 * latencies and twice the vector where p is not a power of two: the fold), else
 * ZIP_ALLREDUCE_HAND_ON. The ring first because halving's steps are exchanges both ways
 * between two ranks, which Open MPI's TCP BTL serialises (netemu, 8 ranks at 1 Gbit/s, 4 MiB:
 * halving 92-142 ms, the ring 62-90, tuned's own rabenseifner 142); pairs_serialise nonzero
 * (ob1 over the TCP BTL): never halving, ring or hand-on as the ring rule says (simscale
 * --tcp-btl-pairs, 64 ranks at 1 Gbit/s, 4 MiB of random doubles: halving 99 ms, tuned 70).
 * With several ranks per node (agreed; NULL: one) the model counts what each node's NIC carries:
 * the ring's hops that leave the node, and halving's steps between nodes, where every rank of
 * the node sends at once but only 1 / run of the vector is left (run: the node's ranks that
 * follow each other, from agreed->chain_local_share); there the ring goes first only where it
 * is also the faster (2 nodes of 32 at 1 Gbit/s, 16 MiB: the ring 271 ms, halving 138).
 * The same on every rank given the same arguments. */
int zip_algo_allreduce_choose(size_t bytes, int size, double link_Bps, double latency_s,
                              int pairs_serialise, const zip_algo_agreed_t *agreed);

/* Reduce-scatter (allreduce_algo.cpp): the allreduce ring's first half on the blocks of
 * args->block_bytes, after which block c is rank c's, in buf at its place (the other blocks of
 * buf are clobbered); block c is reduced from rank c + 1 onwards,
 * (...((x_{c+1} op x_{c+2}) op x_{c+3}) ...) op x_{c+p}, ranks mod p, ending with rank c's own.
 * args->algorithm is not read. The non-blocking form: zip_algo_ireduce_scatter. */
int zip_algo_reduce_scatter(const zip_transport_t *t, const zip_codec_ops_t *codec,
                            const zip_allreduce_args_t *args, zip_algo_result_t *result);

/* Reduce: a pipelined chain from rank root - 1 down to the root (reduce_chain.cpp), each
 * segment's partial result travelling as a frame where it shrinks; every element is
 * x_root op (x_root+1 op (... op x_root+p-1)). args->buf is every rank's contribution and,
 * on return, the root's result; the other ranks' buffers are overwritten. */
int zip_algo_reduce(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                    const zip_allreduce_args_t *args, zip_algo_result_t *result);
/* Scan (exclusive false) and exscan (true): the same chain from rank 0 up, every rank keeping
 * its prefix in args->buf: scan(i) = (...((x_0 op x_1) op x_2) ...) op x_i, exscan(i) the same
 * up to x_i-1 (rank 0's buffer is not written and may be NULL), as Open MPI's linear scan and
 * exscan. args->contribution: this rank's x_i where it is not in buf (NULL: buf holds it, in
 * place); args->segment: the chain's segment, as reduce's. The non-blocking form:
 * zip_algo_iscan. */
int zip_algo_scan(const zip_transport_t *t, const zip_codec_ops_t *codec, bool exclusive,
                  const zip_allreduce_args_t *args, zip_algo_result_t *result);
/* The reduce chain's smallest segment on a link of link_Bps bytes/s with latency_s between
 * nodes, ranks_per_core ranks per core (the agreed most; 0: unknown, a core each): 8 KiB where
 * each rank has a core and the segments a hop keeps in flight cover a latency, else (or with
 * link or latency unknown, 0) 16 KiB (reduce_chain.cpp says why). The same on every rank given
 * the same arguments, as the chain's segments must be. */
size_t zip_algo_reduce_segment_floor(double link_Bps, double latency_s, double ranks_per_core);
/* Whether the chain suits a reduce of `bytes` on `size` ranks with segments of at least
 * segment_floor bytes: at least 2.5 segments per hop (reduce_chain.cpp says why). The same on
 * every rank given the same arguments; a reduce it does not suit goes to the previous
 * component. */
bool zip_algo_reduce_suits(size_t bytes, int size, size_t elem_bytes, size_t segment_floor);
/* Whether the chain suits a scan (or exscan) of `bytes` on `size` ranks: Open MPI's scans move
 * the whole message per step, so the chain's fill matters less than a reduce's. With the link
 * rate (bytes/s) and latency known, the chain's S + size - 2 segment times and size - 1
 * latencies against `share` of recursive doubling's ceil(log2 size) steps of the whole message
 * and a latency each; without them zip_algo_reduce_suits' rule. The same on every rank given
 * the same arguments. */
bool zip_algo_scan_suits(size_t bytes, int size, size_t elem_bytes, size_t segment_floor,
                         double link_Bps, double latency_s, double share);
/* The share of Open MPI's time (zip_algo_scan_suits) within which a scan whose hops cannot
 * compress (a link faster than the codec) runs zip's chain raw instead of going to the previous
 * component: its pipeline alone is then the gain, which only the model has measured here. */
#define ZIP_SCAN_RAW_SHARE 0.5
/* Where a scan goes, for coll/zip and perftest/simscale alike: the chain compressed where its
 * hops may compress (the route took the call and zip_algo_reduce_may_compress) and it suits;
 * else raw where the route found the link faster than the codec (link_faster) or the hops
 * cannot compress, if there are 3 ranks or more, every rank has a core (own_core: the agreed
 * ranks per core at most 1) and it suits within ZIP_SCAN_RAW_SHARE; else the previous
 * component's, slower_than_doubling or link_faster. */
typedef enum {
    ZIP_SCAN_CHAIN,
    ZIP_SCAN_CHAIN_RAW,
    ZIP_SCAN_HAND_ON_SLOWER,
    ZIP_SCAN_HAND_ON_LINK_FASTER
} zip_scan_route_t;
zip_scan_route_t zip_algo_scan_route(bool link_faster, bool may_compress, bool own_core,
                                     size_t bytes, int size, size_t elem_bytes,
                                     size_t segment_floor, double link_Bps, double latency_s);
/* The reduce chain's segment for `bytes` on `size` ranks, given the floor above: the rule's
 * (bytes / (8 (size - 1)) between the floor and 48 KiB) or, where the link rate, the latency
 * between nodes and the agreed speeds are known (agreed not NULL) and every rank has a core,
 * the one of 8-48 KiB, not below the floor, whose worst loss against the fastest for raw data
 * and for data that shrinks by 1.5x is least by the chain's cost model (docs/design.md,
 * "Allreduce and reduce"), where that is at least 3 % below the rule's. The same on every rank
 * given the same arguments, as the chain's segments must be. */
size_t zip_algo_reduce_segment(size_t bytes, int size, size_t elem_bytes, size_t segment_floor,
                               double link_Bps, double latency_s, const zip_algo_agreed_t *agreed);
/* What halving's allgather judges its chunks by, on `size` ranks: the call's policy as one shot
 * whose encoder is `size` times as fast, as a rank encodes only its own chunk and decodes what
 * comes from other nodes (allreduce_halving.cpp). */
zip_algo_policy_t zip_algo_halving_gather_policy(const zip_algo_policy_t *call, int size);
/* What a reduce chain's hop judges its samples by, with segments of `segment` bytes: the call's
 * policy whose coding also carries the segment's two messages (ZIP_BCAST_MESSAGE_COST_NS each),
 * as the hop receives, decodes, reduces, encodes and sends each segment on its one core while
 * raw it only receives, reduces and sends (reduce_chain.cpp). */
zip_algo_policy_t zip_algo_reduce_hop_policy(const zip_algo_policy_t *call, size_t segment);
/* Whether a reduce chain with segments of `segment` bytes could ever compress under `call`
 * (NULL: policy always, yes): not where, even at the best ratio, a hop's coding and messages
 * take longer than a raw segment's wire (zip_algo_reduce_hop_policy). A call that could not goes
 * to the previous component, whose pipeline is faster than zip's raw chain. The same on every
 * rank given the same arguments. */
bool zip_algo_reduce_may_compress(const zip_algo_policy_t *call, size_t segment);

/* ---- Non-blocking: an algorithm in progress over a transport with `test` ---- */
typedef struct zip_algo_call zip_algo_call_t;

/* Starts an allreduce (nothing runs until the first advance); NULL when memory is short.
 * t, codec, args (and what they point to) and result must outlive the call. */
zip_algo_call_t *zip_algo_iallreduce(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                     const zip_allreduce_args_t *args, zip_algo_result_t *result);
zip_algo_call_t *zip_algo_ireduce(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                                  const zip_allreduce_args_t *args, zip_algo_result_t *result);
zip_algo_call_t *zip_algo_iscan(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                bool exclusive, const zip_allreduce_args_t *args,
                                zip_algo_result_t *result);
zip_algo_call_t *zip_algo_ireduce_scatter(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                          const zip_allreduce_args_t *args,
                                          zip_algo_result_t *result);
/* Starts a broadcast, likewise. */
zip_algo_call_t *zip_algo_ibcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                 const zip_bcast_args_t *args, zip_algo_result_t *result);
/* Start alltoallv, gatherv, scatterv and allgatherv, likewise: the blocking algorithms' schedules
 * (one code path), suspended while their transfers are in flight. */
zip_algo_call_t *zip_algo_ialltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                     const zip_exchange_args_t *args, zip_algo_result_t *result);
/* Starts a neighbourhood alltoall(v) likewise (allgather(v): the same block in every send). */
zip_algo_call_t *zip_algo_ineighbor_alltoallv(const zip_transport_t *t,
                                              const zip_codec_ops_t *codec,
                                              const zip_exchange_args_t *args,
                                              zip_algo_result_t *result);
zip_algo_call_t *zip_algo_igatherv(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                                   const zip_exchange_args_t *args, zip_algo_result_t *result);
zip_algo_call_t *zip_algo_iscatterv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                    int root, const zip_exchange_args_t *args,
                                    zip_algo_result_t *result);
zip_algo_call_t *zip_algo_iallgatherv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                      const zip_exchange_args_t *args, zip_algo_result_t *result);
/* Runs the call as far as its completed requests allow (codec work included): 1 once it has
 * finished, else 0. */
int zip_algo_call_advance(zip_algo_call_t *call);
/* The finished call's ZIP_ALGO_ code; releases the call. */
int zip_algo_call_finish(zip_algo_call_t *call);

/* The codec seam on libzipcodec: `codec` compresses and decodes, every call timed into
 * codec_ns and, where `meter` is set, counted there too (codec_meter.h); the first failed
 * decode's status is kept in `failed`. corrupt_every N > 0 (testing the error path) flips a
 * byte of every Nth frame this process makes. */
struct zip_codec_meter;
typedef struct zip_algo_codec_binding {
    zip_ctx_t *codec;
    int corrupt_every;
    struct zip_codec_meter *meter;
    uint64_t codec_ns;
    zip_status_t failed;
} zip_algo_codec_binding_t;
/* Fills ops to use binding (whose codec and corrupt_every the caller sets). */
void zip_algo_codec_bind(zip_codec_ops_t *ops, zip_algo_codec_binding_t *binding);

/* Policy observe: the seconds compressing `bytes` with `policy` would save, judged on the first
 * 64 KiB of sample (0 if it would not pay). */
double zip_algo_observe_saving(const zip_codec_ops_t *codec, const zip_algo_policy_t *policy,
                               int elem_type, const void *sample, size_t sample_bytes,
                               size_t bytes);

/*
 * The link rates the cost model starts from, in bytes/s, measured with short ping-pongs (256 KiB,
 * then 1 MiB when that looks fast, else 128 KiB for a slope; the best of 8 rounds) to two partners,
 * rank^1 and rank^h (h about half the size, which with block placement reaches another node). Every
 * rank calls it at once. link[ZIP_PEER_LOCAL] / link[ZIP_PEER_REMOTE] (by peer_on_node, NULL: all
 * remote) rise to the best rate this rank timed; the higher rank of a pair times nothing, and of
 * the pairs that cross one node's NIC in a round only one times it (zip_algo_probe_leads_node), so
 * a remote rate is the NIC's, not a share of it. wanted[cls] (NULL: both) says which classes
 * this rank needs timed; a pair skips a round whose class neither end wants (a rate given as a
 * parameter: timing it would only cost time, about 0.05 s at 1 Gbit/s), and times it if either
 * end wants it, so ends that disagree still meet.
 */
int zip_algo_probe_links(const zip_transport_t *t, int tag, const bool *peer_on_node,
                         const bool wanted[2], double link[2]);

/*
 * The peer classes whose rate this rank may time in zip_algo_probe_links (times[ZIP_PEER_LOCAL],
 * times[ZIP_PEER_REMOTE]): those of the partners it is the lower rank of, in the rounds where
 * its pair leads (on-node pairs; across nodes, zip_algo_probe_leads_node's). Every class the
 * probe fills in is named; a second round that both ends' first rounds made needless (a class
 * timed already) is named too, as this rank cannot tell.
 */
void zip_algo_probe_times(int rank, int size, const bool *peer_on_node, bool times[2]);

/*
 * Whether this rank is the lowest of its node whose partner in the round of rank ^ bit
 * (< size) is on another node. Only that rank's pair times the node's NIC in the round: the
 * node's other pairs would cross the same NIC at the same time, each seeing a varying share of
 * it (netemu, 2 nodes of 4 ranks at 1 Gbit/s: every pair timing at once and the best round
 * scaled by 4 read the 125 MB/s port as 384-420 MB/s, and took the first collective 515-626
 * ms). true without locality (peer_on_node NULL: every rank alone on its node).
 */
bool zip_algo_probe_leads_node(int rank, int size, int bit, const bool *peer_on_node);

/* Frees the algorithms' working memory that is kept between calls (raw_buffer.hpp): at most
 * 64 MiB (zip_algo_set_buffer_cache) in up to 4 buffers of 256 KiB or more. The component's
 * close. */
void zip_algo_release_buffers(void);

/* At most `bytes` of that memory is kept from now on (0: none; coll_zip_buffer_cache); what
 * is kept beyond it is freed now. */
void zip_algo_set_buffer_cache(size_t bytes);

/* At least n bytes of that memory (kept or new), for the glue's packed blocks: *capacity gets
 * its size, which zip_algo_buffer_give takes back with it. NULL (n 0, or memory short). */
void *zip_algo_buffer_take(size_t n, size_t *capacity);
void zip_algo_buffer_give(void *p, size_t capacity);

/* Bytes of that memory kept now (MPI_T coll_zip_buffer_cache_bytes). */
size_t zip_algo_buffer_cache_held(void);

#ifdef __cplusplus
}
#endif

#endif /* ZIP_COLL_ALGO_ZIP_ALGO_H */
