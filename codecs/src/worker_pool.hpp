// A fixed set of threads that run the tasks of one call together with the calling thread:
// block-parallel compression and decompression of one frame (codec_threads, issue 11). Threads
// are created once per context, not per message: a thread start costs tens of microseconds,
// a fair share of a 1 MiB message's codec time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace zip
{

class WorkerPool
{
  public:
    explicit WorkerPool(unsigned workers); // threads besides the caller's
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    unsigned workers() const { return unsigned(threads_.size()); }
    // Runs task(0) on the calling thread and task(1) .. task(workers()) on the workers; returns
    // when all have finished.
    void run(const std::function<void(unsigned)> &task);

  private:
    void loop(unsigned index);

    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable start_, done_;
    const std::function<void(unsigned)> *task_ = nullptr;
    uint64_t generation_ = 0;
    unsigned pending_ = 0;
    bool stop_ = false;
};

} // namespace zip
