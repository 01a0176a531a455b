// Point-to-point schedules for blocks that may travel as frames (see block_codec.hpp), and the
// plain blocks that travel beside them (see zip_algo.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "block_codec.hpp"
#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

// The plain blocks of one call: every receive posted, then every send, all at once before the
// compressed schedule starts (as coll/basic's linear algorithms move blocks), and waited for
// after it. A receive that brings another length than its block's is ZIP_ALGO_ERR_LENGTH.
class PlainBlocks
{
  public:
    // Sorts one block (to `peer` when sending, else from it): a plain one is kept here, a
    // block that may be compressed comes back in *coded with its byte view (made now for a
    // block in the caller's layout). An empty block goes nowhere (*coded stays empty).
    int place(const zip_transport_t *t, const BlockPolicy &policy, const zip_block_t &block,
              int peer, bool sending, Transfer *coded);

    bool empty() const { return recvs_.empty() && sends_.empty(); }
    int post(const zip_transport_t *t, int tag);
    // Waits for every posted request (a coroutine, task.hpp).
    Task finish(const zip_transport_t *t, zip_algo_result_t *res);

  private:
    struct Entry {
        int peer;
        zip_block_t block;
    };
    std::vector<Entry> recvs_, sends_;
    std::vector<zip_req_t> reqs_; // receives, then sends; the first posted_ are active
    size_t posted_ = 0;
};

// The byte view of a block that may be compressed: its ptr, or one the transport makes of the
// block in the caller's layout.
int byte_view(const zip_transport_t *t, const zip_block_t &block, bool sending, char **bytes);

// Copies n bytes through the transport's copy where it has one (a simulator charges the time
// and leaves the memory alone), else with memcpy.
void transport_copy(const zip_transport_t *t, void *dst, const void *src, size_t n);

// A coalesced run of blocks travels as two messages: their wires' lengths, a word each, then the
// wires back to back (bcast's scatter-allgather, allgather's Bruck steps, allreduce's halving
// windows).
using WireLen = uint32_t;

// Whether the lengths of n blocks arrived whole in `got` bytes, each a wire its block can be
// (fits(i, len): block i's); *wires, where given, gets their sum.
template <class Fits>
bool wire_lengths_valid(const WireLen *lens, int n, size_t got, Fits fits, size_t *wires = nullptr)
{
    bool valid = got == sizeof(WireLen) * size_t(n);
    size_t sum = 0;
    for (int i = 0; i < n && valid; ++i) {
        valid = fits(i, size_t(lens[i]));
        sum += lens[i];
    }
    if (wires != nullptr)
        *wires = sum;
    return valid;
}

// One block of an allgather (ring.hpp, bruck.hpp), which crosses links to several ranks.
struct GatherBlock {
    zip_block_t block{};
    char *bytes = nullptr; // byte view, when not plain
    bool plain = true;
};

// Sets x to `block`: plain where policy says so for any peer (peer_on_node unset: a block
// crosses links to several ranks), else with its byte view (`own`: this rank's, which it sends).
// Returns ZIP_ALGO_OK or the byte view's error.
int place_gather_block(const zip_transport_t *t, const BlockPolicy &policy,
                       const zip_block_t &block, bool own, GatherBlock *x);

// A send still in the caller's layout (Transfer::typed), at its turn: posted as it is where the
// sender no longer compresses (*posted set, its bytes counted in res; the PML packs it as it
// sends), else given its bytes in s.ptr for coding: `packed` where the same block was packed
// already, else its byte view made now, while the sends before it travel. ZIP_ALGO_ codes.
int send_or_pack_typed(const zip_transport_t *t, bool compressing, Transfer &s, int tag,
                       char *packed, zip_req_t *req, zip_algo_result_t *res, bool *posted);

// Posts a block as it is: in the caller's layout when the transport can, else as its bytes.
int post_as_is(const zip_transport_t *t, const zip_block_t &block, int peer, int tag, bool sending,
               zip_req_t *req);

// On two ranks a gatherv or scatterv sender's block is the whole transfer, and coding it whole
// leaves nothing to overlap: compress, send, decode one after the other (zip.h's one-shot
// shape). From 2 x kSegmentMin such a block travels in segments instead, each coded, sent and
// decoded on its own, so that one segment's codec work overlaps another's transfer (netemu,
// 2 ranks at 10 Gbit/s, a core each, smooth data: 1 MiB 0.71 ms against 0.92 coded whole and
// 0.98 raw; 16 MiB 12.2 ms against 18.0 and 16.8). About 8 segments of 128 KiB-1 MiB, a
// multiple of 64 KiB (so of every element size); both ends cut a block of the same length
// alike. Not alltoallv's blocks: two ranks exchanging segments both ways lost to whole blocks
// over Open MPI's TCP transport (1 MiB of smooth data compressed 0.63 ms, against 0.53 whole in
// a run earlier the same day; 16 MiB of random data, raw after the sample, 14.2 ms against 10.3
// handed on, in one run).
inline constexpr size_t kSegmentMin = 128 * 1024;
inline constexpr size_t kSegmentMax = 1024 * 1024;

// The segment length for a coded block of `bytes` on `size` ranks; 0: the block goes whole.
size_t segment_bytes(int size, size_t bytes);

// Appends `block` to *out cut into segments of `seg` bytes (the last one shorter), or whole
// where seg is 0.
void append_segments(const Transfer &block, size_t seg, std::vector<Transfer> *out);

// `policy` with its shape set to `shape`, copied into *storage; nullptr stays nullptr.
const zip_algo_policy_t *with_shape(const zip_algo_policy_t *policy, zip_transfer_shape_t shape,
                                    zip_algo_policy_t *storage);

// Every receive posted at its raw length (or the first recv_window of them, the next as each
// completes), then every block compressed and sent, then frames decoded in arrival order. Suits
// gatherv, where only the root receives.
struct ExchangePlan {
    std::vector<Transfer> sends; // in the order they should go out
    std::vector<Transfer> recvs; // in the order they should be posted
    size_t recv_window = 0;      // receives kept posted, each next as one completes (0: all)
    PlainBlocks plain;
    int tag = 0;
    BlockPolicy policy;
};

Task run_exchange(const zip_transport_t *t, const zip_codec_ops_t *codec, ExchangePlan &plan,
                  zip_algo_result_t *res);

// Pairwise steps: at step k a rank sends steps[k].send and receives steps[k].recv, with at most
// `window` steps in flight, decoding step k's frame while later steps transfer. Every rank
// must use the same number of steps, and step k of rank r must pair with step k of its peers
// (alltoallv: send to r+k, receive from r-k). A block of 0 bytes is skipped.
struct Step {
    Transfer send;
    Transfer recv;
};

struct PairwisePlan {
    std::vector<Step> steps;
    PlainBlocks plain;
    int tag = 0;
    size_t window = 2;
    BlockPolicy policy;
    zip_algo_temporal_t *temporal = nullptr; // alltoallv's streams (zip_exchange_args_t)
};

Task run_pairwise(const zip_transport_t *t, const zip_codec_ops_t *codec, PairwisePlan &plan,
                  zip_algo_result_t *res);

// The link rate (bytes/s, 3 Gbit/s) from which a step or a segment's wire time is short next to
// a message's fixed cost and the latency: alltoallv's window and the ring's raw blocks change
// their way of moving data there (alltoallv_auto_window below, ring.cpp).
inline constexpr double kFastLinkBps = 375e6;

// Alltoallv's window when the caller gives none, from the mean block (per peer the larger
// direction, self excluded) and the link rate each rank's sends get (link_Bps: the call's
// policy speeds, NIC shared among a node's ranks; 0: unknown). Below kFastLinkBps: 2 to
// 4 steps, about one per 32 KiB of the mean block and at most about 2 MiB in flight (on a
// slow TCP link more steps only crowd the ports); from it, up to 16 steps and about 8 MiB in
// flight, of the mean block and of the largest send block, which sizes the frame slots (a step
// there is short next to the latency and the codec's time). 1 on two ranks. Ranks may differ: each
// waits only for its peers' same step.
size_t alltoallv_auto_window(int rank, int size, const zip_block_t *send, const zip_block_t *recv,
                             double link_Bps);

int keep_first(int current, int rc);

// Waits for every request of `reqs` still active (each becomes NULL); the first failure is
// ZIP_ALGO_ERR_TRANSPORT. For sends kept in flight across steps.
Task wait_all(const zip_transport_t *t, std::vector<zip_req_t> &reqs);

// The whole algorithms behind zip_algo_alltoallv, zip_algo_gatherv / zip_algo_scatterv
// (into_root: gatherv) and zip_algo_allgatherv, as tasks: the blocking entry points run them to
// the end, the non-blocking ones (call.cpp) leave them to their caller's progress.
Task alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec, const zip_exchange_args_t *a,
               zip_algo_result_t *res);
Task rooted(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
            const zip_exchange_args_t *a, zip_algo_result_t *res, bool into_root);
Task allgatherv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                const zip_exchange_args_t *a, zip_algo_result_t *res);

// The start of every exchange algorithm: *res reset (no sample taken yet); 1 when there is
// nothing to do (a single rank), ZIP_ALGO_ERR_ARG when `blocks` (the list this rank needs) is
// missing, else ZIP_ALGO_OK.
int begin_exchange(const zip_transport_t *t, const zip_block_t *blocks, zip_algo_result_t *res);

} // namespace zipcoll
