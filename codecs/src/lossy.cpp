#include "lossy.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "codec.hpp"

namespace zip
{

namespace
{

double parse_positive_double(std::string_view what, std::string_view text)
{
    std::string s(text);
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !(v > 0.0) || !std::isfinite(v))
        throw SpecError{std::string(what) + " needs a positive number, got '" + s + "'"};
    return v;
}

// Traits of the IEEE formats: the same code handles binary64 and binary32.
template <class F> struct Ieee;
template <> struct Ieee<double> {
    using Bits = uint64_t;
    static constexpr int kMantissa = 52;
    static constexpr int kBias = 1023;
    static constexpr Bits kExpMask = 0x7FF0000000000000ull;
};
template <> struct Ieee<float> {
    using Bits = uint32_t;
    static constexpr int kMantissa = 23;
    static constexpr int kBias = 127;
    static constexpr Bits kExpMask = 0x7F800000u;
};

template <class F> F load(const uint8_t *p)
{
    F v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <class F> void store(uint8_t *p, F v)
{
    std::memcpy(p, &v, sizeof v);
}

// Number of low mantissa bits that can be zeroed so that truncation error stays <= bound for
// a value with biased exponent `biased` (truncation error < 2^(e - mantissa + k)).
template <class F> int bits_for_abs_bound(int biased, int bound_exp)
{
    int e = (biased == 0 ? 1 : biased) - Ieee<F>::kBias;
    int k = bound_exp - (e - Ieee<F>::kMantissa);
    return k < 0 ? 0 : (k > Ieee<F>::kMantissa ? Ieee<F>::kMantissa : k);
}

// keep_denormals: a relative bound cannot be met by truncating subnormals, whose precision
// shrinks with their magnitude, so the rel stage leaves them exact.
template <class F>
void truncate_all(const uint8_t *src, size_t count, uint8_t *dst, int drop, bool keep_denormals)
{
    using Bits = typename Ieee<F>::Bits;
    const Bits mask = drop <= 0 ? ~Bits(0) : ~((Bits(1) << drop) - 1);
    const int rot = drop < 0 ? 0 : drop;
    for (size_t i = 0; i < count; ++i) {
        Bits b = load<Bits>(src + i * sizeof(Bits));
        Bits exp = b & Ieee<F>::kExpMask;
        if (exp != Ieee<F>::kExpMask && !(keep_denormals && exp == 0)) // NaN, inf keep all bits
            b &= mask;
        store<Bits>(dst + i * sizeof(Bits), std::rotr(b, rot));
    }
}

template <class F> void abs_bound_all(const uint8_t *src, size_t count, uint8_t *dst, double bound)
{
    using Bits = typename Ieee<F>::Bits;
    // bound_exp: largest integer with 2^bound_exp <= bound.
    int bound_exp = std::ilogb(bound);
    for (size_t i = 0; i < count; ++i) {
        Bits b = load<Bits>(src + i * sizeof(Bits));
        if ((b & Ieee<F>::kExpMask) != Ieee<F>::kExpMask) {
            F v = std::bit_cast<F>(b);
            if (std::fabs(double(v)) <= bound) {
                b &= Bits(1) << (sizeof(Bits) * 8 - 1); // a signed zero is within the bound
            } else {
                int biased = int((b & Ieee<F>::kExpMask) >> Ieee<F>::kMantissa);
                int k = bits_for_abs_bound<F>(biased, bound_exp);
                if (k > 0)
                    b &= ~((Bits(1) << k) - 1);
            }
        }
        store<Bits>(dst + i * sizeof(Bits), b);
    }
}

template <class F> int bits_for_rel_bound(double rel)
{
    // Truncating k bits gives relative error < 2^(k - mantissa) for normal values.
    int k = Ieee<F>::kMantissa + std::ilogb(rel);
    return k < 0 ? 0 : (k > Ieee<F>::kMantissa ? Ieee<F>::kMantissa : k);
}

} // namespace

unsigned lossy_rotation(const LossySpec &spec, zip_elem_type_t type)
{
    if (!is_float(type))
        return 0;
    const bool is64 = type == ZIP_TYPE_F64;
    switch (spec.kind) {
    case LossyKind::Trunc:
        return is64 ? spec.bits : (spec.bits > 23 ? 23 : spec.bits);
    case LossyKind::Rel:
        return unsigned(is64 ? bits_for_rel_bound<double>(spec.bound)
                             : bits_for_rel_bound<float>(spec.bound));
    default:
        return 0;
    }
}

void unrotate_payload(zip_elem_type_t type, unsigned bits, uint8_t *p, size_t count)
{
    if (bits == 0)
        return;
    if (type == ZIP_TYPE_F64) {
        for (size_t i = 0; i < count; ++i)
            store<uint64_t>(p + 8 * i, std::rotl(load<uint64_t>(p + 8 * i), int(bits)));
    } else if (type == ZIP_TYPE_F32) {
        for (size_t i = 0; i < count; ++i)
            store<uint32_t>(p + 4 * i, std::rotl(load<uint32_t>(p + 4 * i), int(bits)));
    }
}

uint32_t LossySpec::frame_param() const
{
    switch (kind) {
    case LossyKind::Trunc:
        return bits;
    case LossyKind::Abs:
    case LossyKind::Rel:
        return std::bit_cast<uint32_t>(float(bound));
    default:
        return 0;
    }
}

bool parse_lossy(std::string_view name, std::string_view options, LossySpec *out)
{
    LossySpec s;
    if (name == "trunc") {
        s.kind = LossyKind::Trunc;
        s.bits = parse_uint_option("trunc", options, 1, 52);
    } else if (name == "f32") {
        if (!options.empty())
            throw SpecError{"f32 takes no options"};
        s.kind = LossyKind::F32;
    } else if (name == "abs") {
        s.kind = LossyKind::Abs;
        s.bound = parse_positive_double("abs", options);
    } else if (name == "rel") {
        s.kind = LossyKind::Rel;
        s.bound = parse_positive_double("rel", options);
        if (s.bound >= 1.0)
            throw SpecError{"rel needs a bound below 1"};
    } else {
        return false;
    }
    *out = s;
    return true;
}

zip_elem_type_t lossy_payload_type(const LossySpec &spec, zip_elem_type_t type)
{
    if (spec.kind == LossyKind::F32 && type == ZIP_TYPE_F64)
        return ZIP_TYPE_F32;
    return type;
}

void lossy_apply(const LossySpec &spec, zip_elem_type_t type, const uint8_t *src, size_t count,
                 uint8_t *dst)
{
    const bool is64 = type == ZIP_TYPE_F64;
    if (!is_float(type) || spec.kind == LossyKind::None) {
        std::memcpy(dst, src, count * zip_elem_size(type));
        return;
    }
    switch (spec.kind) {
    case LossyKind::Trunc:
        if (is64)
            truncate_all<double>(src, count, dst, int(lossy_rotation(spec, type)), false);
        else
            truncate_all<float>(src, count, dst, int(lossy_rotation(spec, type)), false);
        break;
    case LossyKind::F32:
        if (is64) {
            for (size_t i = 0; i < count; ++i)
                store<float>(dst + 4 * i, float(load<double>(src + 8 * i)));
        } else {
            std::memcpy(dst, src, count * 4);
        }
        break;
    case LossyKind::Abs:
        if (is64)
            abs_bound_all<double>(src, count, dst, spec.bound);
        else
            abs_bound_all<float>(src, count, dst, spec.bound);
        break;
    case LossyKind::Rel:
        if (is64)
            truncate_all<double>(src, count, dst, int(lossy_rotation(spec, type)), true);
        else
            truncate_all<float>(src, count, dst, int(lossy_rotation(spec, type)), true);
        break;
    case LossyKind::None:
        break;
    }
}

void widen_f32_to_f64(const uint8_t *src, size_t count, uint8_t *dst)
{
    for (size_t i = 0; i < count; ++i)
        store<double>(dst + 8 * i, double(load<float>(src + 4 * i)));
}

} // namespace zip
