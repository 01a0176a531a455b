// The MPI-free state behind coll/zip's policy (coll_policy.h).
#include "coll_policy.h"

#include <algorithm>
#include <new>
#include <utility>
#include <vector>

namespace
{

// Indexed by context id: -1 unset, else a zip_policy_mode_t. Grown on demand.
std::vector<int8_t> comm_policy;

} // namespace

extern "C" {

void zip_coll_policy_set(uint32_t cid, int mode)
{
    if (cid >= comm_policy.size()) {
        size_t n = comm_policy.empty() ? 64 : comm_policy.size();
        while (n <= cid)
            n *= 2;
        try {
            comm_policy.resize(n, -1);
        } catch (const std::bad_alloc &) {
            return;
        }
    }
    comm_policy[cid] = static_cast<int8_t>(mode);
}

int zip_coll_policy_get(uint32_t cid)
{
    return cid < comm_policy.size() ? comm_policy[cid] : -1;
}

void zip_coll_policy_clear(void)
{
    std::vector<int8_t>().swap(comm_policy);
}

void zip_coll_agree_mine(const double link_Bps[2], double compress_Bps, double decompress_Bps,
                         int ranks_on_node, double chain_local_share,
                         double mine[ZIP_COLL_AGREE_VALUES])
{
    mine[0] = link_Bps[0];
    mine[1] = link_Bps[1];
    mine[2] = -compress_Bps;
    mine[3] = -decompress_Bps;
    mine[4] = ranks_on_node;
    mine[5] = -chain_local_share;
}

zip_algo_agreed_t zip_coll_agree_result(const double all[ZIP_COLL_AGREE_VALUES])
{
    return zip_algo_agreed_t{
        .link_Bps = {all[0], all[1]},
        .compress_Bps = -all[2],
        .decompress_Bps = -all[3],
        .ranks_per_node = static_cast<int>(all[4]),
        .chain_local_share = -all[5],
        .ranks_per_core = 0.0,
        .decompress_seen = 0,
    };
}

double zip_coll_ranks_per_core(const uint64_t *machines, int size)
{
    std::vector<std::pair<uint64_t, uint64_t>> known;
    for (int p = 0; p < size; ++p)
        if (machines[2 * p] != 0 && machines[2 * p + 1] != 0)
            known.emplace_back(machines[2 * p], machines[2 * p + 1]);
    std::sort(known.begin(), known.end());
    double most = 0.0;
    for (size_t i = 0; i < known.size();) {
        size_t j = i;
        while (j < known.size() && known[j].first == known[i].first)
            ++j;
        // Ranks of one machine read the same count; should they differ, the fewest cores count.
        most = std::max(most, double(j - i) / double(known[i].second));
        i = j;
    }
    return most;
}

int zip_coll_ranks_on_node(const bool *peer_on_node, int size)
{
    if (peer_on_node == nullptr)
        return 1;
    int n = 0;
    for (int p = 0; p < size; ++p)
        n += peer_on_node[p] ? 1 : 0;
    return n > 0 ? n : 1;
}

double zip_coll_chain_local_share(const bool *peer_on_node, int rank, int size)
{
    if (peer_on_node == nullptr || size <= 1 || rank < 0 || rank >= size)
        return 0.0;
    const auto on_node = [&](int q) { return q == rank || peer_on_node[q]; };
    int ranks = 0, kept = 0;
    for (int q = 0; q < size; ++q) {
        if (on_node(q)) {
            ++ranks;
            kept += on_node((q + size - 1) % size) ? 1 : 0;
        }
    }
    return double(kept) / double(ranks);
}

} // extern "C"
