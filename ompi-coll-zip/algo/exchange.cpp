#include "exchange.hpp"

#include <algorithm>

namespace zipcoll
{

Task run_exchange(const zip_transport_t *t, const zip_codec_ops_t *codec, ExchangePlan &plan,
                  zip_algo_result_t *res)
{
    res->all_plain = plan.sends.empty() && plan.recvs.empty();
    // Everything that can fail for lack of memory happens before the first post.
    size_t staging_bytes = 0, scratch_bytes = 0;
    if (plan.policy.try_compress)
        for (const auto &s : plan.sends)
            if (plan.policy.may_compress(s.bytes))
                staging_bytes += s.bytes;
    for (const auto &r : plan.recvs)
        if (plan.policy.may_compress(r.bytes))
            scratch_bytes = std::max(scratch_bytes, r.bytes);
    // std::bad_alloc from the vectors ends the task with ZIP_ALGO_ERR_NOMEM.
    std::vector<zip_req_t> rreqs(plan.recvs.size(), nullptr), sreqs;
    sreqs.reserve(plan.sends.size());
    auto staging = raw_buffer(staging_bytes), scratch = raw_buffer(scratch_bytes);
    if ((staging_bytes && !staging) || (scratch_bytes && !scratch))
        co_return ZIP_ALGO_ERR_NOMEM;

    BlockCodec blocks(codec, plan.policy, res);
    int err = plan.plain.post(t, plan.tag);
    // Receives first, at the raw length, straight into the destination.
    size_t posted = 0;
    const auto post_next = [&]() {
        const Transfer &r = plan.recvs[posted];
        if (t->irecv(t->ctx, r.ptr, r.bytes, r.peer, plan.tag, &rreqs[posted]) != 0)
            return false;
        ++posted;
        return true;
    };
    const size_t first =
        plan.recv_window > 0 ? std::min(plan.recv_window, plan.recvs.size()) : plan.recvs.size();
    bool can_post = err == ZIP_ALGO_OK; // false once the transport refused a receive
    while (posted < first && can_post)
        if (!post_next()) {
            err = ZIP_ALGO_ERR_TRANSPORT;
            can_post = false;
        }

    char *slot = staging.get();
    const Transfer *coded = nullptr; // the last block encoded, and what it became
    const char *coded_out = nullptr;
    size_t coded_len = 0;
    for (size_t k = 0; k < plan.sends.size() && err == ZIP_ALGO_OK; ++k) {
        Transfer &s = plan.sends[k];
        if (s.ptr == nullptr && s.typed != nullptr) {
            // The same block as the one before (a neighbourhood allgather's) is packed already.
            zip_req_t req = nullptr;
            bool posted = false;
            err = send_or_pack_typed(t, blocks.compressing(), s, plan.tag,
                                     coded != nullptr && coded->typed == s.typed ? coded->ptr
                                                                                 : nullptr,
                                     &req, res, &posted);
            if (err != ZIP_ALGO_OK)
                break;
            if (posted) {
                sreqs.push_back(req);
                continue;
            }
        }
        const char *out = s.ptr;
        size_t out_len = s.bytes;
        // The same block to several peers (a neighbourhood allgather) is coded once.
        if (coded != nullptr && coded->ptr != nullptr && coded->ptr == s.ptr &&
            coded->bytes == s.bytes) {
            out = coded_out;
            out_len = coded_len;
        } else {
            const bool has_slot = slot != nullptr && plan.policy.may_compress(s.bytes);
            blocks.encode(s, has_slot ? slot : nullptr, &out, &out_len);
            if (has_slot)
                slot += s.bytes;
            coded = &s;
            coded_out = out;
            coded_len = out_len;
        }
        zip_req_t req = nullptr;
        if (t->isend(t->ctx, out, out_len, s.peer, plan.tag, &req) != 0) {
            err = ZIP_ALGO_ERR_TRANSPORT;
            break;
        }
        sreqs.push_back(req);
        res->bytes_in += s.bytes;
        res->bytes_out += out_len;
        // Before the next block's codec call: the sends posted so far (a rendezvous needs its
        // receiver's answer, then the sender's calls to move) go on while it runs. Without it a
        // scatter's root coded every block before any left (netemu, 8 ranks, 1 Gbit/s, 1 MiB
        // of gauss per rank: 1.07x of tuned's best where the wire allows 1.5x; MPI_Iscatter
        // the same, 1.08x, until it suspended here).
        if (k + 1 < plan.sends.size() && blocks.compressing())
            co_await let_sends_move(t);
    }

    // Decode each frame as soon as its receive completes, while the others are in flight; the
    // next receive is posted first, so that its block travels while this one is decoded. Only
    // posted requests are waited for (the others stay null: inactive).
    for (size_t done = 0; done < posted; ++done) {
        size_t idx = rreqs.size(), got = 0;
        if (co_await wait_any(t, rreqs.size(), rreqs.data(), &idx, &got) != 0 ||
            idx >= rreqs.size()) {
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
            continue; // keep waiting for the rest so no request outlives the call
        }
        // Even after an error: the senders of the blocks not yet posted wait for their receives.
        if (posted < plan.recvs.size() && can_post && !post_next()) {
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
            can_post = false;
        }
        err = keep_first(err, blocks.decode(plan.recvs[idx], got, scratch.get()));
    }

    for (auto &s : sreqs)
        if (co_await wait(t, &s, nullptr) != 0)
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
    co_return keep_first(err, co_await plan.plain.finish(t, res));
}

} // namespace zipcoll
