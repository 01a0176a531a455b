// Alltoall(v) calls on data that nobody codes (zip_algo_uncoded_t in zip_algo.h).
#include <algorithm>

#include "exchange.hpp"
#include "zip_algo.h"

namespace
{

// The 4th, 16th, 64th and 256th call, then every 1024th.
bool shares_at(uint64_t n)
{
    if (n >= 1024)
        return n % 1024 == 0;
    return n >= 4 && (n & (n - 1)) == 0 && __builtin_ctzll(n) % 2 == 0;
}

} // namespace

extern "C" bool zip_algo_uncoded_applies(const zip_algo_policy_t *policy)
{
    return policy->mode == ZIP_POLICY_AUTO && policy->speeds.link_Bps >= zipcoll::kFastLinkBps;
}

extern "C" bool zip_algo_uncoded_hands_on(zip_algo_uncoded_t *u)
{
    if (u->hand_on == 0)
        return false;
    --u->hand_on;
    return true;
}

extern "C" bool zip_algo_uncoded_shares(zip_algo_uncoded_t *u)
{
    const bool scheduled = shares_at(++u->taken);
    const bool rechecks = u->recheck > 0 && --u->recheck == 0;
    return scheduled || rechecks;
}

extern "C" void zip_algo_uncoded_record(zip_algo_uncoded_t *u, bool coded)
{
    if (coded)
        __atomic_store_n(&u->coded, 1, __ATOMIC_RELAXED);
}

extern "C" bool zip_algo_uncoded_mine(const zip_algo_uncoded_t *u)
{
    return __atomic_load_n(&u->coded, __ATOMIC_RELAXED) != 0;
}

extern "C" void zip_algo_uncoded_shared(zip_algo_uncoded_t *u, bool any_coded)
{
    __atomic_store_n(&u->coded, 0, __ATOMIC_RELAXED);
    u->recheck = 0;
    if (any_coded) {
        u->period = 0;
        return;
    }
    u->period = u->period == 0 ? ZIP_ALGO_UNCODED_FIRST
                               : std::min<unsigned>(2 * u->period, ZIP_ALGO_UNCODED_LONGEST);
    u->hand_on = u->period;
    u->recheck = ZIP_ALGO_UNCODED_RECHECK;
}
