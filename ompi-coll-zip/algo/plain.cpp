// The plain blocks of alltoallv and gatherv (exchange.hpp).
#include "exchange.hpp"

namespace zipcoll
{

int keep_first(int current, int rc)
{
    return current != 0 ? current : rc;
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
    void *bytes = block.ptr;
    if (bytes == nullptr) {
        if (block.typed == nullptr || t->byte_view == nullptr)
            return ZIP_ALGO_ERR_ARG;
        if (t->byte_view(t->ctx, block.typed, sending ? 1 : 0, &bytes) != 0 || bytes == nullptr)
            return ZIP_ALGO_ERR_NOMEM;
    }
    *coded = {peer, static_cast<char *>(bytes), block.bytes};
    return ZIP_ALGO_OK;
}

namespace
{

// A plain block travels in the caller's layout when the transport can, else as its bytes.
int post_one(const zip_transport_t *t, const zip_block_t &b, int peer, int tag, bool sending,
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

} // namespace

int PlainBlocks::post(const zip_transport_t *t, int tag)
{
    try {
        reqs_.assign(recvs_.size() + sends_.size(), nullptr);
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    // Receives first, so that early senders find them.
    for (const Entry &r : recvs_) {
        if (post_one(t, r.block, r.peer, tag, false, &reqs_[posted_]) != 0)
            return ZIP_ALGO_ERR_TRANSPORT;
        ++posted_;
    }
    for (const Entry &s : sends_) {
        if (post_one(t, s.block, s.peer, tag, true, &reqs_[posted_]) != 0)
            return ZIP_ALGO_ERR_TRANSPORT;
        ++posted_;
    }
    return ZIP_ALGO_OK;
}

int PlainBlocks::finish(const zip_transport_t *t, zip_algo_result_t *res)
{
    int err = ZIP_ALGO_OK;
    // Every posted request is waited for, failed or not: none outlives the call.
    for (size_t k = 0; k < posted_; ++k) {
        size_t got = 0;
        if (t->wait(t->ctx, &reqs_[k], k < recvs_.size() ? &got : nullptr) != 0) {
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
        } else if (k < recvs_.size() && got != recvs_[k].block.bytes && err == ZIP_ALGO_OK) {
            // The ranks disagree on which blocks are plain (their settings differ).
            res->plain_got = got;
            res->plain_want = recvs_[k].block.bytes;
            err = ZIP_ALGO_ERR_LENGTH;
        }
    }
    posted_ = 0;
    return err;
}

} // namespace zipcoll
