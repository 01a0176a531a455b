// Compressed neighbourhood alltoall(v): every rank sends block k to its k-th out-neighbour and
// receives block k from its k-th in-neighbour (MPI_Cart_shift's pairs, a graph's edges), each
// block compressed once by its sender where the sample says it pays, decoded once by its
// receiver (see exchange.cpp); plain blocks all at once beside them.
//
// A neighbour may appear more than once (a periodic dimension of two ranks, a graph with several
// edges between two ranks). Messages between two ranks on one tag match in the order they were
// posted, so both ends post in neighbour order and the k-th block for a rank meets that rank's
// k-th receive from this one, as coll/basic's blocking neighbourhood collectives do. Both ends
// sort a block into plain or coded alike (its length and the pair's locality), and each class is
// posted in neighbour order, plain ones first.
#include "exchange.hpp"
#include "task.hpp"
#include "zip_algo.h"

namespace zipcoll
{

namespace
{

// Sorts the blocks of one side into plain and coded, in neighbour order; a block to or from
// MPI_PROC_NULL (a negative peer) moves nowhere. A send of the coded class in the caller's own
// layout stays unpacked until the exchange codes it (Transfer::typed), and goes raw as it is
// once its sender does not compress: packing every face of a 3-D grid into bytes before the
// first send cost more than compression saved (netemu, 2x2x2 grid, 330 KiB faces as subarrays:
// 0.90x of coll/basic on smooth data, 0.80x on random, whose PML packs as it sends).
int place_side(const zip_transport_t *t, ExchangePlan &plan, int n, const int *peers,
               const zip_block_t *blocks, bool sending)
{
    const bool lazy = sending && t->isend_plain != nullptr;
    for (int k = 0; k < n; ++k) {
        if (peers[k] < 0 || peers[k] >= t->size)
            continue;
        const zip_block_t &b = blocks[k];
        if (lazy && b.ptr == nullptr && b.typed != nullptr && b.bytes > 0 &&
            !plan.policy.plain(b.bytes, peers[k])) {
            plan.sends.push_back(Transfer{peers[k], nullptr, b.bytes, b.typed});
            continue;
        }
        Transfer coded;
        const int rc = plan.plain.place(t, plan.policy, b, peers[k], sending, &coded);
        if (rc != ZIP_ALGO_OK)
            return rc;
        if (coded.bytes > 0)
            (sending ? plan.sends : plan.recvs).push_back(coded);
    }
    return ZIP_ALGO_OK;
}

Task neighbor_alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                        const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    res->verdict = -1;
    if ((a->out_degree > 0 && (a->send == nullptr || a->send_peers == nullptr)) ||
        (a->in_degree > 0 && (a->recv == nullptr || a->recv_peers == nullptr)) ||
        a->out_degree < 0 || a->in_degree < 0)
        co_return ZIP_ALGO_ERR_ARG;
    // std::bad_alloc ends the task with ZIP_ALGO_ERR_NOMEM.
    ExchangePlan plan;
    plan.tag = a->tag;
    plan.policy = BlockPolicy::of(*a, *t);
    zip_algo_sender_memo_t *memo = plan.policy.policy != nullptr &&
                                           plan.policy.policy->mode == ZIP_POLICY_AUTO &&
                                           plan.policy.try_compress
                                       ? a->memo
                                       : nullptr;
    // Non-blocking calls of one kind may be in flight at once and advance in any thread's
    // progress: the memo is read and written atomically (a lost update costs a sample or skips
    // one, never a wrong block: each call's frames tell its receivers).
    if (memo != nullptr && a->out_degree > 0) {
        unsigned left = __atomic_load_n(&memo->raw_calls_left, __ATOMIC_RELAXED);
        while (left > 0 && !__atomic_compare_exchange_n(&memo->raw_calls_left, &left, left - 1,
                                                        false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
        if (left > 0)
            plan.policy.try_compress = false;
    }
    int rc = place_side(t, plan, a->out_degree, a->send_peers, a->send, true);
    if (rc == ZIP_ALGO_OK)
        rc = place_side(t, plan, a->in_degree, a->recv_peers, a->recv, false);
    if (rc != ZIP_ALGO_OK)
        co_return rc;
    // Unlike alltoall(v)'s p - 1, a halo's blocks that may travel coded are few (its remote
    // neighbours: one or two of six where a node holds a slab of the grid), so this sender
    // judges its sample as an exchange of that many blocks, whose fill and drain do not
    // overlap the wire (simscale, 4x4x4 grid in nodes of 32 at 400 Gbit/s, one remote
    // neighbour each: judged as many blocks it compressed at 0.77x of coll/basic). The choice
    // is this sender's; its frames tell the receivers.
    zip_algo_policy_t few{};
    if (plan.policy.policy != nullptr) {
        few = *plan.policy.policy;
        few.speeds.ends = int(plan.sends.size());
        plan.policy.policy = &few;
    }
    rc = co_await run_exchange(t, codec, plan, res);
    if (memo != nullptr && rc == ZIP_ALGO_OK && res->verdict >= 0)
        __atomic_store_n(
            &memo->raw_calls_left,
            res->verdict == ZIP_VERDICT_COMPRESS ? 0u : unsigned(ZIP_ALGO_RAW_CALLS_AFTER_SAMPLE),
            __ATOMIC_RELAXED);
    co_return rc;
}

} // namespace

} // namespace zipcoll

extern "C" int zip_algo_neighbor_alltoallv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                           const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(zipcoll::neighbor_alltoallv(t, codec, a, res));
}

extern "C" zip_algo_call_t *zip_algo_ineighbor_alltoallv(const zip_transport_t *t,
                                                         const zip_codec_ops_t *codec,
                                                         const zip_exchange_args_t *a,
                                                         zip_algo_result_t *res)
{
    return zip_algo_call_new(zipcoll::neighbor_alltoallv(t, codec, a, res));
}
