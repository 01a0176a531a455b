#include "exchange.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

namespace zipcoll {
namespace {

// Same rule as the broadcast: the first compressed block is the sample; if it shrinks by less
// than this the remaining blocks go raw.
constexpr double kWorthwhileRatio = 0.9;

int keep_first(int current, int rc) { return current != 0 ? current : rc; }

size_t staging_bytes(const ExchangePlan &p)
{
    size_t total = 0;
    if (!p.try_compress) return 0;
    for (const auto &s : p.sends)
        if (s.bytes >= p.threshold && s.bytes > 1) total += s.bytes;
    return total;
}

size_t largest_possible_frame(const ExchangePlan &p)
{
    size_t m = 0;
    for (const auto &r : p.recvs)
        if (r.bytes >= p.threshold) m = std::max(m, r.bytes);
    return m;
}

}  // namespace

int run_exchange(const zip_transport_t *t, const zip_codec_ops_t *codec, const ExchangePlan &plan,
                 zip_algo_result_t *res)
{
    // Everything that can fail for lack of memory happens before the first post.
    std::unique_ptr<char[]> send_staging, frame_scratch;
    std::vector<zip_req_t> rreqs, sreqs;
    try {
        rreqs.assign(plan.recvs.size(), nullptr);
        sreqs.reserve(plan.sends.size());
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
    if (const size_t n = staging_bytes(plan)) {
        send_staging.reset(new (std::nothrow) char[n]);
        if (!send_staging) return ZIP_ALGO_ERR_NOMEM;
    }
    if (const size_t n = largest_possible_frame(plan)) {
        frame_scratch.reset(new (std::nothrow) char[n]);
        if (!frame_scratch) return ZIP_ALGO_ERR_NOMEM;
    }

    int err = ZIP_ALGO_OK;
    // Receives first, at the raw length, straight into the destination.
    for (size_t k = 0; k < plan.recvs.size(); ++k) {
        const Transfer &r = plan.recvs[k];
        if (t->irecv(t->ctx, r.ptr, r.bytes, r.peer, plan.tag, &rreqs[k]) != 0) {
            rreqs.resize(k);
            err = ZIP_ALGO_ERR_TRANSPORT;
            break;
        }
    }

    bool compressing = err == ZIP_ALGO_OK && plan.try_compress && codec && send_staging;
    bool sampled = false;
    char *slot = send_staging.get();
    for (size_t k = 0; k < plan.sends.size() && err == ZIP_ALGO_OK; ++k) {
        const Transfer &s = plan.sends[k];
        const char *out = s.ptr;
        size_t out_len = s.bytes;
        if (compressing && s.bytes >= plan.threshold && s.bytes > 1) {
            size_t frame_len = 0;
            const int rc = codec->compress(codec->ctx, plan.elem_type, s.ptr, s.bytes, slot,
                                           s.bytes - 1, &frame_len);
            if (rc == 0 && frame_len < s.bytes) {
                out = slot;
                out_len = frame_len;
                res->compressed = 1;
            }
            if (!sampled) {
                sampled = true;
                if (rc != 0 || double(frame_len) > kWorthwhileRatio * double(s.bytes))
                    compressing = false;
            }
            slot += s.bytes;
        }
        zip_req_t req = nullptr;
        if (t->isend(t->ctx, out, out_len, s.peer, plan.tag, &req) != 0) {
            err = ZIP_ALGO_ERR_TRANSPORT;
            break;
        }
        sreqs.push_back(req);
        res->bytes_in += s.bytes;
        res->bytes_out += out_len;
    }

    // Decode each frame as soon as its receive completes, while the others are in flight.
    for (size_t done = 0; done < rreqs.size(); ++done) {
        size_t idx = rreqs.size(), got = 0;
        if (t->waitany(t->ctx, rreqs.size(), rreqs.data(), &idx, &got) != 0 || idx >= rreqs.size()) {
            err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
            continue;  // keep waiting for the rest so no request outlives the call
        }
        const Transfer &r = plan.recvs[idx];
        if (got == r.bytes) continue;
        // Only a block at or above the threshold may arrive as a (shorter) frame.
        if (got > r.bytes || r.bytes < plan.threshold || !codec || !frame_scratch) {
            err = keep_first(err, ZIP_ALGO_ERR_CODEC);
            continue;
        }
        res->compressed = 1;
        std::memcpy(frame_scratch.get(), r.ptr, got);
        size_t raw_len = 0;
        if (codec->decompress(codec->ctx, frame_scratch.get(), got, r.ptr, r.bytes, &raw_len) != 0 ||
            raw_len != r.bytes)
            err = keep_first(err, ZIP_ALGO_ERR_CODEC);
    }

    for (auto &s : sreqs)
        if (t->wait(t->ctx, &s, nullptr) != 0) err = keep_first(err, ZIP_ALGO_ERR_TRANSPORT);
    res->peer_error = err;
    return err;
}

}  // namespace zipcoll
