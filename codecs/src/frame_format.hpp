// The ompi-zip frame: the only bytes that travel between ranks. docs/format.md is the reference;
// this file and frame_format.cpp are the only code that reads or writes a frame header.
//
//  off size field
//    0    4 magic 5A 49 50 F1 ("ZIP" + 0xF1)
//    4    1 version (1)
//    5    1 codec id (CodecId) of the blocks
//    6    1 element type of the original data (zip_elem_type_t)
//    7    1 flags (FrameFlag)
//    8    4 codec parameter (codec-specific, e.g. FPC table bits)
//   12    1 lossy stage (LossyKind), 0 = lossless
//   13    1 payload type: element type the blocks hold (F32 when a double payload was narrowed)
//   14    1 payload rotation r: the decoder rotates each payload element left by r bits
//   15    1 reserved, zero
//   16    4 lossy parameter (truncated bits, or the float32 bit pattern of the error bound)
//   20    4 temporal reference check: low 32 bits of XXH3-64 of the reference payload, or 0
//   24    8 element count
//   32    8 raw bytes = count * size of the original type
//   40    4 block raw bytes B: payload bytes per block (the last block holds the rest)
//   44    4 block count n = ceil(payload bytes / B)
//   48    4 header check: low 32 bits of XXH3-64 of bytes 0..47 followed by the block table
//   52   8n block table, per block: u32 stored size (bit 31 set = stored raw), u32 check = low 32
//           bits of XXH3-64 of the stored block bytes (0 when flag bit 2 says blocks are unchecked)
//   52+8n   the blocks, back to back
// All integers little-endian.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zip/zip.h"

namespace zip
{

inline constexpr uint8_t kFrameMagic[4] = {0x5A, 0x49, 0x50, 0xF1};
inline constexpr uint8_t kFrameVersion = 1;
inline constexpr size_t kFrameHeaderBytes = 52;
inline constexpr size_t kBlockEntryBytes = 8;
inline constexpr uint32_t kBlockRawBit = 0x80000000u;
inline constexpr uint32_t kMaxBlockBytes = 1u << 30;

enum FrameFlag : uint8_t {
    kFlagTemporalDelta = 1u << 0,   // payload is XOR'd with the stream's reference payload
    kFlagTemporalKey = 1u << 1,     // receiver keeps this payload as the stream's next reference
    kFlagBlocksUnchecked = 1u << 2, // block checks are zero and not verified
};
inline constexpr uint8_t kKnownFlags = kFlagTemporalDelta | kFlagTemporalKey | kFlagBlocksUnchecked;

struct FrameHeader {
    uint8_t version = kFrameVersion;
    uint8_t codec = 0;
    uint8_t type = 0; // original zip_elem_type_t
    uint8_t flags = 0;
    uint32_t codec_param = 0;
    uint8_t lossy_kind = 0;
    uint8_t payload_type = 0; // zip_elem_type_t of the blocks
    uint8_t rotation = 0;     // bits each payload element was rotated right by the lossy stage
    uint32_t lossy_param = 0;
    uint32_t reference_check = 0;
    uint64_t count = 0;
    uint64_t raw_bytes = 0;
    uint32_t block_raw_bytes = 0;
    uint32_t block_count = 0;
};

struct BlockEntry {
    uint32_t stored_bytes;
    bool raw;
    uint32_t check;
};

uint32_t check32(const void *p, size_t n);

// Payload bytes of a header (count * size of the payload type).
uint64_t payload_bytes(const FrameHeader &h);

// Block table size for a header.
inline size_t block_table_bytes(uint32_t n)
{
    return size_t(n) * kBlockEntryBytes;
}

// Writes the header; the header check is computed over the header and the table that must
// already be at dst + kFrameHeaderBytes.
void write_frame_header(const FrameHeader &h, uint8_t *dst);
void write_block_entry(uint8_t *table, uint32_t i, const BlockEntry &e);
BlockEntry read_block_entry(const uint8_t *table, uint32_t i);

// Parses and validates a header, its check and the block table against `len` bytes of frame.
// On success *frame_bytes is the exact frame length the header describes. `why` receives a
// static message on failure.
zip_status_t parse_frame_header(const uint8_t *src, size_t len, FrameHeader *h,
                                uint64_t *frame_bytes, const char **why);

} // namespace zip
