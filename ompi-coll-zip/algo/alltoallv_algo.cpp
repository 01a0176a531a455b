// Compressed alltoallv: one frame per destination, no extra round, pairwise steps with a small
// window (see pairwise.cpp).
#include <new>

#include "exchange.hpp"
#include "zip_algo.h"

extern "C" int zip_algo_alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                  const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    res->verdict = -1;
    if (t->size <= 1)
        return ZIP_ALGO_OK;
    if (!a->send || !a->recv)
        return ZIP_ALGO_ERR_ARG;
    zipcoll::PairwisePlan plan;
    plan.tag = a->tag;
    plan.window = a->window;
    plan.policy.elem_type = a->elem_type;
    plan.policy.try_compress = a->try_compress != 0;
    plan.policy.threshold = a->threshold;
    plan.policy.policy = a->policy;
    try {
        // Step k: send to rank + k while receiving from rank - k, so every port carries one
        // peer's block at a time and every rank is busy at every step.
        plan.steps.resize(size_t(t->size - 1));
        for (int k = 1; k < t->size; ++k) {
            const int to = (t->rank + k) % t->size;
            const int from = (t->rank - k + t->size) % t->size;
            auto &st = plan.steps[size_t(k - 1)];
            st.send = {to, static_cast<char *>(a->send[to].ptr), a->send[to].bytes};
            st.recv = {from, static_cast<char *>(a->recv[from].ptr), a->recv[from].bytes};
        }
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    return zipcoll::run_pairwise(t, codec, plan, res);
}
