// The context behind the C handle zip_ctx_t: one codec configuration, its reusable buffers, the
// decoders met so far and the temporal references. Frame assembly and parsing live here.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "codec.hpp"
#include "lossy.hpp"
#include "temporal.hpp"

struct zip_ctx {
    std::string spec;
    zip::LossySpec lossy;
    bool temporal = false;
    uint32_t key_interval = 64;
    std::unique_ptr<zip::BlockCodec> encoder;
    // Decoders by codec id, rebuilt when a frame asks for another parameter.
    std::array<std::unique_ptr<zip::BlockCodec>, 16> decoders;
    size_t block_bytes = 65536;
    bool block_checks = true;
    size_t memory_cap = size_t(64) << 20;
    std::vector<uint8_t> payload_buf; // lossy output, or narrowed payload being decoded
    std::vector<uint8_t> delta_buf;   // payload XOR reference
    zip::ReferenceStore refs;
    std::string last_error;
};

namespace zip
{

// Parses a spec ("trunc:20+fpc:bits=12") into ctx; throws SpecError.
void configure_context(zip_ctx &ctx, std::string_view spec);

zip_status_t compress_frame(zip_ctx &ctx, uint64_t stream, zip_elem_type_t type, const uint8_t *src,
                            size_t count, uint8_t *dst, size_t dst_cap, size_t *frame_len);

zip_status_t decompress_frame(zip_ctx &ctx, uint64_t stream, const uint8_t *frame, size_t frame_len,
                              uint8_t *dst, size_t dst_cap, size_t *raw_len);

size_t context_memory(const zip_ctx &ctx);

} // namespace zip
