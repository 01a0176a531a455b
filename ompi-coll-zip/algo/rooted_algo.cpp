// Compressed gatherv and scatterv: the root and every other rank exchange one block each way
// (into the root or out of it). Each sender compresses its blocks once, the receivers decode
// them in arrival order (see exchange.cpp); plain blocks all at once beside them.
#include <new>

#include "exchange.hpp"
#include "zip_algo.h"

namespace
{

int run_rooted(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
               const zip_exchange_args_t *a, zip_algo_result_t *res, bool into_root)
{
    const bool at_root = t->rank == root;
    const bool sending = at_root != into_root;
    // The root has a block per other rank, every other rank one block.
    const zip_block_t *blocks = sending ? a->send : a->recv;
    const int start = zipcoll::begin_exchange(t, blocks, res);
    if (start != ZIP_ALGO_OK)
        return start > 0 ? ZIP_ALGO_OK : start;
    if (root < 0 || root >= t->size)
        return ZIP_ALGO_ERR_ARG;
    zipcoll::ExchangePlan plan;
    plan.tag = a->tag;
    plan.policy = zipcoll::BlockPolicy::of(*a, *t);
    try {
        for (int p = 0; p < t->size; ++p) {
            if (at_root ? p == root : p != root)
                continue;
            zipcoll::Transfer coded;
            const int rc =
                plan.plain.place(t, plan.policy, blocks[at_root ? p : 0], p, sending, &coded);
            if (rc != ZIP_ALGO_OK)
                return rc;
            if (coded.bytes > 0)
                (sending ? plan.sends : plan.recvs).push_back(coded);
        }
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    return zipcoll::run_exchange(t, codec, plan, res);
}

} // namespace

extern "C" int zip_algo_gatherv(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                                const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return run_rooted(t, codec, root, a, res, true);
}

extern "C" int zip_algo_scatterv(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                                 const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return run_rooted(t, codec, root, a, res, false);
}
