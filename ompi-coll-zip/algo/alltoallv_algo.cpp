// Compressed alltoallv: one frame per destination, no extra round (see exchange.cpp).
#include <new>

#include "exchange.hpp"
#include "zip_algo.h"

extern "C" int zip_algo_alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                  const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    if (t->size <= 1) return ZIP_ALGO_OK;
    if (!a->send || !a->recv) return ZIP_ALGO_ERR_ARG;
    zipcoll::ExchangePlan plan;
    plan.tag = a->tag;
    plan.elem_type = a->elem_type;
    plan.try_compress = a->try_compress != 0;
    plan.threshold = a->threshold;
    try {
        // Rotating the peer order spreads the load: at step k everyone sends to rank + k and
        // expects from rank - k, so no receiver is hit by all senders at once.
        for (int k = 1; k < t->size; ++k) {
            const int to = (t->rank + k) % t->size;
            const int from = (t->rank - k + t->size) % t->size;
            if (a->send[to].bytes > 0)
                plan.sends.push_back({to, static_cast<char *>(a->send[to].ptr), a->send[to].bytes});
            if (a->recv[from].bytes > 0)
                plan.recvs.push_back({from, static_cast<char *>(a->recv[from].ptr), a->recv[from].bytes});
        }
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    return zipcoll::run_exchange(t, codec, plan, res);
}
