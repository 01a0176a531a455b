// A non-blocking call of any algorithm: its coroutine's Runner behind zip_algo_call_t.
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
