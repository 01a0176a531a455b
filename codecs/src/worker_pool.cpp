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
        generation_.fetch_add(1, std::memory_order_release); // ends the spinning workers' poll
    }
    start_.notify_all();
    for (auto &t : threads_)
        t.join();
}

void WorkerPool::run(const std::function<void(unsigned)> &task)
{
    task_ = &task;
    pending_.store(workers(), std::memory_order_relaxed);
    {
        // Under the mutex: a worker that found no new call there is already waiting.
        std::lock_guard<std::mutex> lock(mutex_);
        generation_.fetch_add(1, std::memory_order_release); // publishes task_ and pending_
    }
    start_.notify_all(); // no system call when every worker is still spinning
    task(0);
    if (!spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; })) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    task_ = nullptr;
}

void WorkerPool::loop(unsigned index)
{
    uint64_t seen = 0;
    for (;;) {
        auto fresh = [&] { return generation_.load(std::memory_order_acquire) != seen; };
        if (!spin_until(fresh)) {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, fresh);
        }
        seen = generation_.load(std::memory_order_acquire);
        if (stop_.load(std::memory_order_relaxed)) // set before that generation's increment
            return;
        (*task_)(index);
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            // The caller may be past its spin: it checks pending_ under the mutex before it
            // sleeps, so taking the mutex here orders this notify after that check.
            std::lock_guard<std::mutex> lock(mutex_);
            done_.notify_one();
        }
    }
}

} // namespace zip
