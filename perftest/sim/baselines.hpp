// coll/tuned's algorithms for the same calls, written from their published descriptions (Open
// MPI 4.1's coll/base, as tuned forces them with coll_tuned_<op>_algorithm and
// coll_tuned_bcast_algorithm_segmentsize) as programs over the simulated network:
//
//   Bcast      chain (4 chains from the root, tuned 2), pipeline (one chain, tuned 3),
//              binomial (tuned 6), each unsegmented or with 8-256 KiB segments; and
//              scatter-allgather (binomial scatter, recursive-doubling allgather, tuned 8;
//              power-of-two sizes only);
//   Alltoallv  pairwise (tuned 2) and linear (every receive and send posted at once, tuned 1);
//   Gatherv    linear (basic's: the root receives from each rank in rank order; tuned has no
//              gatherv algorithm of its own); Scatterv the same from the root;
//   Scatter    linear (tuned 1), binomial (2), linear_nb (3, every send posted at once);
//   Reduce, Allreduce, Allgather(v), Alltoall, Scan: see baselines_for.
//
// The best of them at a point is the best a user could get from coll/tuned by tuning, the
// baseline perftest/zipbench-sweep measures on netemu.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "rank_env.hpp"
#include "trees.hpp"

namespace simscale
{

struct Baseline {
    std::string name; // e.g. "pipeline-32k", "binomial", "scatter-allgather"
    std::function<void(const RankEnv &)> run;
    // No run of it can be faster (0: no bound). Lets the search skip configurations that
    // cannot beat the best one found so far, which at 1024 ranks are the ones with the most
    // messages to simulate.
    double lower_bound_s = 0;
};

// What the lower bounds know of the platform: where ranks run, and each hop's best case
// (its rate when nothing else shares it, and its latency).
struct HopModel {
    std::function<bool(int, int)> same_node;   // ranks a and b
    std::function<double(int, int)> latency_s; // from rank a to rank b
    double net_Bps = 0;                        // a NIC, each direction
    double node_Bps = 0;                       // between two ranks of one node
};

// The configurations tried for this workload, cheapest to simulate first. Alltoallv's linear
// algorithm is left out above `linear_max_ranks` ranks: it posts P^2 messages at once, which
// the simulator holds in memory.
std::vector<Baseline> baselines_for(const Workload &w, const HopModel &hop, int linear_max_ranks);

} // namespace simscale
