// The plain blocks of alltoallv, gatherv and scatterv, and what every exchange shares
// (exchange.hpp).
#include "exchange.hpp"

#include <cstring>

namespace zipcoll
{

Task wait_all(const zip_transport_t *t, std::vector<zip_req_t> &reqs)
{
    int err = ZIP_ALGO_OK;
    for (zip_req_t &req : reqs)
        if (req != nullptr && co_await wait(t, &req, nullptr) != 0)
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
    co_return err;
}

int keep_first(int current, int rc)
{
    return current != 0 ? current : rc;
}

int begin_exchange(const zip_transport_t *t, const zip_block_t *blocks, zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    res->verdict = -1;
    if (t->size <= 1)
        return 1;
    return blocks == nullptr ? ZIP_ALGO_ERR_ARG : ZIP_ALGO_OK;
}

int PlainBlocks::place(const zip_transport_t *t, const BlockPolicy &policy,
                       const zip_block_t &block, int peer, bool sending, Transfer *coded)
{
    *coded = Transfer{};
    if (block.bytes == 0)
        return ZIP_ALGO_OK;
    try {
        if (policy.plain(block.bytes, peer)) {
            (sending ? sends_ : recvs_).push_back({peer, block});
            return ZIP_ALGO_OK;
        }
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    char *bytes = nullptr;
    const int rc = byte_view(t, block, sending, &bytes);
    if (rc == ZIP_ALGO_OK)
        *coded = {peer, bytes, block.bytes};
    return rc;
}

int byte_view(const zip_transport_t *t, const zip_block_t &block, bool sending, char **bytes)
{
    *bytes = static_cast<char *>(block.ptr);
    if (*bytes != nullptr)
        return ZIP_ALGO_OK;
    void *view = nullptr;
    if (block.typed == nullptr || t->byte_view == nullptr)
        return ZIP_ALGO_ERR_ARG;
    if (t->byte_view(t->ctx, block.typed, sending ? 1 : 0, &view) != 0 || view == nullptr)
        return ZIP_ALGO_ERR_NOMEM;
    *bytes = static_cast<char *>(view);
    return ZIP_ALGO_OK;
}

void transport_copy(const zip_transport_t *t, void *dst, const void *src, size_t n)
{
    if (t->copy != nullptr)
        t->copy(t->ctx, dst, src, n);
    else
        std::memcpy(dst, src, n);
}

int place_gather_block(const zip_transport_t *t, const BlockPolicy &policy,
                       const zip_block_t &block, bool own, GatherBlock *x)
{
    x->block = block;
    x->bytes = nullptr;
    x->plain = block.bytes == 0 || policy.plain(block.bytes, 0);
    return x->plain ? ZIP_ALGO_OK : byte_view(t, block, own, &x->bytes);
}

int post_as_is(const zip_transport_t *t, const zip_block_t &b, int peer, int tag, bool sending,
               zip_req_t *req)
{
    if (b.typed != nullptr && t->isend_plain != nullptr)
        return sending ? t->isend_plain(t->ctx, b.typed, peer, tag, req)
                       : t->irecv_plain(t->ctx, b.typed, peer, tag, req);
    if (b.ptr == nullptr)
        return ZIP_ALGO_ERR_ARG;
    return sending ? t->isend(t->ctx, b.ptr, b.bytes, peer, tag, req)
                   : t->irecv(t->ctx, b.ptr, b.bytes, peer, tag, req);
}

int PlainBlocks::post(const zip_transport_t *t, int tag)
{
    try {
        reqs_.assign(recvs_.size() + sends_.size(), nullptr);
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    // Receives first, so that early senders find them.
    for (const Entry &r : recvs_) {
        if (post_as_is(t, r.block, r.peer, tag, false, &reqs_[posted_]) != 0)
            return ZIP_ALGO_ERR_TRANSPORT;
        ++posted_;
    }
    for (const Entry &s : sends_) {
        if (post_as_is(t, s.block, s.peer, tag, true, &reqs_[posted_]) != 0)
            return ZIP_ALGO_ERR_TRANSPORT;
        ++posted_;
    }
    return ZIP_ALGO_OK;
}

Task PlainBlocks::finish(const zip_transport_t *t, zip_algo_result_t *res)
{
    int err = ZIP_ALGO_OK;
    // Every posted request is waited for, failed or not: none outlives the call.
    for (size_t k = 0; k < posted_; ++k) {
        size_t got = 0;
        if (co_await wait(t, &reqs_[k], k < recvs_.size() ? &got : nullptr) != 0) {
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
        } else if (k < recvs_.size() && got != recvs_[k].block.bytes && err == ZIP_ALGO_OK) {
            // The ranks disagree on which blocks are plain (their settings differ).
            res->plain_got = got;
            res->plain_want = recvs_[k].block.bytes;
            err = ZIP_ALGO_ERR_LENGTH;
        }
    }
    posted_ = 0;
    co_return err;
}

int send_or_pack_typed(const zip_transport_t *t, bool compressing, Transfer &s, int tag,
                       char *packed, zip_req_t *req, zip_algo_result_t *res, bool *posted)
{
    *posted = false;
    if (!compressing) {
        if (t->isend_plain(t->ctx, s.typed, s.peer, tag, req) != 0)
            return ZIP_ALGO_ERR_TRANSPORT;
        res->bytes_in += s.bytes;
        res->bytes_out += s.bytes;
        *posted = true;
        return ZIP_ALGO_OK;
    }
    if (packed != nullptr) {
        s.ptr = packed;
        return ZIP_ALGO_OK;
    }
    return byte_view(t, zip_block_t{nullptr, s.bytes, s.typed}, true, &s.ptr);
}

} // namespace zipcoll
