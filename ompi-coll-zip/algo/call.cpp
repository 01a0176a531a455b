// A non-blocking call of any algorithm: its coroutine's Runner behind zip_algo_call_t.
#include "exchange.hpp"
#include "task.hpp"
#include "zip_algo.h"

struct zip_algo_call {
    explicit zip_algo_call(zipcoll::Task task) : runner(std::move(task)) {}
    zipcoll::Runner runner;
};

zip_algo_call_t *zip_algo_call_new(zipcoll::Task task)
{
    return new (std::nothrow) zip_algo_call(std::move(task));
}

extern "C" int zip_algo_call_advance(zip_algo_call_t *call)
{
    return call->runner.advance() ? 1 : 0;
}

extern "C" int zip_algo_call_finish(zip_algo_call_t *call)
{
    const int rc = call->runner.result();
    delete call;
    return rc;
}

extern "C" zip_algo_call_t *zip_algo_ialltoallv(const zip_transport_t *t,
                                                const zip_codec_ops_t *codec,
                                                const zip_exchange_args_t *a,
                                                zip_algo_result_t *res)
{
    return zip_algo_call_new(zipcoll::alltoallv(t, codec, a, res));
}

extern "C" zip_algo_call_t *zip_algo_igatherv(const zip_transport_t *t,
                                              const zip_codec_ops_t *codec, int root,
                                              const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return zip_algo_call_new(zipcoll::rooted(t, codec, root, a, res, true));
}

extern "C" zip_algo_call_t *zip_algo_iscatterv(const zip_transport_t *t,
                                               const zip_codec_ops_t *codec, int root,
                                               const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return zip_algo_call_new(zipcoll::rooted(t, codec, root, a, res, false));
}

extern "C" zip_algo_call_t *zip_algo_iallgatherv(const zip_transport_t *t,
                                                 const zip_codec_ops_t *codec,
                                                 const zip_exchange_args_t *a,
                                                 zip_algo_result_t *res)
{
    return zip_algo_call_new(zipcoll::allgatherv(t, codec, a, res));
}
