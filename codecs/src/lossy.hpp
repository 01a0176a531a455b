// Opt-in lossy stages that run before the lossless codec. Each is chosen explicitly in the codec
// spec ("trunc:20+fast", "f32+fpc", "abs:1e-6+fast", "rel:1e-4+zstd") and never otherwise.
//   trunc:N   zero the N low mantissa bits (Kumar's DP-Lossy_N); relative error < 2^-(52-N)
//             (subnormals: absolute error < 2^(N-1074))
//   f32       doubles travel as floats (DP-SP); relative error <= 2^-24 within float range
//   abs:E     |decoded - original| <= E for every finite value
//   rel:R     |decoded - original| <= R * |original| for every finite value
// NaN and infinities pass unchanged (f32 keeps NaN a NaN but not its payload).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "zip/zip.h"

namespace zip
{

enum class LossyKind : uint8_t { None = 0, Trunc = 1, F32 = 2, Abs = 3, Rel = 4 };

struct LossySpec {
    LossyKind kind = LossyKind::None;
    unsigned bits = 0;  // Trunc: mantissa bits dropped
    double bound = 0.0; // Abs / Rel

    bool active() const { return kind != LossyKind::None; }
    // 32 bits recorded in the frame (informational: decoding does not depend on it).
    uint32_t frame_param() const;
};

// Returns true and fills *out when `name` names a lossy stage; throws SpecError on bad options.
bool parse_lossy(std::string_view name, std::string_view options, LossySpec *out);

// Type of the payload the lossy stage produces for input of `type`.
zip_elem_type_t lossy_payload_type(const LossySpec &spec, zip_elem_type_t type);

// Bits by which trunc and rel rotate each payload element right after zeroing its low bits:
// the zeroed bits become leading zeros, which every lossless codec after the stage (leading-zero
// coders, byte planes, LZ) turns into savings. 0 for the other stages.
unsigned lossy_rotation(const LossySpec &spec, zip_elem_type_t type);

// Applies the stage to count elements of `type` at src (any alignment), writing the payload
// (count elements of lossy_payload_type, rotated by lossy_rotation) to dst.
void lossy_apply(const LossySpec &spec, zip_elem_type_t type, const uint8_t *src, size_t count,
                 uint8_t *dst);

// Undoes the rotation in place (the decoder's side). Rotation is a bijection, so NaN payloads
// and subnormals that the stage kept exact come back exact.
void unrotate_payload(zip_elem_type_t type, unsigned bits, uint8_t *p, size_t count);

// Widens a narrowed F32 payload back to doubles.
void widen_f32_to_f64(const uint8_t *src, size_t count, uint8_t *dst);

} // namespace zip
