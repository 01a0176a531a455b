// Compressed gatherv and scatterv: the root and every other rank exchange one block each way
// (into the root or out of it). Each sender compresses its blocks once, the receivers decode
// them in arrival order (see exchange.cpp); plain blocks all at once beside them.
#include <algorithm>

#include "exchange.hpp"
#include "zip_algo.h"

namespace zipcoll
{

namespace
{

// The receives whose blocks, at their mean size, make about `bytes`; at least two, so that one
// block travels while the last is decoded.
size_t root_window(const std::vector<Transfer> &recvs, size_t bytes)
{
    size_t total = 0;
    for (const Transfer &r : recvs)
        total += r.bytes;
    const size_t mean = std::max<size_t>(1, total / recvs.size());
    return std::max<size_t>(2, (bytes + mean - 1) / mean);
}

} // namespace

Task rooted(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
            const zip_exchange_args_t *a, zip_algo_result_t *res, bool into_root)
{
    const bool at_root = t->rank == root;
    const bool sending = at_root != into_root;
    // The root has a block per other rank, every other rank one block.
    const zip_block_t *blocks = sending ? a->send : a->recv;
    const int start = begin_exchange(t, blocks, res);
    if (start != ZIP_ALGO_OK)
        co_return start > 0 ? ZIP_ALGO_OK : start;
    if (root < 0 || root >= t->size)
        co_return ZIP_ALGO_ERR_ARG;
    // std::bad_alloc ends the task with ZIP_ALGO_ERR_NOMEM.
    ExchangePlan plan;
    plan.tag = a->tag;
    plan.policy = BlockPolicy::of(*a, *t);
    for (int p = 0; p < t->size; ++p) {
        if (at_root ? p == root : p != root)
            continue;
        Transfer coded;
        const int rc =
            plan.plain.place(t, plan.policy, blocks[at_root ? p : 0], p, sending, &coded);
        if (rc != ZIP_ALGO_OK)
            co_return rc;
        // Two ranks: a large block in segments (exchange.hpp); the other end cuts it alike.
        if (coded.bytes > 0)
            append_segments(coded, segment_bytes(t->size, coded.bytes),
                            sending ? &plan.sends : &plan.recvs);
    }
    // The route judges two ranks' blocks as segments; one that goes whole is a one-shot.
    zip_algo_policy_t whole;
    if (t->size == 2 && plan.sends.size() + plan.recvs.size() <= 1)
        plan.policy.policy = with_shape(plan.policy.policy, ZIP_TRANSFER_ONE_SHOT, &whole);
    if (at_root && into_root && a->root_window_bytes > 0 && !plan.recvs.empty())
        plan.recv_window = root_window(plan.recvs, a->root_window_bytes);
    co_return co_await run_exchange(t, codec, plan, res);
}

} // namespace zipcoll

extern "C" int zip_algo_gatherv(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                                const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(zipcoll::rooted(t, codec, root, a, res, true));
}

extern "C" int zip_algo_scatterv(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                                 const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(zipcoll::rooted(t, codec, root, a, res, false));
}
