// The MPI-free half of coll/zip's routing (zip_algo.h): from the speeds every rank agreed on
// and how a collective's data flow, the policy a call gets and whether it takes zip's path.
#include <algorithm>

#include "zip_algo.h"

namespace
{

// The size every route is judged on: the model's times are proportional to the bytes, so any
// size gives the same verdict; one fixed size (a power of two: the division by the speeds scales
// exactly) makes that hold to the last bit, on every rank and for every call.
constexpr size_t kRouteBytes = size_t(1) << 20;

} // namespace

// On two ranks an alltoallv sender has one block: nothing overlaps its coding (10 Gbit/s, 2
// ranks, 16 MiB alltoallv of smooth data: 55 ms compressed, 27 ms raw). A gatherv's or
// scatterv's block travels in segments there from 256 KiB (exchange.hpp), a pipeline; a smaller
// one goes whole, and rooted_algo.cpp judges it one-shot. On more ranks a gather(v)'s senders
// compress their whole blocks at once and the root's link and decoder serve them in turn, a
// fan-in; a scatter(v)'s root compresses block after block as its link sends them and each
// receiver decodes its own, a fan-out.
// In an alltoall(v) of more every rank encodes its blocks and decodes its peers' on its one core
// while its link moves both ways (simscale, 64 ranks at 25 Gbit/s, 4 MiB of gauss, codec 4.6 /
// 7.8 GB/s: judged as a pipeline it compressed at 0.95x of raw).
// A hop of a reduce's chain or of an allreduce's ring decodes what arrives, reduces it and
// encodes the result on its one core, so its codec stages add up as an exchange's do (simscale,
// reduce on 64 ranks at 25 Gbit/s, 4 MiB of gauss: judged as a pipeline it compressed at 0.59x of
// tuned's pipeline).
extern "C" zip_transfer_shape_t zip_algo_flow_shape(zip_algo_flow_t flow, int size)
{
    if (flow == ZIP_FLOW_INTO_ROOT && size > 2)
        return ZIP_TRANSFER_FAN_IN;
    if (flow == ZIP_FLOW_OUT_OF_ROOT && size > 2)
        return ZIP_TRANSFER_FAN_OUT;
    if (flow == ZIP_FLOW_INTO_ROOT || flow == ZIP_FLOW_OUT_OF_ROOT)
        return ZIP_TRANSFER_PIPELINED;
    if (flow != ZIP_FLOW_PIPELINE && size <= 2)
        return ZIP_TRANSFER_ONE_SHOT;
    return flow == ZIP_FLOW_ALL_SEND || flow == ZIP_FLOW_REDUCE || flow == ZIP_FLOW_ALLREDUCE
               ? ZIP_TRANSFER_EXCHANGE
               : ZIP_TRANSFER_PIPELINED;
}

extern "C" zip_verdict_t zip_algo_route(zip_policy_mode_t mode, zip_algo_flow_t flow, int size,
                                        const zip_algo_agreed_t *agreed, bool all_remote,
                                        zip_algo_policy_t *out)
{
    *out = zip_algo_policy_t{};
    out->mode = mode;
    out->shape = zip_algo_flow_shape(flow, size);
    if (mode == ZIP_POLICY_NEVER)
        return ZIP_VERDICT_NEVER;
    if (mode == ZIP_POLICY_ALWAYS || agreed == nullptr)
        return ZIP_VERDICT_COMPRESS; // speeds unknown: the sample alone decides
    // Off-node traffic is the bottleneck of a communicator that spans nodes; with all_remote
    // (force_local) every peer counts as remote.
    const int cls =
        (all_remote || agreed->link_Bps[ZIP_PEER_REMOTE] > 0.0) ? ZIP_PEER_REMOTE : ZIP_PEER_LOCAL;
    // Alltoall(v): every rank of a node sends off-node at once, through its one NIC. So do an
    // allreduce's halving steps between nodes, but its ring's hop between nodes has the NIC to
    // itself, so the policy keeps the whole rate and the schedule divides it where it shares
    // (allreduce_halving.cpp); and only on a NIC slower than one core decodes: beyond, what
    // bounds zip's schedules is the copies and reductions on the node, and tuned's pipelines
    // are faster raw than zip's are compressed (simscale, 2 nodes of 32 at 100 Gbit/s, 16 MiB of
    // gauss: taken, 0.77x of tuned's pipeline; at 25 Gbit/s 1.11x, handed on 1.00x).
    const double whole = agreed->link_Bps[cls];
    const bool shares = flow == ZIP_FLOW_ALL_SEND ||
                        (flow == ZIP_FLOW_ALLREDUCE && whole <= agreed->decompress_Bps);
    const int sharing = shares ? std::max(agreed->ranks_per_node, 1) : 1;
    out->speeds.compress_Bps = agreed->compress_Bps;
    out->speeds.decompress_Bps = agreed->decompress_Bps;
    out->speeds.link_Bps = agreed->link_Bps[cls];
    zip_speeds_t judged = out->speeds;
    judged.link_Bps /= double(sharing);
    // A fan's many ends code at once, each on its own core (8 ranks at 1 Gbit/s, 4 MiB gatherv
    // of smooth data: the 4th call's agreement read one sender's compression at 128-156 MB/s while
    // seven compressed at once on 2 cores; against the root's 118 MB/s link as a pipeline's stage
    // the calls were handed on, 250 ms against 163 compressed).
    const bool fan = out->shape == ZIP_TRANSFER_FAN_IN || out->shape == ZIP_TRANSFER_FAN_OUT;
    if (fan)
        judged.ends = std::max(size - 1, 1);
    // The root then decodes every block alone. Until its decoder was timed on the data, it counts
    // as no faster than one sender's encoder: data that shrink far more than the calibration's
    // field decode slower than they encode (simscale, 64-256 ranks at 40-50 Gbit/s, gauss-sorted,
    // ratio 5.7, decoded at 2.8 GB/s against the calibration's 7.8: compressed at 0.39-0.70x of
    // tuned's best), which one sender's encoding stage used to stand for.
    if (out->shape == ZIP_TRANSFER_FAN_IN && !agreed->decompress_seen && judged.compress_Bps > 0.0)
        judged.decompress_Bps = std::min(judged.decompress_Bps, judged.compress_Bps);
    if (flow == ZIP_FLOW_ALL_SEND || fan)
        out->speeds = judged;
    return zip_policy_decide(mode, &judged, kRouteBytes, 0, 0.0, out->shape);
}

// Bcast, scatter(v): the root alone counts. Gather(v): the senders share the root's link one
// after another, so their savings add up. Alltoall(v): every rank sends at once, so each counts
// its share. Allgather(v): every rank's block travels the ring at once, over size - 1 links.
extern "C" double zip_algo_observe_share(zip_algo_flow_t flow, int size)
{
    if (size < 1)
        return 1.0;
    if (flow == ZIP_FLOW_ALL_SEND)
        return 1.0 / double(size);
    if (flow == ZIP_FLOW_RING)
        return double(size - 1) / double(size);
    return 1.0;
}
