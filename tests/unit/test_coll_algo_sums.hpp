// What the reducing algorithms' tests share: the sum they reduce with, and each rank's
// contribution, whose sum depends on the order of the additions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "zip_algo.h"

namespace algotest
{

// inout = in + inout, the operand order the algorithms document.
inline void sum_doubles(void *, const void *in, void *inout, size_t bytes)
{
    const auto *a = static_cast<const double *>(in);
    auto *b = static_cast<double *>(inout);
    for (size_t i = 0; i < bytes / sizeof(double); ++i)
        b[i] = a[i] + b[i];
}

inline const zip_reduce_ops_t kSum = {nullptr, sizeof(double), sum_doubles, nullptr};

// A rank's contribution: runs of zeros (which the toy codec shrinks) between stretches of
// random non-integer doubles.
inline std::vector<double> contribution(int rank, size_t n, bool compressible)
{
    std::mt19937_64 gen(uint64_t(rank) * 1000003u + n);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i)
        v[i] = (compressible && (i / 64) % 4 != 0) ? 0.0 : dist(gen) / 3.0;
    return v;
}

} // namespace algotest
