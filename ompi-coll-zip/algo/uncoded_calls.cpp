// Alltoall(v) calls on data that nobody codes (zip_algo_uncoded_t in zip_algo.h).
#include <algorithm>

#include "codec_meter.h"
#include "exchange.hpp"
#include "zip_algo.h"

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
    // The codec meter's agreement counts: the 4th, 16th, 64th and 256th call, then every 1024th.
    const bool scheduled = zip_codec_meter_agree_at(++u->taken, 1024);
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
