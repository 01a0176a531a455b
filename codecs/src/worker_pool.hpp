// A fixed set of threads that run the tasks of one call together with the calling thread:
// block-parallel compression and decompression of one frame (codec_threads, issue 11). Threads
// are created once per context, not per message: a thread start costs tens of microseconds,
// a fair share of a 1 MiB message's codec time.
//
// Hand-off: a worker that finished a task spins for up to kSpinMicros on the call counter
// before it sleeps on a condition variable, and the caller spins as long for the workers to
// finish; only then do they block. Waking a sleeping thread costs a futex call and, on a
// virtual machine whose idle vCPU halted, tens of microseconds more until it runs: a large
// share of the ~100 us that one 1 MiB message takes on one thread. Back-to-back calls (a
// collective's segments, one message per peer) so find the workers awake.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace zip
{

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// Polls done() for up to kSpinMicros (below); true if it became true meanwhile. The clock is
// read every 64 polls (a pause is ~10-140 cycles depending on the CPU). Also what a codec
// thread waits with for the block before its own (context.cpp).
template <class Done> bool spin_until(Done done);

class WorkerPool
{
  public:
    // How long a thread polls before it blocks (after a task, or waiting for the workers).
    static constexpr unsigned kSpinMicros = 50;

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
    std::mutex mutex_; // guards the sleeps: generation_ changes under it
    std::condition_variable start_, done_;
    const std::function<void(unsigned)> *task_ = nullptr;
    std::atomic<uint64_t> generation_{0}; // calls so far; a new value starts the workers
    std::atomic<unsigned> pending_{0};    // workers still running the current call's task
    std::atomic<bool> stop_{false};
};

template <class Done> bool spin_until(Done done)
{
    using Clock = std::chrono::steady_clock;
    const auto until = Clock::now() + std::chrono::microseconds(WorkerPool::kSpinMicros);
    for (;;) {
        for (int i = 0; i < 64; ++i) {
            if (done())
                return true;
            cpu_relax();
        }
        if (Clock::now() >= until)
            return done();
    }
}

} // namespace zip
