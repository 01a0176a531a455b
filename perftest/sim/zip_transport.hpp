// zip's transport seam (algo/transport.h) on the simulated network, for one rank. Besides
// moving messages it charges the copies the algorithms make outside the codec, at memcpy
// speed: a frame that arrives short in the caller's buffer is copied aside before it is decoded
// (zip_algo.h's wire rule), and what the algorithms copy through transport.h's `copy` (raw
// blocks out of the scatter-allgather bcast's coalesced steps).
//
// The caller's buffers (one stand-in, `user`) hold no data, and their messages carry none. A
// message from the algorithms' own memory of at most kCarriedBytes carries its bytes, so that
// what they tell each other (bcast's step lengths) arrives; that costs nothing at scale.
#pragma once

#include <cstddef>
#include <vector>

#include "network.hpp"
#include "sim_codec.hpp"
#include "transport.h"

namespace simscale
{

class ZipTransport : private ArrivalWork
{
  public:
    // `user` .. `user` + user_len: the stand-in for every buffer of the caller.
    ZipTransport(Network *net, int rank, const SimCodec *copies, const char *user, size_t user_len);

    // The largest message whose bytes travel.
    static constexpr size_t kCarriedBytes = 16384;

    // Valid while this object lives. Zeroed first, so that fields a newer transport.h adds
    // stay NULL (their documented default).
    const zip_transport_t *get() const { return &t_; }

  private:
    static int isend(void *ctx, const void *buf, size_t len, int peer, int tag, zip_req_t *req);
    static int irecv(void *ctx, void *buf, size_t cap, int peer, int tag, zip_req_t *req);
    static int wait(void *ctx, zip_req_t *req, size_t *len);
    static int waitany(void *ctx, size_t n, zip_req_t *reqs, size_t *index, size_t *len);
    // Charges the copy's time; the bytes stand for data the simulation does not have.
    static void copy(void *ctx, void *dst, const void *src, size_t n);
    // The copy aside of a short receive into the caller's buffer (`into` null, see irecv).
    double seconds(const void *into, size_t len, size_t cap) const override;
    static int completed(const Completion &c, size_t *len);
    // Whether buf is in the caller's buffer (else the algorithms' own memory).
    bool user(const void *buf) const;

    Network *net_;
    int rank_;
    const SimCodec *copies_;
    const char *user_;
    size_t user_len_;
    zip_transport_t t_{};
    std::vector<Request *> any_;
};

} // namespace simscale
