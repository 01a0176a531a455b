// Compressed gatherv: each non-root compresses its block, the root decodes blocks in the
// order they arrive (see exchange.cpp).
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
    plan.policy.elem_type = a->elem_type;
    plan.policy.try_compress = a->try_compress != 0;
    plan.policy.threshold = a->threshold;
    plan.policy.policy = a->policy;
    try {
        if (t->rank == root) {
            if (!a->recv)
                return ZIP_ALGO_ERR_ARG;
            for (int p = 0; p < t->size; ++p)
                if (p != root && a->recv[p].bytes > 0)
                    plan.recvs.push_back(
                        {p, static_cast<char *>(a->recv[p].ptr), a->recv[p].bytes});
        } else {
            if (!a->send)
                return ZIP_ALGO_ERR_ARG;
            if (a->send[0].bytes > 0)
                plan.sends.push_back({root, static_cast<char *>(a->send[0].ptr), a->send[0].bytes});
        }
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    return zipcoll::run_exchange(t, codec, plan, res);
}
