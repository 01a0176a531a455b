// Compressed broadcast: the root compresses each segment once, every interior rank forwards
// the compressed segment as soon as it arrives and only then decodes its own copy, so codec
// work on one rank overlaps network transfer on the next.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "tree.hpp"
#include "zip_algo.h"

namespace {

using zipcoll::TreeNode;

// How many segment receives a non-root keeps posted ahead of the one it is working on.
constexpr size_t kRecvWindow = 4;

// The root stops compressing when the first segment shrinks by less than this: such data is
// close to incompressible and raw is nearly free.
constexpr double kWorthwhileRatio = 0.9;

struct Segments {
    size_t seg;
    size_t count;
    size_t bytes;
    size_t offset(size_t i) const { return i * seg; }
    size_t length(size_t i) const { return std::min(seg, bytes - i * seg); }
};

int first_error(int current, int rc) { return current != 0 ? current : rc; }

// Sends one segment (frame or raw) to every child; requests accumulate in `sends`.
int forward(const zip_transport_t *t, const TreeNode &node, const char *data, size_t len,
            size_t raw_len, int tag, std::vector<zip_req_t> &sends, zip_algo_result_t *res)
{
    for (int child : node.children) {
        zip_req_t req = nullptr;
        if (t->isend(t->ctx, data, len, child, tag, &req) != 0) return ZIP_ALGO_ERR_TRANSPORT;
        sends.push_back(req);
        res->bytes_in += raw_len;
        res->bytes_out += len;
    }
    return ZIP_ALGO_OK;
}

int wait_all(const zip_transport_t *t, std::vector<zip_req_t> &reqs)
{
    int err = ZIP_ALGO_OK;
    for (auto &r : reqs) {
        if (t->wait(t->ctx, &r, nullptr) != 0) err = first_error(err, ZIP_ALGO_ERR_TRANSPORT);
    }
    reqs.clear();
    return err;
}

int root_side(const zip_transport_t *t, const zip_codec_ops_t *codec, const zip_bcast_args_t *a,
              const TreeNode &node, const Segments &sg, char *staging, zip_algo_result_t *res)
{
    char *buf = static_cast<char *>(a->buf);
    bool compressing = a->try_compress && codec != nullptr && staging != nullptr;
    std::vector<zip_req_t> sends;
    sends.reserve(sg.count * node.children.size());
    int err = ZIP_ALGO_OK;

    for (size_t i = 0; i < sg.count && err == ZIP_ALGO_OK; ++i) {
        const size_t off = sg.offset(i), len = sg.length(i);
        const char *out = buf + off;
        size_t out_len = len;
        if (compressing && len > 1) {
            size_t frame_len = 0;
            const int rc = codec->compress(codec->ctx, a->elem_type, buf + off, len,
                                           staging + off, len - 1, &frame_len);
            if (rc == 0 && frame_len < len) {
                out = staging + off;
                out_len = frame_len;
                res->compressed = 1;
            }
            // The first segment is the sample that decides for the rest.
            if (i == 0 && (rc != 0 || double(frame_len) > kWorthwhileRatio * double(len)))
                compressing = false;
        }
        err = forward(t, node, out, out_len, len, a->tag, sends, res);
    }
    return first_error(err, wait_all(t, sends));
}

int leaf_or_interior_side(const zip_transport_t *t, const zip_codec_ops_t *codec,
                          const zip_bcast_args_t *a, const TreeNode &node, const Segments &sg,
                          char *staging, zip_algo_result_t *res)
{
    char *buf = static_cast<char *>(a->buf);
    std::vector<zip_req_t> recvs(sg.count, nullptr);
    std::vector<zip_req_t> sends;
    sends.reserve(sg.count * node.children.size());

    auto post = [&](size_t i) {
        return t->irecv(t->ctx, buf + sg.offset(i), sg.length(i), node.parent, a->tag, &recvs[i]);
    };
    size_t posted = 0;
    for (; posted < std::min(kRecvWindow, sg.count); ++posted) {
        if (post(posted) != 0) {
            recvs.resize(posted);
            wait_all(t, recvs);
            return ZIP_ALGO_ERR_TRANSPORT;
        }
    }

    int err = ZIP_ALGO_OK;
    for (size_t i = 0; i < sg.count; ++i) {
        size_t got = 0;
        if (t->wait(t->ctx, &recvs[i], &got) != 0) {
            // The stream from the parent is broken; drain what is posted and give up.
            for (size_t j = i + 1; j < posted; ++j) t->wait(t->ctx, &recvs[j], nullptr);
            wait_all(t, sends);
            return ZIP_ALGO_ERR_TRANSPORT;
        }
        if (posted < sg.count) {
            if (post(posted) != 0) err = first_error(err, ZIP_ALGO_ERR_TRANSPORT);
            else ++posted;
        }
        const size_t off = sg.offset(i), len = sg.length(i);
        if (got == len) {
            err = first_error(err, forward(t, node, buf + off, len, len, a->tag, sends, res));
            continue;
        }
        // A frame landed in our own slot of the user buffer: move it aside so it can be
        // forwarded while we decode into the slot. A leaf forwards nothing and reuses one
        // segment of scratch; an interior rank keeps each frame until its sends complete.
        res->compressed = 1;
        char *frame = node.children.empty() ? staging : staging + off;
        std::memcpy(frame, buf + off, got);
        err = first_error(err, forward(t, node, frame, got, len, a->tag, sends, res));
        size_t raw_len = 0;
        const int rc = codec ? codec->decompress(codec->ctx, frame, got, buf + off, len, &raw_len)
                             : 1;
        if (rc != 0 || raw_len != len) err = first_error(err, ZIP_ALGO_ERR_CODEC);
    }
    // A failed post leaves later segments unreceived; the error already says so.
    return first_error(err, wait_all(t, sends));
}

}  // namespace

extern "C" int zip_algo_bcast(const zip_transport_t *t, const zip_codec_ops_t *codec,
                              const zip_bcast_args_t *a, zip_algo_result_t *res)
{
    *res = zip_algo_result_t{};
    if (a->bytes == 0 || t->size <= 1) return ZIP_ALGO_OK;
    if (a->buf == nullptr || a->root < 0 || a->root >= t->size) return ZIP_ALGO_ERR_ARG;

    Segments sg;
    sg.seg = std::max<size_t>(8, a->segment_bytes & ~size_t(7));
    sg.bytes = a->bytes;
    sg.count = (a->bytes + sg.seg - 1) / sg.seg;

    int topology = a->topology;
    if (topology == ZIP_BCAST_AUTO)
        topology = sg.count >= size_t(t->size) ? ZIP_BCAST_CHAIN : ZIP_BCAST_BINOMIAL;
    const TreeNode node = topology == ZIP_BCAST_CHAIN ? zipcoll::chain_node(t->rank, t->size, a->root)
                                                      : zipcoll::binomial_node(t->rank, t->size, a->root);

    const bool is_root = t->rank == a->root;
    // Frames are never longer than their raw segment, so one message-sized area holds them
    // all (a leaf needs one segment); allocated before anything is posted so that a failure
    // leaves no request behind.
    std::unique_ptr<char[]> staging;
    if (!is_root || a->try_compress) {
        const size_t need = (!is_root && node.children.empty()) ? std::min(sg.seg, a->bytes)
                                                                : a->bytes;
        staging.reset(new (std::nothrow) char[need]);
        if (!staging) return ZIP_ALGO_ERR_NOMEM;
    }
    try {
        const int rc = is_root ? root_side(t, codec, a, node, sg, staging.get(), res)
                               : leaf_or_interior_side(t, codec, a, node, sg, staging.get(), res);
        res->peer_error = rc;
        return rc;
    } catch (const std::bad_alloc &) {
        return ZIP_ALGO_ERR_NOMEM;
    }
}
