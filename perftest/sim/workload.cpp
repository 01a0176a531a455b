#include "workload.hpp"

#include <algorithm>

namespace simscale
{

const char *op_name(Op op)
{
    switch (op) {
    case Op::Bcast:
        return "bcast";
    case Op::Alltoallv:
        return "alltoallv";
    case Op::Gatherv:
        return "gatherv";
    case Op::Reduce:
        return "reduce";
    case Op::Allreduce:
        return "allreduce";
    case Op::Allgatherv:
        return "allgatherv";
    case Op::Alltoall:
        return "alltoall";
    case Op::Allgather:
        return "allgather";
    case Op::Scatterv:
        return "scatterv";
    case Op::Scatter:
        return "scatter";
    case Op::NeighborAlltoall:
        return "neighbor_alltoall";
    case Op::NeighborAlltoall3d:
        return "neighbor_alltoall3d";
    case Op::Scan:
        return "scan";
    }
    return "?";
}

bool parse_op(const std::string &name, Op *op)
{
    for (Op o : {Op::Bcast, Op::Alltoallv, Op::Gatherv, Op::Reduce, Op::Allreduce, Op::Allgatherv,
                 Op::Alltoall, Op::Allgather, Op::Scatterv, Op::Scatter, Op::NeighborAlltoall,
                 Op::NeighborAlltoall3d, Op::Scan})
        if (name == op_name(o)) {
            *op = o;
            return true;
        }
    return false;
}

namespace
{

// MPI_Dims_create's balance: the prime factors of n, largest first, each onto the dimension
// with the smallest product so far; the extents sorted largest first.
std::vector<int> balanced_dims(int n, int dims)
{
    std::vector<int> primes;
    for (int f = 2; n > 1;) {
        if (n % f == 0) {
            primes.push_back(f);
            n /= f;
        } else {
            ++f;
        }
    }
    std::vector<int> out(size_t(dims), 1);
    for (auto it = primes.rbegin(); it != primes.rend(); ++it)
        *std::min_element(out.begin(), out.end()) *= *it;
    std::sort(out.rbegin(), out.rend());
    return out;
}

} // namespace

Workload::Workload(Op op, int ranks, size_t bytes) : op_(op), ranks_(ranks), bytes_(bytes)
{
    if (op == Op::NeighborAlltoall)
        grid_ = {ranks};
    else if (op == Op::NeighborAlltoall3d)
        grid_ = balanced_dims(ranks, 3);
}

std::vector<int> Workload::neighbours(int rank) const
{
    std::vector<int> out;
    int stride = ranks_;
    for (const int extent : grid_) {
        stride /= extent; // row-major: the last dimension varies fastest
        const int c = rank / stride % extent;
        const int minus = rank + ((c + extent - 1) % extent - c) * stride;
        const int plus = rank + ((c + 1) % extent - c) * stride;
        out.push_back(minus);
        out.push_back(plus);
    }
    return out;
}

size_t Workload::neighbour_block() const
{
    return grid_.empty() ? 0 : 8 * (bytes_ / 8 / (2 * grid_.size()));
}

size_t Workload::block(int from, int to) const
{
    // zipbench's a2a_count in closed form (it loops over the peers, which is P^3 work for all
    // ranks' blocks at 4096 ranks): block k < P-1 has q + d doubles when from + k is odd,
    // q - d otherwise, and block P-1 the rest of the n doubles.
    const size_t n = bytes_ / 8, p = size_t(ranks_), q = n / p, d = q / 4;
    if (op_ == Op::Alltoall)
        return 8 * q;
    const size_t k = size_t(to);
    if (k + 1 < p)
        return 8 * (((size_t(from) + k) & 1) ? q + d : q - d);
    const size_t m = p - 1; // blocks before the last
    const size_t odd = (from & 1) ? (m + 1) / 2 : m / 2;
    const size_t sum = m * q + odd * d - (m - odd) * d;
    return 8 * (n - sum);
}

size_t Workload::contribution(int rank) const
{
    const size_t n = bytes_ / 8;
    if (op_ == Op::Allgather || op_ == Op::Scatter || ((ranks_ & 1) && rank == ranks_ - 1))
        return 8 * n;
    return 8 * ((rank & 1) ? n + n / 8 : n - n / 8);
}

size_t Workload::largest() const
{
    switch (op_) {
    case Op::Bcast:
    case Op::Reduce:
    case Op::Allreduce:
    case Op::Scan:
        return bytes_;
    case Op::Alltoall:
        return block(0, 0);
    case Op::Allgather:
        return contribution(0);
    case Op::Alltoallv: {
        size_t most = 0;
        for (int from = 0; from < std::min(ranks_, 2); ++from)
            for (int to : {0, 1, ranks_ - 1})
                if (to >= 0 && to < ranks_)
                    most = std::max(most, block(from, to));
        return most;
    }
    case Op::Gatherv:
    case Op::Allgatherv:
    case Op::Scatterv:
        return std::max(contribution(0), contribution(std::min(1, ranks_ - 1)));
    case Op::Scatter:
        return contribution(0);
    case Op::NeighborAlltoall:
    case Op::NeighborAlltoall3d:
        return neighbour_block();
    }
    return 0;
}

} // namespace simscale
