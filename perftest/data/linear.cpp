// linear: f(x) = a*x at x = 0, 1, 2, ... Every value is exact and the stride is constant, the
// best case for stride predictors (the Bcast/FPC paper reports an FPC ratio of 15 on it).
#include "deterministic_fp.hpp"

#include "generators.hpp"
#include "zipdata.h"

namespace zipdata
{

int fill_linear(double *out, size_t n)
{
    for (size_t k = 0; k < n; ++k)
        out[k] = ZIPDATA_LINEAR_A * static_cast<double>(k);
    return ZIPDATA_OK;
}

} // namespace zipdata
