#include "zip_transport.hpp"

namespace simscale
{

ZipTransport::ZipTransport(Network *net, int rank, const SimCodec *copies)
    : net_(net), rank_(rank), copies_(copies)
{
    t_.ctx = this;
    t_.rank = rank;
    t_.size = net->ranks();
    t_.isend = &ZipTransport::isend;
    t_.irecv = &ZipTransport::irecv;
    t_.wait = &ZipTransport::wait;
    t_.waitany = &ZipTransport::waitany;
}

int ZipTransport::isend(void *ctx, const void *, size_t len, int peer, int, zip_req_t *req)
{
    auto *self = static_cast<ZipTransport *>(ctx);
    *req = self->net_->isend(self->rank_, peer, len);
    return 0;
}

int ZipTransport::irecv(void *ctx, void *, size_t cap, int peer, int, zip_req_t *req)
{
    auto *self = static_cast<ZipTransport *>(ctx);
    *req = self->net_->irecv(self->rank_, peer, cap);
    return 0;
}

double ZipTransport::seconds(size_t len, size_t cap) const
{
    return len < cap ? copies_->copy_seconds(len) : 0.0;
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
    const Completion c = self->net_->wait(static_cast<Request *>(*req), self);
    *req = nullptr;
    return completed(c, len);
}

int ZipTransport::waitany(void *ctx, size_t n, zip_req_t *reqs, size_t *index, size_t *len)
{
    auto *self = static_cast<ZipTransport *>(ctx);
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
