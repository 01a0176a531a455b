// In-process stand-ins for the coll/zip algorithms' seams: a transport made of threads and
// per-(receiver, sender, tag) queues with MPI's matching order, and a small run-length codec.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "transport.h"

namespace algotest
{

// A block in the "caller's own layout" of the in-process transport: plain is bytes here, but
// moving it by handle (and making its byte view) is counted, so that tests see which path a
// block took.
struct Typed {
    char *data = nullptr;
    size_t bytes = 0;
};

struct WorldOptions {
    bool testing = false;       // the transports have `test` (see World)
    bool typed = false;         // the transport has the typed operations
    size_t max_message = 0;     // its limit on byte messages (0: none)
    bool rendezvous = false;    // see World::rendezvous
    bool self_messages = false; // a rank may message itself (as the PML allows); off, that is
                                // refused: no collective algorithm but the neighbourhood ones sends
                                // to itself
};

class World
{
  public:
    World(int size, const WorldOptions &o) : World(size, o.typed, o.max_message, o.testing)
    {
        rendezvous = rendezvous || o.rendezvous;
        self_messages_ = o.self_messages;
    }
    // typed: the transport has the typed operations (isend_plain, irecv_plain, byte_view);
    // max_message: its limit on byte messages (0: none); testing: it has `test`, so the
    // algorithms run as suspending coroutines (the non-blocking collectives' mode) and the
    // caller drives them.
    explicit World(int size, bool typed = false, size_t max_message = 0, bool testing = false)
        : size_(size), typed_(typed), max_message_(max_message), testing_(testing)
    {
    }
    int size() const { return size_; }

    // The transport of one rank; valid while the World lives.
    zip_transport_t transport(int rank);

    // Runs body(rank, transport) on `size` threads and joins them.
    void run(const std::function<void(int, const zip_transport_t &)> &body);

    // Messages that were sent but never received: must be 0 after every collective.
    size_t unreceived() const;

    // Over all ranks: blocks sent and received by handle, and byte views made of handles.
    std::atomic<size_t> plain_sends{0}, plain_recvs{0}, byte_views{0};
    // Over all ranks: messages sent (by bytes or handle).
    std::atomic<size_t> messages{0};
    // Set before run(): the transports have `copy`, which copies and counts calls and bytes.
    bool copy_hook = false;
    std::atomic<size_t> copies{0}, copied_bytes{0};
    // After run(): the most receives each rank had posted and not yet completed at once.
    std::vector<size_t> most_open_recvs;
    // Set before run(): the transports have `progress`, which counts calls per rank.
    bool progress_hook = false;
    std::vector<size_t> progress_calls;
    // Set before run(): sends are not copied when posted but read from the sender's buffer when
    // they meet their receive, and complete only then (MPI's rendezvous protocol; eager
    // otherwise): an algorithm that reuses a send buffer before its send completed delivers
    // the wrong bytes, as over shared memory or InfiniBand. On by default where the environment
    // sets ZIP_TEST_RENDEZVOUS (scripts/test.sh runs every collective algorithm test so too).
    bool rendezvous = std::getenv("ZIP_TEST_RENDEZVOUS") != nullptr;

  private:
    using Key = std::tuple<int, int, int>; // receiver, sender, tag
    struct Request {
        bool is_recv = false;
        Key key{};
        size_t seq = 0;
        void *buf = nullptr;
        size_t cap = 0;
        int polls = 0; // tests of a send so far (testing transport)
        // rendezvous: a receive delivered, its length and status
        bool done = false;
        size_t got = 0;
        int rc = 0;
    };
    struct Pending {
        const char *buf;
        size_t len;
    };
    // Deletes a completed request, counting a receive as no longer open; caller holds mu_.
    void retire(Request *r);
    std::vector<size_t> open_recvs_; // per rank, under mu_
    // rendezvous: the bytes of a send meet a posted receive; caller holds mu_.
    void deliver(Request *r, const char *buf, size_t len);
    struct Endpoint {
        World *world;
        int rank;
    };

    static void progress(void *ctx);
    static int isend(void *ctx, const void *buf, size_t len, int peer, int tag, zip_req_t *req);
    static int irecv(void *ctx, void *buf, size_t cap, int peer, int tag, zip_req_t *req);
    static int wait(void *ctx, zip_req_t *req, size_t *len);
    static int waitany(void *ctx, size_t n, zip_req_t *reqs, size_t *index, size_t *len);
    static int test(void *ctx, zip_req_t *req, int *done, size_t *len);
    static int isend_plain(void *ctx, void *typed, int peer, int tag, zip_req_t *req);
    static int irecv_plain(void *ctx, void *typed, int peer, int tag, zip_req_t *req);
    static int byte_view(void *ctx, void *typed, int sending, void **bytes);
    static void copy(void *ctx, void *dst, const void *src, size_t n);
    // Completes *r if its message is there; caller holds mu_.
    int try_complete(Request *r, bool *done, size_t *len);

    int size_;
    bool typed_;
    size_t max_message_;
    bool testing_;
    bool self_messages_ = false;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::map<Key, std::vector<std::vector<char>>> sent_; // in send order
    std::map<Key, size_t> delivered_;                    // how many of sent_ were taken
    std::map<Key, size_t> posted_;                       // receives posted so far
    // rendezvous: sends counted, and sends and receives waiting for each other, by sequence
    std::map<Key, size_t> sent_count_;
    std::map<Key, std::map<size_t, Pending>> waiting_sends_;
    std::map<Key, std::map<size_t, Request *>> waiting_recvs_;
    std::vector<Endpoint> endpoints_;
};

// Run-length codec: compresses runs of equal bytes, so "smooth" test data shrinks and random
// data does not. `fail_decode` makes every decode fail, to test the error path.
struct ToyCodec {
    bool fail_decode = false;
    std::atomic<size_t> bytes_offered{0};            // raw bytes handed to compress, over all ranks
    std::atomic<size_t> compressions{0}, decodes{0}; // calls, over all ranks
    zip_codec_ops_t ops();
};

// Data that compresses with ToyCodec (runs) or not (random bytes), never constant.
std::vector<char> make_data(size_t n, bool compressible, uint64_t seed);

} // namespace algotest
