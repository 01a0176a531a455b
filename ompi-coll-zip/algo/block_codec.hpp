// Per-block compression policy shared by alltoallv and gatherv: which blocks are plain and which
// may be compressed (threshold, locality, message limit; then the sample rule), and how a
// receiver tells and decodes a frame.
#pragma once

#include <cstddef>
#include <memory>
#include <new>

#include "raw_buffer.hpp"
#include "zip_algo.h"

namespace zipcoll
{

struct Transfer {
    int peer = -1;
    char *ptr = nullptr;
    size_t bytes = 0;
    // A send not yet in bytes (ptr null): the transport's typed handle. Packed into bytes just
    // before its coding, so that packing the next block overlaps this one's wire; sent as it
    // is once the sender does not compress (the PML packs it as it sends, and the receiver's
    // byte receive of its length gets the same bytes). Neighbourhood calls and alltoall(v/w).
    void *typed = nullptr;
};

// A first block larger than this is judged on its first kSampleBytes alone, so that
// incompressible data costs a sample's codec time rather than the whole block's (8 ranks,
// 1 MiB random gatherv: each sender compressed its whole megabyte in vain). Policy observe
// judges its samples on as much.
inline constexpr size_t kSampleBytes = 65536;

struct BlockPolicy {
    int elem_type = ZIP_ALGO_BYTES;
    bool try_compress = false;
    size_t threshold = 0; // identical on every rank
    const zip_algo_policy_t *policy = nullptr;
    const bool *peer_on_node = nullptr; // per peer; nullptr: none shares this rank's node
    size_t max_message = 0;             // the transport's; 0: no limit

    // The policy an exchange's arguments describe, over transport t.
    static BlockPolicy of(const zip_exchange_args_t &a, const zip_transport_t &t)
    {
        return {a.elem_type, a.try_compress != 0, a.threshold,
                a.policy,    a.peer_on_node,      t.max_message};
    }

    bool may_compress(size_t bytes) const { return bytes >= threshold && bytes > 1; }
    // The split of zip_algo.h, which both ends of a block make alike.
    bool plain(size_t bytes, int peer) const
    {
        return !may_compress(bytes) || (max_message != 0 && bytes > max_message) ||
               (peer_on_node != nullptr && peer_on_node[peer]);
    }
    zip_transfer_shape_t shape() const
    {
        return policy != nullptr ? policy->shape : ZIP_TRANSFER_PIPELINED;
    }
};

// zip.h's verdict before any sample: ZIP_VERDICT_COMPRESS means "worth a sample".
zip_verdict_t pre_verdict(const zip_algo_policy_t *policy, size_t bytes,
                          zip_transfer_shape_t shape);

// zip.h's verdict on a sample of sample_len bytes that the codec (status rc) turned into
// frame_len bytes, for a payload of `bytes` sent with `shape`.
zip_verdict_t sample_verdict(const zip_algo_policy_t *policy, int rc, size_t frame_len,
                             size_t sample_len, size_t bytes, zip_transfer_shape_t shape);

class BlockCodec
{
  public:
    // temporal: the streams of alltoallv's inter-step coding (temporal_streams.hpp), used
    // only with a codec that has compress_delta and decompress_ref; nullptr: off.
    BlockCodec(const zip_codec_ops_t *codec, const BlockPolicy &policy, zip_algo_result_t *res,
               zip_algo_temporal_t *temporal = nullptr)
        : codec_(codec), policy_(policy), res_(res),
          temporal_(codec != nullptr && codec->compress_delta != nullptr &&
                            codec->decompress_ref != nullptr
                        ? temporal
                        : nullptr),
          compressing_(policy.try_compress && codec != nullptr)
    {
    }

    // Chooses what goes on the wire for `block`: a frame written to `slot` (which holds
    // block.bytes) when compressing pays, else the block itself. With temporal streams the
    // frame may be coded against the previous block to block.peer, and the block becomes the
    // stream's reference.
    void encode(const Transfer &block, char *slot, const char **out, size_t *out_len);

    // A receive of `r` completed with `got` bytes in r.ptr: decodes it in place if it is a
    // frame, using `scratch` (at least r.bytes) to hold the frame. Returns a ZIP_ALGO_ code.
    // With temporal streams the block becomes the reference of the stream from r.peer.
    int decode(const Transfer &r, size_t got, char *scratch);

    // The same for `got` bytes that arrived at `wire`, which stays untouched (it may be
    // forwarded): copies raw data to r.ptr, decodes a frame into it.
    int decode_into(const char *wire, size_t got, const Transfer &r);

    // Whether the next encode may still run the codec (false once a sample or the policy said
    // raw, or where compression is off).
    bool compressing() const { return compressing_; }

  private:
    // How encode_block treated a block: the reference its frame or its call's sample was
    // coded against (nullptr: none), and whether the whole block was coded.
    struct Coding {
        const char *ref = nullptr;
        bool whole = false;
    };
    Coding encode_block(const Transfer &block, char *slot, const char **out, size_t *out_len);
    // The first n bytes of block coded into dst (cap bytes), against ref unless nullptr.
    int code(const Transfer &block, size_t n, const char *ref, char *dst, size_t cap,
             size_t *frame_len);
    // The reference to code block against (temporal streams), nullptr for a plain frame;
    // measures both kinds on a sample in `slot` when the stream's choice is due for it.
    const char *delta_reference(const Transfer &block, char *slot);

    const zip_codec_ops_t *codec_;
    BlockPolicy policy_;
    zip_algo_result_t *res_;
    zip_algo_temporal_t *temporal_;
    bool compressing_;
    bool sampled_ = false;
};

} // namespace zipcoll
