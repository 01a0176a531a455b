// coll/zip's glue around its algorithms, as ompi-coll-zip/*.c does it, for simulated ranks:
// the threshold, the policy's routing of a call (the speed probe, the agreement on speeds,
// zip_policy_decide), plain blocks (below the threshold or between two ranks of one node) and
// the local copies. The algorithms themselves are zip's own (libzipcollalgo) running on the
// simulated transport and codec.
#pragma once

#include <cstddef>
#include <vector>

#include "rank_env.hpp"
#include "zip_algo.h"

namespace simscale
{

// coll/zip's MCA parameters that shape a call (their defaults are the component's).
struct ZipSettings {
    size_t threshold = 16384;                       // coll_zip_threshold
    size_t segment = 49152;                         // coll_zip_segment_size
    size_t window = 0;                              // coll_zip_alltoallv_window (0: automatic)
    zip_policy_mode_t mode = ZIP_POLICY_AUTO;       // coll_zip_policy
    int bcast_algorithm = ZIP_BCAST_ALGORITHM_AUTO; // coll_zip_bcast_algorithm
    double bcast_latency_s = -1.0; // coll_zip_bcast_latency_us; below 0: the platform's latency
    int allreduce_algorithm = ZIP_ALLREDUCE_AUTO;   // coll_zip_allreduce_algorithm
    int allgatherv_algorithm = ZIP_ALLGATHERV_AUTO; // coll_zip_allgatherv_algorithm
    // What coll/zip finds when ob1 runs over the TCP BTL: exchanges of a pair serialise (the
    // platform's --tcp-btl-pairs).
    bool pairs_serialise = false;
    double link_Bps = 0.0; // coll_zip_link_gbps_remote (0: measured; bcast's model only)
    // The bcast chain's segment as coll/zip plans it (the cost model's from agreed speeds);
    // false: zip_bcast_segment_bytes's rule alone, as before (simscale --bcast-segment rule).
    bool segment_by_model = true;
    // The ranks per node the component agrees on (its bcast model's NIC sharing); the platform's.
    int ranks_per_node = 1;
};

// What the ranks agree on at the first call that needs the speeds (coll_zip_policy.c): the
// component's own record of it (zip_algo.h), so that bcast's plan reads the same values.
using Agreed = zip_algo_agreed_t;

// The share zip_coll_chain_local_share gives, least over the ranks, with `node_of` each rank's
// node: what the component's ranks agree on.
double least_chain_local_share(const std::vector<int> &node_of);

// One rank's link measurement: ping-pongs of 256 KiB (then 1 MiB on a link faster than
// 200 MB/s) with rank^1 and rank^h, h about half the size. Raises link[class] to the rate.
// Every rank must run it at the same time.
void probe_links(const RankEnv &env, double link[2]);

// Where the call goes: the verdict of coll/zip's route (ZIP_VERDICT_COMPRESS: zip's path;
// anything else: the previous component) and the policy the algorithms get.
struct Route {
    zip_verdict_t verdict = ZIP_VERDICT_NEVER;
    zip_algo_policy_t policy{};
    Agreed agreed{}; // what the route was decided from (bcast's plan reads it)
    int allreduce_algorithm = ZIP_ALLREDUCE_RING;   // an allreduce's schedule (ZIP_ALLREDUCE_*)
    size_t reduce_segment_floor = 0;                // a reduce chain's smallest segment
    size_t reduce_segment = 0;                      // and the one it runs (0: the rule's)
    int allgatherv_algorithm = ZIP_ALLGATHERV_RING; // an allgather(v)'s (ZIP_ALLGATHERV_*)
    double bcast_seen_ratio = 0.0; // what a bcast's plan weighs (zip_bcast_route_seen)
    bool takes() const { return verdict == ZIP_VERDICT_COMPRESS; }
};
// seen_ratio: what the communicator's last blocking allgather(v) or bcast achieved (0: none),
// weighed by an allgather(v)'s schedule under policy auto (zip_algo_allgatherv_choose) and by a
// bcast's plan once speeds are agreed (zip_bcast_route_seen, as coll_zip_bcast.c).
Route route_call(const Workload &w, int nodes, const Agreed &agreed, const ZipSettings &s,
                 double seen_ratio = 0.0);

// What one rank's part of the call did.
struct ZipRankResult {
    int error = 0; // a ZIP_ALGO_ERR_* code or a transport error
    bool ran_algorithm = false;
    zip_algo_result_t algo{};
};

// One rank's part of a call on zip's path, as `route` has it. try_compress false is zip-raw:
// zip's algorithms with nothing compressed. `dummy` is read-only memory of at least w.largest()
// bytes that stands in for every buffer.
ZipRankResult run_zip_call(const RankEnv &env, const ZipSettings &s, const Route &route,
                           bool try_compress, char *dummy);

} // namespace simscale
