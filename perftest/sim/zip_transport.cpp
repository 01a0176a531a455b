#include "zip_transport.hpp"

namespace simscale
{

ZipTransport::ZipTransport(Network *net, int rank, const SimCodec *copies, const char *user,
                           size_t user_len)
    : net_(net), rank_(rank), copies_(copies), user_(user), user_len_(user_len)
{
    t_.ctx = this;
    t_.rank = rank;
    t_.size = net->ranks();
    t_.isend = &ZipTransport::isend;
    t_.irecv = &ZipTransport::irecv;
    t_.wait = &ZipTransport::wait;
    t_.waitany = &ZipTransport::waitany;
    t_.copy = &ZipTransport::copy;
}

bool ZipTransport::user(const void *buf) const
{
    const auto *p = static_cast<const char *>(buf);
    return p >= user_ && p < user_ + user_len_;
}

int ZipTransport::isend(void *ctx, const void *buf, size_t len, int peer, int, zip_req_t *req)
{
    auto *self = static_cast<ZipTransport *>(ctx);
    self->copies_->pay();
    *req = self->net_->isend(self->rank_, peer, len,
                             !self->user(buf) && len <= kCarriedBytes ? buf : nullptr);
    return 0;
}

int ZipTransport::irecv(void *ctx, void *buf, size_t cap, int peer, int, zip_req_t *req)
{
    auto *self = static_cast<ZipTransport *>(ctx);
    self->copies_->pay();
    // Bytes arrive only where a sender carried them (from its own memory, see isend).
    *req = self->net_->irecv(self->rank_, peer, cap, self->user(buf) ? nullptr : buf);
    return 0;
}

void ZipTransport::copy(void *ctx, void *, const void *, size_t n)
{
    const SimCodec *c = static_cast<ZipTransport *>(ctx)->copies_;
    c->owe(c->copy_seconds(n));
}

double ZipTransport::seconds(const void *into, size_t len, size_t cap) const
{
    // A receive into the algorithms' own memory (bcast's frame store) keeps its frames there.
    return into == nullptr && len < cap ? copies_->copy_seconds(len) : 0.0;
}

int ZipTransport::completed(const Completion &c, size_t *len)
{
    if (len)
        *len = c.len;
    return c.error;
}

int ZipTransport::wait(void *ctx, zip_req_t *req, size_t *len)
{
    auto *self = static_cast<ZipTransport *>(ctx);
    self->copies_->pay();
    const Completion c = self->net_->wait(static_cast<Request *>(*req), self);
    *req = nullptr;
    return completed(c, len);
}

int ZipTransport::waitany(void *ctx, size_t n, zip_req_t *reqs, size_t *index, size_t *len)
{
    auto *self = static_cast<ZipTransport *>(ctx);
    self->copies_->pay();
    self->any_.resize(n);
    for (size_t i = 0; i < n; ++i)
        self->any_[i] = static_cast<Request *>(reqs[i]);
    const Completion c = self->net_->wait_any(self->any_, self);
    *index = c.index;
    if (c.index >= n)
        return 0;
    reqs[c.index] = nullptr;
    return completed(c, len);
}

} // namespace simscale
