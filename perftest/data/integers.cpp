// Integer payloads (issue 11: integer keys through Alltoallv): the bytes of a double buffer hold
// little-endian int32 or int64 values (zipdata_type() says which), so every set fills the same
// kind of buffer and value k still does not depend on n.
//   keys-i32         bucket-sort keys as NPB IS draws them: the mean of four uniform draws in
//                    [0, 2^11), random order, heavily duplicated. Seeded.
//   keys-sorted-i32  2^18 keys of [0, 2^19) in ascending order (after a local sort). Seeded.
//   indices-i32      the column indices of a 27-point stencil matrix on a 64^3 grid, row by row
//                    (what a sparse matrix-vector code sends): ascending runs of 3 with jumps.
//   ids-i64          particle ids of a molecular-dynamics code: ascending with gaps within a
//                    cell, a new cell (a random start below 2^26) every ~40 ids. Seeded.
#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "generators.hpp"
#include "prng.hpp"
#include "zipdata.h"

namespace zipdata
{
namespace
{

constexpr size_t kSortedKeys = kSortedKeyCount;
constexpr uint32_t kStencilEdge = 64;

template <class T> void put(double *out, size_t i, T v)
{
    std::memcpy(reinterpret_cast<unsigned char *>(out) + i * sizeof(T), &v, sizeof(T));
}

} // namespace

int fill_keys(double *out, size_t n, uint64_t seed)
{
    Xoshiro256 rng(seed);
    for (size_t i = 0; i < 2 * n; ++i) {
        uint64_t sum = 0;
        for (int d = 0; d < 4; ++d)
            sum += rng.below(uint64_t{1} << 11);
        put<int32_t>(out, i, static_cast<int32_t>(sum / 4));
    }
    return ZIPDATA_OK;
}

int fill_sorted_keys(double *out, size_t n, uint64_t seed)
{
    try {
        std::vector<int32_t> keys(kSortedKeys);
        Xoshiro256 rng(seed);
        for (int32_t &k : keys)
            k = static_cast<int32_t>(rng.below(uint64_t{1} << 19));
        std::sort(keys.begin(), keys.end());
        for (size_t i = 0; i < 2 * n; ++i)
            put<int32_t>(out, i, keys[i % kSortedKeys]);
        return ZIPDATA_OK;
    } catch (const std::bad_alloc &) {
        return ZIPDATA_E_NOMEM;
    }
}

int fill_stencil_indices(double *out, size_t n)
{
    const uint32_t e = kStencilEdge;
    size_t i = 0;
    for (uint32_t row = 0; i < 2 * n; row = (row + 1) % (e * e * e)) {
        uint32_t x = row % e, y = row / e % e, z = row / (e * e);
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int64_t xx = int64_t{x} + dx, yy = int64_t{y} + dy, zz = int64_t{z} + dz;
                    if (xx < 0 || yy < 0 || zz < 0 || xx >= e || yy >= e || zz >= e || i >= 2 * n)
                        continue;
                    put<int32_t>(out, i++, static_cast<int32_t>(xx + e * (yy + e * zz)));
                }
    }
    return ZIPDATA_OK;
}

int fill_particle_ids(double *out, size_t n, uint64_t seed)
{
    Xoshiro256 rng(seed);
    int64_t id = 1000000;
    for (size_t i = 0; i < n; ++i) {
        if (rng.below(40) == 0)
            id = static_cast<int64_t>(rng.below(uint64_t{1} << 26)); // the next cell's atoms
        else
            id += 1 + static_cast<int64_t>(rng.below(4) == 0 ? rng.below(300) : 0);
        put<int64_t>(out, i, id);
    }
    return ZIPDATA_OK;
}

} // namespace zipdata
