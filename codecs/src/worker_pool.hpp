// A fixed set of threads that run the tasks of one call together with the calling thread:
// block-parallel compression and decompression of one frame (codec_threads, issue 11). Threads
// are created once per context, not per message: a thread start costs tens of microseconds,
// a fair share of a 1 MiB message's codec time.
//
// Hand-off: a worker that finished a task spins for up to kSpinMicros on the call counter
// before it sleeps on a condition variable. Waking a sleeping thread costs a futex call and, on
// a virtual machine whose idle vCPU halted, tens of microseconds more until it runs: a large
// share of the ~100 us that one 1 MiB message takes on one thread. Back-to-back calls (a
// collective's segments, one message per peer) find the workers awake; an application's
// messages, milliseconds apart, find them asleep. So the caller never waits for a worker to
// wake: the tasks share their work through claims, and a worker that has not joined a call
// by the time the caller's own task is done stays out of it (the caller then did its share).
// Waiting for the wake-ups made two threads code 256 KiB messages at half one thread's speed
// when each call found them asleep (docs/fast-codec.md, "Workers asleep").
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
    using Clock = std::chrono::steady_clock;
    // How long a thread polls before it blocks (after a task, or waiting for the workers).
    static constexpr unsigned kSpinMicros = 50;

    explicit WorkerPool(unsigned workers); // threads besides the caller's
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    unsigned workers() const { return unsigned(threads_.size()); }
    // Whether the caller's next call should go to run(), or the caller should code alone and
    // say so with ran_alone(): yes for a large message (worth waking sleeping workers for:
    // waking one costs the caller ~18 us of futex call on the 2-core VM and the worker runs
    // tens of microseconds later, about what two threads save on a message below 2 MiB), and
    // for any message when the caller's last call ended within kSpinMicros (a run of calls so
    // wakes the workers once and keeps them spinning; calls further apart would wake them
    // every time).
    bool engage(bool large) const
    {
        return large || Clock::now() - last_end_ < std::chrono::microseconds(kSpinMicros);
    }
    void ran_alone() { last_end_ = Clock::now(); }

    // Runs task(0) on the calling thread and task(1) .. task(workers()) on the workers that
    // join in time: a worker that has not started its task when task(0) returns does not run
    // it for this call. So task(0) must leave no work behind that only another index would do
    // (the codec's tasks take blocks from shared claims until none is left). Returns when
    // task(0) and every worker that joined have finished.
    void run(const std::function<void(unsigned)> &task);

  private:
    void loop(unsigned index);

    std::vector<std::thread> threads_;
    // call_ holds the current call's number (from bit kCallShift), whether it is closed to
    // workers that have not joined (kClosed) and how many workers run its task (the low bits):
    // one word, so that joining and closing cannot cross.
    static constexpr unsigned kCallShift = 16;
    static constexpr uint64_t kClosed = uint64_t(1) << 15;
    static constexpr uint64_t kRunning = kClosed - 1;

    std::mutex mutex_; // guards the sleeps: a new call number is stored under it
    std::condition_variable start_, done_;
    const std::function<void(unsigned)> *task_ = nullptr;
    std::atomic<uint64_t> call_{0};
    Clock::time_point last_end_{}; // when the caller's last call ended (its thread only)
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
