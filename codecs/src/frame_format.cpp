#include "frame_format.hpp"

#include <cstring>
#define XXH_STATIC_LINKING_ONLY // XXH3_state_t on the stack: no allocation per frame
#include <xxhash.h>
#ifdef ZIP_XXH_DISPATCH
#include <xxh_x86dispatch.h> // XXH3 on AVX2/AVX-512 where the CPU has them
#endif

#include "codec.hpp"

namespace zip
{

namespace
{

void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = uint8_t(v >> (8 * i));
}

void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        p[i] = uint8_t(v >> (8 * i));
}

uint32_t get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

bool valid_type(uint8_t t)
{
    return t <= ZIP_TYPE_I64;
}

uint32_t header_check(const uint8_t *frame, uint32_t block_count)
{
    // The same hash as the streaming one below, of the two parts side by side: small tables
    // (the common case, a block or a few) go through one call, without the streaming state's
    // set-up (1.5 % of all cycles on miniamr's 4-64 KiB messages).
    const size_t table = block_table_bytes(block_count);
    uint8_t joined[512];
    if (48 + table <= sizeof joined) {
        std::memcpy(joined, frame, 48);
        std::memcpy(joined + 48, frame + kFrameHeaderBytes, table);
        return uint32_t(XXH3_64bits(joined, 48 + table));
    }
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, frame, 48);
    XXH3_64bits_update(&state, frame + kFrameHeaderBytes, block_table_bytes(block_count));
    return uint32_t(XXH3_64bits_digest(&state));
}

} // namespace

uint32_t check32(const void *p, size_t n)
{
    return uint32_t(XXH3_64bits(p, n));
}

uint64_t payload_bytes(const FrameHeader &h)
{
    return h.count * zip_elem_size(zip_elem_type_t(h.payload_type));
}

void write_frame_header(const FrameHeader &h, uint8_t *dst)
{
    std::memcpy(dst, kFrameMagic, 4);
    dst[4] = h.version;
    dst[5] = h.codec;
    dst[6] = h.type;
    dst[7] = h.flags;
    put32(dst + 8, h.codec_param);
    dst[12] = h.lossy_kind;
    dst[13] = h.payload_type;
    dst[14] = h.rotation;
    dst[15] = 0;
    put32(dst + 16, h.lossy_param);
    put32(dst + 20, h.reference_check);
    put64(dst + 24, h.count);
    put64(dst + 32, h.raw_bytes);
    put32(dst + 40, h.block_raw_bytes);
    put32(dst + 44, h.block_count);
    put32(dst + 48, header_check(dst, h.block_count));
}

void write_block_entry(uint8_t *table, uint32_t i, const BlockEntry &e)
{
    put32(table + size_t(i) * kBlockEntryBytes, e.stored_bytes | (e.raw ? kBlockRawBit : 0));
    put32(table + size_t(i) * kBlockEntryBytes + 4, e.check);
}

BlockEntry read_block_entry(const uint8_t *table, uint32_t i)
{
    uint32_t size = get32(table + size_t(i) * kBlockEntryBytes);
    return {size & ~kBlockRawBit, (size & kBlockRawBit) != 0,
            get32(table + size_t(i) * kBlockEntryBytes + 4)};
}

zip_status_t parse_frame_header(const uint8_t *src, size_t len, FrameHeader *h,
                                uint64_t *frame_bytes, const char **why)
{
    auto fail = [why](zip_status_t s, const char *msg) {
        *why = msg;
        return s;
    };
    if (src == nullptr)
        return fail(ZIP_E_ARG, "frame pointer is NULL");
    if (len < 5)
        return fail(ZIP_E_TRUNCATED, "frame shorter than its magic and version");
    if (std::memcmp(src, kFrameMagic, 4) != 0)
        return fail(ZIP_E_CORRUPT, "not an ompi-zip frame (bad magic)");
    if (src[4] != kFrameVersion)
        return fail(ZIP_E_VERSION, "frame format version not supported by this build");
    if (len < kFrameHeaderBytes)
        return fail(ZIP_E_TRUNCATED, "frame shorter than its header");

    h->version = src[4];
    h->codec = src[5];
    h->type = src[6];
    h->flags = src[7];
    h->codec_param = get32(src + 8);
    h->lossy_kind = src[12];
    h->payload_type = src[13];
    h->rotation = src[14];
    h->lossy_param = get32(src + 16);
    h->reference_check = get32(src + 20);
    h->count = get64(src + 24);
    h->raw_bytes = get64(src + 32);
    h->block_raw_bytes = get32(src + 40);
    h->block_count = get32(src + 44);

    if (!valid_type(h->type) || !valid_type(h->payload_type))
        return fail(ZIP_E_CORRUPT, "unknown element type in frame header");
    if (src[15] != 0 || (h->flags & ~kKnownFlags) != 0)
        return fail(ZIP_E_CORRUPT, "reserved frame header bits are set");
    if (h->payload_type != h->type && !(h->type == ZIP_TYPE_F64 && h->payload_type == ZIP_TYPE_F32))
        return fail(ZIP_E_CORRUPT, "payload type cannot represent the original type");
    if (h->rotation != 0 && (!is_float(zip_elem_type_t(h->payload_type)) ||
                             h->rotation >= 8 * zip_elem_size(zip_elem_type_t(h->payload_type))))
        return fail(ZIP_E_CORRUPT, "payload rotation out of range");
    size_t esize = zip_elem_size(zip_elem_type_t(h->type));
    if (h->count > UINT64_MAX / 8 || h->raw_bytes != h->count * esize)
        return fail(ZIP_E_CORRUPT, "raw size does not match element count");
    uint64_t payload = payload_bytes(*h);
    size_t psize = zip_elem_size(zip_elem_type_t(h->payload_type));
    if (payload == 0) {
        if (h->block_count != 0)
            return fail(ZIP_E_CORRUPT, "empty frame with blocks");
    } else {
        if (h->block_raw_bytes == 0 || h->block_raw_bytes > kMaxBlockBytes ||
            h->block_raw_bytes % psize != 0)
            return fail(ZIP_E_CORRUPT, "invalid block size");
        uint64_t n = (payload + h->block_raw_bytes - 1) / h->block_raw_bytes;
        if (n != h->block_count)
            return fail(ZIP_E_CORRUPT, "block count does not match payload size");
    }
    uint64_t table_end = kFrameHeaderBytes + uint64_t(h->block_count) * kBlockEntryBytes;
    if (table_end > len)
        return fail(ZIP_E_TRUNCATED, "frame shorter than its block table");
    if (get32(src + 48) != header_check(src, h->block_count))
        return fail(ZIP_E_CHECKSUM, "frame header check mismatch");

    uint64_t total = table_end;
    const uint8_t *table = src + kFrameHeaderBytes;
    for (uint32_t i = 0; i < h->block_count; ++i) {
        BlockEntry e = read_block_entry(table, i);
        uint64_t raw_n = i + 1 < h->block_count ? h->block_raw_bytes
                                                : payload - uint64_t(i) * h->block_raw_bytes;
        if (e.raw ? e.stored_bytes != raw_n : (e.stored_bytes == 0 || e.stored_bytes >= raw_n))
            return fail(ZIP_E_CORRUPT, "block size inconsistent with its raw size");
        total += e.stored_bytes;
    }
    if (total > len)
        return fail(ZIP_E_TRUNCATED, "frame shorter than its blocks");
    if (total < len)
        return fail(ZIP_E_CORRUPT, "trailing bytes after the frame");
    *frame_bytes = total;
    return ZIP_OK;
}

} // namespace zip
