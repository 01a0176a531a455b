// Pairwise exchange with a window of steps in flight: like tuned's pairwise alltoallv, each
// port carries one peer's data at a time instead of every peer's at once (which, on a real
// link, costs more than it overlaps), yet step k+1 transfers while step k's frame decodes.
//
// Deadlock freedom: finishing step j waits only for the peers' step j, and a rank reaches
// step j after finishing steps < j - window + 1, so waits point to strictly earlier steps.
#include <algorithm>

#include "exchange.hpp"

namespace zipcoll
{
namespace
{

struct InFlight {
    zip_req_t send = nullptr;
    zip_req_t recv = nullptr;
    bool sending = false;
    bool receiving = false;
};

// Step k's transfers completed (waited for here): its frame decoded in place.
Task finish_step(const zip_transport_t *t, BlockCodec &blocks, const Step &st, InFlight &f,
                 char *scratch)
{
    int rc = ZIP_ALGO_OK;
    if (f.receiving) {
        size_t got = 0;
        if (co_await wait(t, &f.recv, &got) != 0)
            rc = ZIP_ALGO_ERR_TRANSPORT;
        else
            rc = blocks.decode(st.recv, got, scratch);
        f.receiving = false;
    }
    if (f.sending) {
        if (co_await wait(t, &f.send, nullptr) != 0)
            rc = keep_first(rc, ZIP_ALGO_ERR_TRANSPORT);
        f.sending = false;
    }
    co_return rc;
}

} // namespace

Task run_pairwise(const zip_transport_t *t, const zip_codec_ops_t *codec, PairwisePlan &plan,
                  zip_algo_result_t *res)
{
    const size_t window = std::max<size_t>(1, plan.window);
    size_t slot_bytes = 0, scratch_bytes = 0;
    res->all_plain = 1;
    for (const auto &st : plan.steps) {
        if (st.send.bytes > 0 || st.recv.bytes > 0)
            res->all_plain = 0;
        if (plan.policy.try_compress && plan.policy.may_compress(st.send.bytes))
            slot_bytes = std::max(slot_bytes, st.send.bytes);
        if (plan.policy.may_compress(st.recv.bytes))
            scratch_bytes = std::max(scratch_bytes, st.recv.bytes);
    }
    // Frames of the steps in flight live in `window` slots: step k uses slot k % window, whose
    // previous user, step k - window, has finished by then. (std::bad_alloc ends the task with
    // ZIP_ALGO_ERR_NOMEM.)
    std::vector<InFlight> flight(plan.steps.size());
    auto slots = raw_buffer(slot_bytes * window), scratch = raw_buffer(scratch_bytes);
    if ((slot_bytes && !slots) || (scratch_bytes && !scratch))
        co_return ZIP_ALGO_ERR_NOMEM;

    BlockCodec blocks(codec, plan.policy, res, plan.temporal);
    int err = plan.plain.post(t, plan.tag);
    // A rank with nothing to compress either way takes no steps: no peer expects a frame of it.
    const size_t steps = err == ZIP_ALGO_OK && !res->all_plain ? plan.steps.size() : 0;

    auto start = [&](size_t k) -> int {
        Step &st = plan.steps[k];
        InFlight &f = flight[k];
        if (st.recv.bytes > 0) {
            if (t->irecv(t->ctx, st.recv.ptr, st.recv.bytes, st.recv.peer, plan.tag, &f.recv) != 0)
                return ZIP_ALGO_ERR_TRANSPORT;
            f.receiving = true;
        }
        if (st.send.bytes > 0 && st.send.ptr == nullptr && st.send.typed != nullptr) {
            bool posted = false;
            const int rc = send_or_pack_typed(t, blocks.compressing(), st.send, plan.tag, nullptr,
                                              &f.send, res, &posted);
            if (rc != ZIP_ALGO_OK)
                return rc;
            if (posted) {
                f.sending = true;
                return ZIP_ALGO_OK;
            }
        }
        if (st.send.bytes > 0) {
            char *slot = slot_bytes ? slots.get() + (k % window) * slot_bytes : nullptr;
            const char *out = st.send.ptr;
            size_t out_len = st.send.bytes;
            blocks.encode(st.send, slot, &out, &out_len);
            if (t->isend(t->ctx, out, out_len, st.send.peer, plan.tag, &f.send) != 0)
                return ZIP_ALGO_ERR_TRANSPORT;
            f.sending = true;
            res->bytes_in += st.send.bytes;
            res->bytes_out += out_len;
        }
        return ZIP_ALGO_OK;
    };

    size_t started = 0, finished = 0;
    while (started < steps) {
        const int rc = start(started++);
        if (rc != ZIP_ALGO_OK) {
            err = rc;
            break; // a partly started step still finishes below: no request outlives the call
        }
        if (started >= window) {
            const size_t k = finished++;
            err = keep_first(
                err, co_await finish_step(t, blocks, plan.steps[k], flight[k], scratch.get()));
        }
    }
    while (finished < started) {
        const size_t k = finished++;
        err = keep_first(err,
                         co_await finish_step(t, blocks, plan.steps[k], flight[k], scratch.get()));
    }
    co_return keep_first(err, co_await plan.plain.finish(t, res));
}

} // namespace zipcoll
