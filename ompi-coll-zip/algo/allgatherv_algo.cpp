// Compressed allgatherv: a ring (ring.hpp) in which every block is compressed once, by its
// owner, travels as the frame it became and is decoded once by every other rank, while the
// next step's transfer runs.
#include "exchange.hpp"
#include "ring.hpp"
#include "zip_algo.h"

namespace zipcoll
{

Task allgatherv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    const int start = begin_exchange(t, a->send && a->recv ? a->send : nullptr, res);
    if (start != ZIP_ALGO_OK)
        co_return start > 0 ? ZIP_ALGO_OK : start;
    // Every block but this rank's own comes from recv; its own from send.
    std::vector<zip_block_t> blocks(a->recv, a->recv + t->size);
    blocks[size_t(t->rank)] = a->send[0];
    BlockPolicy policy = BlockPolicy::of(*a, *t);
    policy.peer_on_node = nullptr; // a block crosses every link of the ring
    RingAllgather ring;
    const int rc = ring.prepare(t, policy, blocks.data(), t->rank, a->tag);
    if (rc != ZIP_ALGO_OK)
        co_return rc;
    res->all_plain = ring.all_plain();
    BlockCodec coder(codec, policy, res);
    co_return co_await ring.run(coder, res);
}

} // namespace zipcoll

extern "C" int zip_algo_allgatherv(const zip_transport_t *t, const zip_codec_ops_t *codec,
                                   const zip_exchange_args_t *a, zip_algo_result_t *res)
{
    return zipcoll::run_to_end(zipcoll::allgatherv(t, codec, a, res));
}
