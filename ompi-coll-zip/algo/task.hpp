// Algorithms as coroutines, so that one piece of code serves the blocking collective and the
// non-blocking one. An algorithm is a Task that co_awaits its transport requests:
//
//   - over a transport without `test` (blocking), every await waits on the spot and never
//     suspends: the first Runner::advance() runs the whole algorithm, as a plain function;
//   - over a transport with `test`, an await whose request is still in flight suspends, and the
//     caller's progress loop (Open MPI's progress engine for MPI_I* calls) calls advance()
//     again, which resumes the algorithm once what it waits for has completed. Codec work
//     therefore happens inside advance(), as the collective progresses.
//
// GCC 12 miscompiles a co_await inside the conditional operator (the branch not taken runs):
// write `if (c) co_return co_await a(); co_return co_await b();` instead.
//
// Tasks nest (an algorithm awaits a sub-schedule such as run_exchange); the innermost waiting
// coroutine and how to tell that it may go on are kept in the Runner that is advancing (a
// thread-local pointer: a blocking algorithm may advance non-blocking ones from inside its own
// wait, through opal_progress). A child task runs inside its parent's co_await as a plain call
// would; only a child that suspended hands control back to its parent through final_suspend,
// so a long loop of children that finish at once does not deepen the stack.
#pragma once

#include <coroutine>
#include <cstddef>
#include <new>
#include <utility>

#include "transport.h"
#include "zip_algo.h"

namespace zipcoll
{

// Where a suspended algorithm waits.
struct Blocked {
    std::coroutine_handle<> handle; // resumed once ready(awaiter) says so
    bool (*ready)(void *awaiter) = nullptr;
    void *awaiter = nullptr;
};

// The record of the Runner now advancing on this thread.
inline thread_local Blocked *current_blocked = nullptr;

class Task
{
  public:
    struct promise_type {
        int value = ZIP_ALGO_OK;
        std::coroutine_handle<> continuation; // the task awaiting this one, once it suspended

        Task get_return_object()
        {
            return Task(std::coroutine_handle<promise_type>::from_promise(*this));
        }
        std::suspend_always initial_suspend() noexcept { return {}; }
        struct Final {
            bool await_ready() noexcept { return false; }
            std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept
            {
                const auto next = h.promise().continuation;
                return next ? next : std::noop_coroutine();
            }
            void await_resume() noexcept {}
        };
        Final final_suspend() noexcept { return {}; }
        void return_value(int v) { value = v; }
        // The algorithms throw nothing but std::bad_alloc (from std::vector).
        void unhandled_exception() { value = ZIP_ALGO_ERR_NOMEM; }
        // Coroutine frames come from the heap; running out is an error code, not an abort.
        static Task get_return_object_on_allocation_failure() { return Task(nullptr); }
        void *operator new(std::size_t n) noexcept { return ::operator new(n, std::nothrow); }
        void operator delete(void *p) noexcept { ::operator delete(p); }
    };

    Task(Task &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    Task &operator=(Task &&o) noexcept
    {
        std::swap(h_, o.h_);
        return *this;
    }
    Task(const Task &) = delete;
    ~Task()
    {
        if (h_)
            h_.destroy();
    }

    bool valid() const { return static_cast<bool>(h_); }

    // co_await child: runs the child until it finishes or waits; if it waits, this coroutine
    // waits too and continues when the child has finished.
    struct Awaiter {
        std::coroutine_handle<promise_type> child;
        bool await_ready() const
        {
            if (!child)
                return true;
            child.resume();
            return child.done();
        }
        void await_suspend(std::coroutine_handle<> parent) const noexcept
        {
            child.promise().continuation = parent;
        }
        int await_resume() const noexcept
        {
            return child ? child.promise().value : int(ZIP_ALGO_ERR_NOMEM);
        }
    };
    Awaiter operator co_await() &&noexcept { return Awaiter{h_}; }

  private:
    friend class Runner;
    explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
    std::coroutine_handle<promise_type> h_;
};

// Drives one outermost task.
class Runner
{
  public:
    explicit Runner(Task task) : task_(std::move(task)) {}
    Runner(const Runner &) = delete;
    Runner &operator=(const Runner &) = delete;

    // Runs the algorithm as far as it can go now; true once it has finished.
    bool advance()
    {
        if (!task_.valid())
            return true;
        std::coroutine_handle<> next;
        if (!started_) {
            started_ = true;
            next = task_.h_;
        } else if (blocked_.handle) {
            if (!blocked_.ready(blocked_.awaiter))
                return false;
            next = std::exchange(blocked_.handle, nullptr);
        }
        if (next) {
            Blocked *const outer = std::exchange(current_blocked, &blocked_);
            next.resume();
            current_blocked = outer;
        }
        return task_.h_.done();
    }

    // The algorithm's ZIP_ALGO_ code, once advance() returned true.
    int result() const { return task_.valid() ? task_.h_.promise().value : ZIP_ALGO_ERR_NOMEM; }

  private:
    Task task_;
    Blocked blocked_;
    bool started_ = false;
};

// Runs a task to its end: over a blocking transport in one advance(), otherwise by polling.
inline int run_to_end(Task task)
{
    Runner r(std::move(task));
    while (!r.advance()) {
    }
    return r.result();
}

// What wait and wait_any share: over a blocking transport, Derived::block() waits on the
// spot; over a testing one, Derived::poll() is tried now and, while it says "not yet", by the
// Runner each time it advances. The transport's status code is the result.
template <class Derived> class TransportAwait
{
  public:
    explicit TransportAwait(const zip_transport_t *t) : t_(t) {}
    bool await_ready()
    {
        if (t_->test == nullptr) {
            rc_ = self().block();
            return true;
        }
        return self().poll();
    }
    void await_suspend(std::coroutine_handle<> h)
    {
        *current_blocked = Blocked{h, &TransportAwait::ready, this};
    }
    int await_resume() const { return rc_; }

  protected:
    const zip_transport_t *t_;
    int rc_ = 0;

  private:
    Derived &self() { return *static_cast<Derived *>(this); }
    static bool ready(void *me) { return static_cast<TransportAwait *>(me)->self().poll(); }
};

// co_await wait(t, &req, &len): t->wait, or suspend until t->test says the request completed.
class wait : public TransportAwait<wait>
{
  public:
    wait(const zip_transport_t *t, zip_req_t *req, size_t *len)
        : TransportAwait(t), req_(req), len_(len)
    {
    }
    int block() { return t_->wait(t_->ctx, req_, len_); }
    bool poll()
    {
        int done = 0;
        rc_ = t_->test(t_->ctx, req_, &done, len_);
        return rc_ != 0 || done != 0;
    }

  private:
    zip_req_t *req_;
    size_t *len_;
};

// co_await wait_any(t, n, reqs, &index, &len): t->waitany, or suspend until one of the active
// requests completes (index n: none was active).
class wait_any : public TransportAwait<wait_any>
{
  public:
    wait_any(const zip_transport_t *t, size_t n, zip_req_t *reqs, size_t *index, size_t *len)
        : TransportAwait(t), n_(n), reqs_(reqs), index_(index), len_(len)
    {
    }
    int block() { return t_->waitany(t_->ctx, n_, reqs_, index_, len_); }
    bool poll()
    {
        bool any_active = false;
        for (size_t k = 0; k < n_; ++k) {
            if (reqs_[k] == nullptr)
                continue;
            any_active = true;
            int done = 0;
            rc_ = t_->test(t_->ctx, &reqs_[k], &done, len_);
            if (rc_ != 0 || done) {
                *index_ = k;
                return true;
            }
        }
        if (!any_active)
            *index_ = n_;
        return !any_active;
    }

  private:
    size_t n_;
    zip_req_t *reqs_;
    size_t *index_;
    size_t *len_;
};

// co_await let_sends_move(t): between two codec calls, lets what this rank has posted move on.
// Over a blocking transport t->progress (if any) runs on the spot; over a testing one (the
// non-blocking calls, which advance inside the progress engine and must not call it again) the
// task suspends until the next advance, and the engine moves the sends meanwhile.
class let_sends_move
{
  public:
    explicit let_sends_move(const zip_transport_t *t) : t_(t) {}
    bool await_ready() const
    {
        if (t_->test != nullptr)
            return false;
        if (t_->progress != nullptr)
            t_->progress(t_->ctx);
        return true;
    }
    void await_suspend(std::coroutine_handle<> h)
    {
        *current_blocked = Blocked{h, &let_sends_move::ready, this};
    }
    void await_resume() const {}

  private:
    static bool ready(void *) { return true; }
    const zip_transport_t *t_;
};

} // namespace zipcoll

// Wraps a task as a non-blocking call (zip_algo.h); NULL when memory is short.
zip_algo_call_t *zip_algo_call_new(zipcoll::Task task);
