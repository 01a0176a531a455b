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
        stop_ = true;
    }
    start_.notify_all();
    for (auto &t : threads_)
        t.join();
}

void WorkerPool::run(const std::function<void(unsigned)> &task)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        task_ = &task;
        pending_ = workers();
        ++generation_;
    }
    start_.notify_all();
    task(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    task_ = nullptr;
}

void WorkerPool::loop(unsigned index)
{
    uint64_t seen = 0;
    for (;;) {
        const std::function<void(unsigned)> *task;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_)
                return;
            seen = generation_;
            task = task_;
        }
        (*task)(index);
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0)
            done_.notify_one();
    }
}

} // namespace zip
