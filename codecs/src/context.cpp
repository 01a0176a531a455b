#include "context.hpp"

#include <cstring>

#include "frame_format.hpp"

namespace zip
{

namespace
{

std::pair<std::string_view, std::string_view> split_name(std::string_view part)
{
    size_t colon = part.find(':');
    if (colon == std::string_view::npos)
        return {part, {}};
    return {part.substr(0, colon), part.substr(colon + 1)};
}

zip_status_t fail(zip_ctx &ctx, zip_status_t s, const char *msg)
{
    ctx.last_error = msg;
    return s;
}

// After this many blocks in a row that did not shrink, only every kProbeEvery-th block is tried:
// incompressible data then costs little more than a copy.
constexpr unsigned kRawStreak = 2;
constexpr unsigned kProbeEvery = 8;

void grow(std::vector<uint8_t> &buf, size_t n)
{
    if (buf.size() < n)
        buf.resize(n);
}

} // namespace

void configure_context(zip_ctx &ctx, std::string_view spec)
{
    std::string_view lossless = spec;
    size_t plus = spec.find('+');
    if (plus != std::string_view::npos) {
        auto [name, opts] = split_name(spec.substr(0, plus));
        if (!parse_lossy(name, opts, &ctx.lossy))
            throw SpecError{"'" + std::string(name) +
                            "' is not a lossy stage (trunc, f32, abs, rel)"};
        lossless = spec.substr(plus + 1);
        if (lossless.find('+') != std::string_view::npos)
            throw SpecError{"at most one lossy stage and one lossless codec: '" +
                            std::string(spec) + "'"};
    } else {
        auto [name, opts] = split_name(spec);
        if (parse_lossy(name, opts, &ctx.lossy)) {
            lossless = "fast"; // a lossy stage alone gets the default lossless codec after it
        }
    }
    auto [name, opts] = split_name(lossless);
    if (name == "temporal") {
        ctx.temporal = true;
        std::string inner = "fast";
        for_each_option(opts, [&](std::string_view k, std::string_view v) {
            if (k == "inner")
                inner = std::string(v);
            else if (k == "key")
                ctx.key_interval = parse_uint_option("key", v, 1, 1u << 20);
            else
                throw SpecError{"temporal has no option '" + std::string(k) + "'"};
        });
        if (inner == "temporal")
            throw SpecError{"temporal cannot wrap itself"};
        ctx.encoder = make_codec(inner, {});
    } else {
        ctx.encoder = make_codec(name, opts);
    }
    ctx.spec = std::string(spec);
}

size_t context_memory(const zip_ctx &ctx)
{
    size_t n = ctx.payload_buf.capacity() + ctx.delta_buf.capacity() + ctx.refs.bytes();
    if (ctx.encoder)
        n += ctx.encoder->memory_bytes();
    for (const auto &d : ctx.decoders)
        if (d)
            n += d->memory_bytes();
    return n;
}

zip_status_t compress_frame(zip_ctx &ctx, uint64_t stream, zip_elem_type_t type, const uint8_t *src,
                            size_t count, uint8_t *dst, size_t dst_cap, size_t *frame_len)
{
    if (type != ZIP_TYPE_BYTES && type != ZIP_TYPE_F32 && type != ZIP_TYPE_F64 &&
        type != ZIP_TYPE_I32 && type != ZIP_TYPE_I64)
        return fail(ctx, ZIP_E_ARG, "unknown element type");
    if ((src == nullptr && count != 0) || dst == nullptr || frame_len == nullptr)
        return fail(ctx, ZIP_E_ARG, "NULL buffer");
    const size_t esize = zip_elem_size(type);
    if (count > SIZE_MAX / 16)
        return fail(ctx, ZIP_E_ARG, "element count too large");

    FrameHeader h;
    h.codec = uint8_t(ctx.encoder->id());
    h.codec_param = ctx.encoder->param();
    h.type = uint8_t(type);
    h.count = count;
    h.raw_bytes = uint64_t(count) * esize;
    const zip_elem_type_t ptype = lossy_payload_type(ctx.lossy, type);
    h.payload_type = uint8_t(ptype);
    const size_t psize = zip_elem_size(ptype);
    const size_t pbytes = count * psize;

    const uint8_t *payload = src;
    if (ctx.lossy.active() && is_float(type)) {
        h.lossy_kind = uint8_t(ctx.lossy.kind);
        h.lossy_param = ctx.lossy.frame_param();
        h.rotation = uint8_t(lossy_rotation(ctx.lossy, type));
        grow(ctx.payload_buf, pbytes);
        lossy_apply(ctx.lossy, type, src, count, ctx.payload_buf.data());
        payload = ctx.payload_buf.data();
    }

    const uint8_t *blocks_src = payload;
    uint32_t payload_check = 0, since_key = 0;
    if (ctx.temporal) {
        payload_check = check32(payload, pbytes);
        ReferenceStore::Reference *ref = ctx.refs.find(stream);
        if (ref && ref->payload.size() == pbytes && ref->since_key + 1 < ctx.key_interval) {
            grow(ctx.delta_buf, pbytes);
            xor_bytes(payload, ref->payload.data(), pbytes, ctx.delta_buf.data());
            blocks_src = ctx.delta_buf.data();
            h.flags = kFlagTemporalDelta;
            h.reference_check = ref->check;
            since_key = ref->since_key + 1;
        } else {
            h.flags = kFlagTemporalKey;
        }
    }

    size_t block = ctx.block_bytes / psize * psize;
    if (block == 0)
        block = psize;
    const size_t nblocks = pbytes == 0 ? 0 : (pbytes + block - 1) / block;
    if (nblocks > UINT32_MAX)
        return fail(ctx, ZIP_E_ARG, "message too large for one frame");
    h.block_raw_bytes = pbytes == 0 ? 0 : uint32_t(block);
    h.block_count = uint32_t(nblocks);

    if (!ctx.block_checks)
        h.flags |= kFlagBlocksUnchecked;
    auto block_check = [&](const uint8_t *p, size_t n) {
        return ctx.block_checks ? check32(p, n) : 0u;
    };
    const size_t table_end = kFrameHeaderBytes + block_table_bytes(h.block_count);
    if (dst_cap < table_end)
        return fail(ctx, ZIP_E_CAPACITY, "destination smaller than the frame header");
    uint8_t *table = dst + kFrameHeaderBytes;
    size_t out = table_end;
    unsigned raw_streak = 0;
    for (size_t i = 0; i < nblocks; ++i) {
        const size_t off = i * block;
        const size_t raw_n = off + block <= pbytes ? block : pbytes - off;
        const size_t room = dst_cap - out;
        size_t stored = 0;
        const bool probe = raw_streak < kRawStreak || (i % kProbeEvery) == 0;
        if (probe && raw_n > 1 && room > 0) {
            size_t cap = raw_n - 1 < room ? raw_n - 1 : room;
            stored = ctx.encoder->compress(blocks_src + off, raw_n, ptype, dst + out, cap);
        }
        BlockEntry e;
        if (stored > 0 && stored < raw_n) {
            e = {uint32_t(stored), false, block_check(dst + out, stored)};
            raw_streak = 0;
        } else {
            if (room < raw_n)
                return fail(ctx, ZIP_E_CAPACITY, "destination too small for the frame");
            std::memcpy(dst + out, blocks_src + off, raw_n);
            stored = raw_n;
            e = {uint32_t(raw_n), true, block_check(dst + out, raw_n)};
            ++raw_streak;
        }
        write_block_entry(table, uint32_t(i), e);
        out += stored;
    }
    write_frame_header(h, dst);
    if (ctx.temporal)
        ctx.refs.store(stream, payload, pbytes, payload_check, since_key);
    *frame_len = out;
    return ZIP_OK;
}

namespace
{

BlockCodec *decoder_for(zip_ctx &ctx, uint8_t id, uint32_t param)
{
    if (id >= ctx.decoders.size())
        return nullptr;
    auto &slot = ctx.decoders[id];
    if (!slot || slot->param() != param)
        slot = make_codec(CodecId(id), param);
    return slot.get();
}

} // namespace

zip_status_t decompress_frame(zip_ctx &ctx, uint64_t stream, const uint8_t *frame, size_t frame_len,
                              uint8_t *dst, size_t dst_cap, size_t *raw_len)
{
    if (raw_len == nullptr || (dst == nullptr && dst_cap != 0))
        return fail(ctx, ZIP_E_ARG, "NULL argument");
    FrameHeader h;
    uint64_t total = 0;
    const char *why = "";
    zip_status_t s = parse_frame_header(frame, frame_len, &h, &total, &why);
    if (s != ZIP_OK)
        return fail(ctx, s, why);
    if (h.lossy_kind > uint8_t(LossyKind::Rel))
        return fail(ctx, ZIP_E_CORRUPT, "unknown lossy stage in frame header");
    if (h.raw_bytes > dst_cap)
        return fail(ctx, ZIP_E_CAPACITY, "destination smaller than the decoded data");

    const zip_elem_type_t ptype = zip_elem_type_t(h.payload_type);
    const size_t pbytes = size_t(payload_bytes(h));
    const bool narrowed = h.payload_type != h.type;
    uint8_t *payload = dst;
    if (narrowed) {
        grow(ctx.payload_buf, pbytes);
        payload = ctx.payload_buf.data();
    }

    const ReferenceStore::Reference *ref = nullptr;
    if (h.flags & kFlagTemporalDelta) {
        ref = ctx.refs.find(stream);
        if (!ref || ref->payload.size() != pbytes || ref->check != h.reference_check)
            return fail(ctx, ZIP_E_STATE,
                        "temporal frame refers to a message this side does not hold");
    }

    BlockCodec *codec = nullptr;
    const bool checked = !(h.flags & kFlagBlocksUnchecked);
    const uint8_t *table = frame + kFrameHeaderBytes;
    size_t in = kFrameHeaderBytes + block_table_bytes(h.block_count);
    for (uint32_t i = 0; i < h.block_count; ++i) {
        BlockEntry e = read_block_entry(table, i);
        const size_t off = size_t(i) * h.block_raw_bytes;
        const size_t raw_n = i + 1 < h.block_count ? h.block_raw_bytes : pbytes - off;
        if (checked ? check32(frame + in, e.stored_bytes) != e.check : e.check != 0)
            return fail(ctx, ZIP_E_CHECKSUM, "block check mismatch");
        if (e.raw) {
            std::memcpy(payload + off, frame + in, raw_n);
        } else {
            if (!codec && !(codec = decoder_for(ctx, h.codec, h.codec_param)))
                return fail(ctx, ZIP_E_UNSUPPORTED,
                            "frame names a codec or parameter this build does not know");
            s = codec->decompress(frame + in, e.stored_bytes, ptype, payload + off, raw_n);
            if (s != ZIP_OK)
                return fail(ctx, s, "block does not decode");
        }
        in += e.stored_bytes;
    }

    if (ref)
        xor_bytes(payload, ref->payload.data(), pbytes, payload);
    if (h.flags & (kFlagTemporalDelta | kFlagTemporalKey))
        ctx.refs.store(stream, payload, pbytes, check32(payload, pbytes), 0);
    unrotate_payload(ptype, h.rotation, payload, size_t(h.count));
    if (narrowed)
        widen_f32_to_f64(payload, h.count, dst);
    *raw_len = size_t(h.raw_bytes);
    return ZIP_OK;
}

} // namespace zip
