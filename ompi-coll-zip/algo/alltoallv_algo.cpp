// Compressed alltoallv: one frame per destination, no extra round, pairwise steps with a small
// window (see pairwise.cpp); plain blocks all at once beside them (see exchange.hpp).
#include <algorithm>

#include "exchange.hpp"
#include "temporal_streams.hpp"
#include "zip_algo.h"

namespace zipcoll
{

// Steps in flight on a slow link: one more per 32 KiB of the mean block, up to about 2 MiB in
// flight, 2 to 4 (netemu, 8 ranks at 1 Gbit/s against tuned's pairwise, random data: 128 KiB
// blocks 0.86-0.91x with 2 steps, 1.02-1.09x with 4; 32 KiB blocks 0.94x with 2, 0.86-0.87x with
// 4; 16 KiB blocks 1.12-1.13x with 2, 0.93-0.98x with 4; 64 and 256 KiB blocks the same with 2 or
// 4). A step of small blocks is short, and more of them at once only crowd each port with more
// peers, whose TCP flows then lose packets at the shaped queue. Blocks of 512 KiB (4 MiB per
// rank on 8 ranks) gain from 4 (the same netemu, in one job against stock, 2 rounds: alltoallv
// random 50.8-51.8 ms with 2 steps, 44.3-45.1 with 4; gauss 34.3-35.7, 31.8-33.3; alltoallw of
// subarrays random 49.8-50.2, 41.8-42.0; gauss 36.4-38.4, 34.2-34.3), hence 2 MiB, not the
// 512 KiB of before.
//
// On a fast link a step is short next to the latency and to the codec's time per block, and a
// few steps leave the link idle between them: up to 16 steps, about 8 MiB in flight (simscale,
// 10 Gbit/s, 30 us, 16-64 ranks one per node, tuned's best / zip with 2 steps and with 16: gauss
// in 32 KiB blocks 0.68-0.70x and 1.35-1.50x, in 512 KiB blocks 1.02-1.03x and 1.38-1.52x;
// random in 32 KiB blocks 0.64-0.66x and 0.95-0.98x; 8 steps lost 3-4 % more on random data,
// gained up to 5 % on gauss; netemu, 8 ranks at 10 Gbit/s against tuned's linear: gauss
// 0.75-1.01x with 2 steps, 0.85-1.09x with 7).
size_t alltoallv_auto_window(int rank, int size, const zip_block_t *send, const zip_block_t *recv,
                             double link_Bps)
{
    if (size < 3)
        return 1;
    size_t bytes = 0, largest_send = 0;
    for (int p = 0; p < size; ++p)
        if (p != rank) {
            bytes += std::max(send[p].bytes, recv[p].bytes);
            largest_send = std::max(largest_send, send[p].bytes);
        }
    const size_t mean = bytes / size_t(size - 1);
    const auto up_to = [mean](size_t in_flight) { return (in_flight + mean - 1) / mean; };
    if (link_Bps >= kFastLinkBps) {
        // The frame slots are window x the largest send block: one large block among small
        // ones must not make them many times the 8 MiB. A rank that sends nothing has none.
        const size_t in_flight = 8u << 20;
        const size_t most = std::min<size_t>(size_t(size - 1), 16);
        const size_t slots =
            largest_send == 0 ? most : (in_flight + largest_send - 1) / largest_send;
        const size_t w = mean == 0 ? most : std::min(up_to(in_flight), slots);
        return std::clamp<size_t>(w, 2, most);
    }
    // Never every step at once where there are more than two: each port would then carry every
    // peer's flow together (netemu, 4 ranks at 1 Gbit/s, 80 KiB blocks against tuned's pairwise,
    // random: all 3 steps 0.83-0.95x, 2 of them 1.00-1.06x; gauss 1 MiB 2 steps 3-7 % faster).
    const size_t per_step = 32 * 1024;
    const size_t most = size > 3 ? std::min<size_t>(size_t(size - 2), 4) : size_t(size - 1);
    const size_t w =
        mean == 0 ? most : std::min((mean + per_step - 1) / per_step, up_to(2 * 1024 * 1024));
    return std::clamp<size_t>(w, 2, most);
}

Task alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec, const zip_exchange_args_t *a,
               zip_algo_result_t *res)
{
    const int start = begin_exchange(t, a->send && a->recv ? a->send : nullptr, res);
    if (start != ZIP_ALGO_OK)
        co_return start > 0 ? ZIP_ALGO_OK : start;
    // The plan lives in the task's frame for as long as the call runs; std::bad_alloc ends the
    // task with ZIP_ALGO_ERR_NOMEM.
    PairwisePlan plan;
    plan.tag = a->tag;
    plan.window =
        a->window != 0
            ? a->window
            : alltoallv_auto_window(t->rank, t->size, a->send, a->recv,
                                    a->policy != nullptr ? a->policy->speeds.link_Bps : 0.0);
    plan.policy = BlockPolicy::of(*a, *t);
    plan.temporal = a->temporal;
    // Step k: send to rank + k while receiving from rank - k, so every port carries one peer's
    // block at a time and every rank is busy at every step. A send of the coded class in the
    // caller's own layout (a derived datatype) stays unpacked until its step codes it, and goes
    // as it is once the sender does not compress, as in the neighbourhood exchange
    // (Transfer::typed): packing every block up front cost alltoallw of 512 KiB subarrays
    // 0.83x of coll/basic's linear algorithm on random data (netemu, 8 ranks at 1 Gbit/s).
    // Not with temporal streams, whose reference is the packed block.
    const bool lazy = t->isend_plain != nullptr && plan.temporal == nullptr;
    plan.steps.resize(size_t(t->size - 1));
    for (int k = 1; k < t->size; ++k) {
        const int to = (t->rank + k) % t->size;
        const int from = (t->rank - k + t->size) % t->size;
        auto &st = plan.steps[size_t(k - 1)];
        const zip_block_t &b = a->send[to];
        int rc = ZIP_ALGO_OK;
        if (lazy && b.ptr == nullptr && b.typed != nullptr && b.bytes > 0 &&
            !plan.policy.plain(b.bytes, to))
            st.send = Transfer{to, nullptr, b.bytes, b.typed};
        else
            rc = plan.plain.place(t, plan.policy, b, to, true, &st.send);
        if (rc == ZIP_ALGO_OK)
            rc = plan.plain.place(t, plan.policy, a->recv[from], from, false, &st.recv);
        if (rc != ZIP_ALGO_OK)
            co_return rc;
        // A block that moves plainly (or not at all) ends its stream's reference at both
        // ends, which sort it alike (temporal_streams.hpp).
        if (plan.temporal != nullptr && st.send.bytes == 0)
            plan.temporal->drop(to, true);
        if (plan.temporal != nullptr && st.recv.bytes == 0)
            plan.temporal->drop(from, false);
    }
    co_return co_await run_pairwise(t, codec, plan, res);
}

} // namespace zipcoll

extern "C" int zip_algo_alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                  const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(zipcoll::alltoallv(t, codec, a, res));
}
