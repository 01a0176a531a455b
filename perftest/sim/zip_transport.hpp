// zip's transport seam (algo/transport.h) on the simulated network, for one rank. Besides
// moving messages it charges the one copy the algorithms make outside the codec: a frame that
// arrives short in the user's buffer is copied aside before it is decoded (zip_algo.h's wire
// rule), at memcpy speed.
#pragma once

#include <vector>

#include "network.hpp"
#include "sim_codec.hpp"
#include "transport.h"

namespace simscale
{

class ZipTransport : private ArrivalWork
{
  public:
    ZipTransport(Network *net, int rank, const SimCodec *copies);

    // Valid while this object lives. Zeroed first, so that fields a newer transport.h adds
    // stay NULL (their documented default).
    const zip_transport_t *get() const { return &t_; }

  private:
    static int isend(void *ctx, const void *buf, size_t len, int peer, int tag, zip_req_t *req);
    static int irecv(void *ctx, void *buf, size_t cap, int peer, int tag, zip_req_t *req);
    static int wait(void *ctx, zip_req_t *req, size_t *len);
    static int waitany(void *ctx, size_t n, zip_req_t *reqs, size_t *index, size_t *len);
    // The copy aside of a short receive.
    double seconds(size_t len, size_t cap) const override;
    static int completed(const Completion &c, size_t *len);

    Network *net_;
    int rank_;
    const SimCodec *copies_;
    zip_transport_t t_{};
    std::vector<Request *> any_;
};

} // namespace simscale
