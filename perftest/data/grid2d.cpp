// gauss-N and sincos-N: the Bcast/FPC paper's 2-D test surfaces on an N x N grid.
#include "deterministic_fp.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <vector>

#include "generators.hpp"
#include "portable_math.hpp"
#include "zipdata.h"

namespace zipdata
{
namespace
{

struct Domain {
    double lo, hi;
};

Domain domain_of(Surface s)
{
    return s == Surface::Gauss ? Domain{-2.0, 2.0} : Domain{-6.0, 6.0};
}

// Both surfaces are separable, f(x, y) = fx(x) * fy(y): tabulate the two factors once per axis.
// Computing the product per point gives the same bits as calling f per point.
void axis_factors(Surface s, size_t npts, std::vector<double> &fx, std::vector<double> &fy)
{
    Domain d = domain_of(s);
    double step = (d.hi - d.lo) / static_cast<double>(npts); // exact: N is a power of two
    fx.resize(npts);
    fy.resize(npts);
    for (size_t i = 0; i < npts; ++i) {
        double c = d.lo + static_cast<double>(i) * step; // exact dyadic coordinate
        if (s == Surface::Gauss) {
            fx[i] = portable_exp(-c * c);
            fy[i] = fx[i];
        } else {
            fx[i] = portable_sin(c);
            fy[i] = portable_cos(c);
        }
    }
}

// Ascending, and total on the values we produce (no NaN): -0.0 sorts before +0.0 so that the
// order of equal-comparing values does not depend on the sort implementation.
bool ascending(double a, double b)
{
    if (a != b)
        return a < b;
    return std::signbit(a) && !std::signbit(b);
}

} // namespace

int fill_grid2d(Surface surface, size_t npts, bool sorted, double *out, size_t n)
{
    try {
        std::vector<double> fx, fy;
        axis_factors(surface, npts, fx, fy);
        const size_t grid = npts * npts;
        if (!sorted) {
            // Natural order: y outer, x inner (the paper's loop); value k is grid point k mod N^2.
            for (size_t k = 0; k < n; ++k) {
                size_t g = k % grid;
                out[k] = fx[g % npts] * fy[g / npts];
            }
            return ZIPDATA_OK;
        }
        std::vector<double> all(grid);
        for (size_t g = 0; g < grid; ++g)
            all[g] = fx[g % npts] * fy[g / npts];
        std::sort(all.begin(), all.end(), ascending);
        for (size_t k = 0; k < n; k += grid)
            std::memcpy(out + k, all.data(), std::min(grid, n - k) * sizeof(double));
        return ZIPDATA_OK;
    } catch (const std::bad_alloc &) {
        return ZIPDATA_E_NOMEM;
    }
}

} // namespace zipdata
