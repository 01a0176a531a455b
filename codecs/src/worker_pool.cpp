#include "worker_pool.hpp"

namespace zip
{

WorkerPool::WorkerPool(unsigned workers)
{
    threads_.reserve(workers);
    for (unsigned i = 0; i < workers; ++i)
        threads_.emplace_back([this, i] { loop(i + 1); });
}

WorkerPool::~WorkerPool()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true, std::memory_order_relaxed);
        // A new call number ends the spinning workers' poll; stop_ is set before it.
        call_.store(((call_.load(std::memory_order_relaxed) >> kCallShift) + 1) << kCallShift,
                    std::memory_order_release);
    }
    start_.notify_all();
    for (auto &t : threads_)
        t.join();
}

void WorkerPool::run(const std::function<void(unsigned)> &task)
{
    task_ = &task;
    {
        // Under the mutex: a worker that found no new call there is already waiting. The new
        // number, open and with nobody in it, publishes task_.
        std::lock_guard<std::mutex> lock(mutex_);
        call_.store(((call_.load(std::memory_order_relaxed) >> kCallShift) + 1) << kCallShift,
                    std::memory_order_release);
    }
    start_.notify_all(); // no system call when every worker is still spinning
    task(0);
    // Every block is claimed now: a worker still waking up would find nothing to do, so the
    // call closes to it, and only the workers already in are waited for.
    const uint64_t at_close = call_.fetch_or(kClosed, std::memory_order_acq_rel);
    if ((at_close & kRunning) != 0) {
        auto done = [this] { return (call_.load(std::memory_order_acquire) & kRunning) == 0; };
        if (!spin_until(done)) {
            std::unique_lock<std::mutex> lock(mutex_);
            done_.wait(lock, done);
        }
    }
    task_ = nullptr;
    last_end_ = Clock::now();
}

void WorkerPool::loop(unsigned index)
{
    uint64_t seen = 0; // the last call number this worker looked at
    for (;;) {
        auto fresh = [&] { return call_.load(std::memory_order_acquire) >> kCallShift != seen; };
        if (!spin_until(fresh)) {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, fresh);
        }
        if (stop_.load(std::memory_order_relaxed)) // set before that call number was stored
            return;
        // Join the call unless it has closed; a failed exchange reloads the word, which may
        // name a newer call by then.
        uint64_t c = call_.load(std::memory_order_acquire);
        while (!(c & kClosed) && !call_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel,
                                                              std::memory_order_acquire)) {
        }
        seen = c >> kCallShift;
        if (c & kClosed)
            continue; // too late for it: the caller has done this worker's share
        (*task_)(index);
        const uint64_t before = call_.fetch_sub(1, std::memory_order_acq_rel);
        if ((before & kRunning) == 1 && (before & kClosed)) {
            // The caller may be past its spin: it checks the count under the mutex before it
            // sleeps, so taking the mutex here orders this notify after that check.
            std::lock_guard<std::mutex> lock(mutex_);
            done_.notify_one();
        }
    }
}

} // namespace zip
