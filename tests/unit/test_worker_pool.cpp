// The codec threads' pool (worker_pool.hpp): the caller never waits for a worker to wake up. A
// worker joins a call while the caller's own task runs, or not at all; work shared through
// claims is done exactly once either way, and no worker touches a call after it returned.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "worker_pool.hpp"

namespace
{

using zip::WorkerPool;

// Sleeps long enough that the workers stop spinning and block.
void let_workers_sleep()
{
    std::this_thread::sleep_for(std::chrono::microseconds(4 * WorkerPool::kSpinMicros));
}

} // namespace

// Calls back to back and calls after the workers fell asleep: each item of a call is taken by
// exactly one thread, however many threads joined.
TEST(WorkerPool, SharedClaimsAreDoneOnceWhoeverJoins)
{
    WorkerPool pool(3);
    constexpr size_t kItems = 64;
    for (int call = 0; call < 400; ++call) {
        std::atomic<size_t> next{0};
        std::vector<std::atomic<int>> done(kItems);
        pool.run([&](unsigned) {
            for (size_t i; (i = next.fetch_add(1)) < kItems;)
                done[i].fetch_add(1);
        });
        for (size_t i = 0; i < kItems; ++i)
            ASSERT_EQ(done[i].load(), 1) << "call " << call << " item " << i;
        if (call % 8 == 7)
            let_workers_sleep();
    }
}

// A worker that wakes after the caller's task ended stays out of that call: nothing of the call
// (here a flag the caller sets once run() has returned) is touched after it returned.
TEST(WorkerPool, NoWorkerRunsACallThatHasReturned)
{
    struct Call {
        std::atomic<bool> returned{false};
        std::atomic<int> late{0};
    };
    std::vector<std::unique_ptr<Call>> calls; // kept until the workers are joined
    {
        WorkerPool pool(2);
        for (int i = 0; i < 600; ++i) {
            calls.push_back(std::make_unique<Call>());
            Call *c = calls.back().get();
            pool.run([c](unsigned t) {
                if (t != 0 && c->returned.load())
                    c->late.fetch_add(1);
            });
            c->returned.store(true);
            if (i % 3 == 0)
                let_workers_sleep();
        }
    } // joins the workers
    for (size_t i = 0; i < calls.size(); ++i)
        EXPECT_EQ(calls[i]->late.load(), 0) << "call " << i;
}

// A worker that joined is waited for: its work is in when run() returns.
TEST(WorkerPool, AWorkerThatJoinedIsWaitedFor)
{
    WorkerPool pool(1);
    for (int call = 0; call < 20; ++call) {
        let_workers_sleep();
        std::atomic<bool> started{false}, finished{false};
        pool.run([&](unsigned t) {
            if (t == 0) {
                // The call stays open while the caller's task runs: the worker wakes and joins.
                while (!started.load())
                    std::this_thread::yield();
                return;
            }
            started.store(true);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            finished.store(true);
        });
        EXPECT_TRUE(finished.load()) << "call " << call;
    }
}

// Large calls always engage the workers; others only right after a call, while the workers
// still spin (calls further apart would pay the wake-up every time).
TEST(WorkerPool, EngagesForLargeCallsAndForRunsOfCalls)
{
    WorkerPool pool(1);
    EXPECT_TRUE(pool.engage(true));
    EXPECT_FALSE(pool.engage(false)); // no call yet
    bool soon_after = false;
    for (int i = 0; i < 100 && !soon_after; ++i) { // a preempted check may see it late
        pool.ran_alone();
        soon_after = pool.engage(false);
    }
    EXPECT_TRUE(soon_after);
    pool.run([](unsigned) {});
    let_workers_sleep();
    EXPECT_FALSE(pool.engage(false));
    EXPECT_TRUE(pool.engage(true));
}
