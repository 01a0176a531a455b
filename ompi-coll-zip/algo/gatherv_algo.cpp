// Compressed gatherv: each non-root compresses its block, the root decodes blocks in the
// order they arrive (see exchange.cpp); plain blocks all at once beside them.
#include <new>

#include "exchange.hpp"
#include "zip_algo.h"

extern "C" int zip_algo_gatherv(const zip_transport_t *t, const zip_codec_ops_t *codec, int root,
                                const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    res->verdict = -1;
    if (t->size <= 1)
        return ZIP_ALGO_OK;
    if (root < 0 || root >= t->size)
        return ZIP_ALGO_ERR_ARG;
    zipcoll::ExchangePlan plan;
    plan.tag = a->tag;
    plan.policy = zipcoll::BlockPolicy::of(*a, *t);
    const bool at_root = t->rank == root;
    if (at_root ? !a->recv : !a->send)
        return ZIP_ALGO_ERR_ARG;
    try {
        for (int p = 0; p < t->size; ++p) {
            if (at_root ? p == root : p != root)
                continue;
            zipcoll::Transfer coded;
            const int rc = plan.plain.place(t, plan.policy, at_root ? a->recv[p] : a->send[0], p,
                                            !at_root, &coded);
            if (rc != ZIP_ALGO_OK)
                return rc;
            if (coded.bytes > 0)
                (at_root ? plan.recvs : plan.sends).push_back(coded);
        }
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    return zipcoll::run_exchange(t, codec, plan, res);
}
