#include "context.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "block_claims.hpp"
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
        ctx.codec_name = inner;
    } else {
        ctx.encoder = make_codec(name, opts);
        ctx.codec_name = std::string(name);
        ctx.codec_options = std::string(opts);
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
    for (const auto &e : ctx.worker_encoders)
        n += e->memory_bytes();
    for (const auto &b : ctx.block_scratch)
        n += b.capacity();
    for (const auto &set : ctx.worker_decoders)
        for (const auto &d : set)
            if (d)
                n += d->memory_bytes();
    return n;
}

zip_status_t set_threads(zip_ctx &ctx, unsigned threads)
{
    if (threads < 1 || threads > kMaxThreads)
        return fail(ctx, ZIP_E_ARG, "threads must be 1..64");
    if (threads == ctx.threads)
        return ZIP_OK;
    ctx.pool.reset();
    ctx.worker_encoders.clear();
    ctx.worker_decoders.clear();
    try {
        for (unsigned i = 1; i < threads; ++i)
            ctx.worker_encoders.push_back(make_codec(ctx.codec_name, ctx.codec_options));
        ctx.worker_decoders.resize(threads - 1);
        ctx.block_scratch.resize(threads > 1 ? threads : 0);
        if (threads > 1)
            ctx.pool = std::make_unique<WorkerPool>(threads - 1);
    } catch (const std::exception &) {
        ctx.pool.reset();
        ctx.worker_encoders.clear();
        ctx.worker_decoders.clear();
        ctx.block_scratch.clear();
        ctx.threads = 1;
        return fail(ctx, ZIP_E_NOMEM, "cannot start the codec threads");
    }
    ctx.threads = threads;
    return ZIP_OK;
}

namespace
{

// What coding the blocks [b0, b1) of a payload needs.
struct BlockRange {
    const uint8_t *src; // the payload
    size_t pbytes, block;
    zip_elem_type_t ptype;
    size_t b0, b1;
};

// Codes blocks [r.b0, r.b1) one after the other at out (room bytes), their entries into the
// block table; returns the bytes written, or SIZE_MAX if they do not fit. A block that does not
// shrink is stored raw; after kRawStreak of them only every kProbeEvery-th block is tried,
// unless every_block.
size_t code_blocks(const zip_ctx &ctx, BlockCodec &encoder, const BlockRange &r, uint8_t *table,
                   uint8_t *out, size_t room, bool every_block = false)
{
    auto block_check = [&](const uint8_t *p, size_t n) {
        return ctx.block_checks ? check32(p, n) : 0u;
    };
    size_t pos = 0;
    unsigned raw_streak = 0;
    for (size_t i = r.b0; i < r.b1; ++i) {
        const size_t off = i * r.block;
        const size_t raw_n = off + r.block <= r.pbytes ? r.block : r.pbytes - off;
        const size_t left = room - pos;
        size_t stored = 0;
        const bool probe = every_block || raw_streak < kRawStreak || (i % kProbeEvery) == 0;
        if (probe && raw_n > 1 && left > 0) {
            size_t cap = raw_n - 1 < left ? raw_n - 1 : left;
            stored = encoder.compress(r.src + off, raw_n, r.ptype, out + pos, cap);
        }
        BlockEntry e;
        if (stored > 0 && stored < raw_n) {
            e = {uint32_t(stored), false, block_check(out + pos, stored)};
            raw_streak = 0;
        } else {
            if (left < raw_n)
                return SIZE_MAX;
            std::memcpy(out + pos, r.src + off, raw_n);
            stored = raw_n;
            e = {uint32_t(raw_n), true, block_check(out + pos, raw_n)};
            ++raw_streak;
        }
        write_block_entry(table, uint32_t(i), e);
        pos += stored;
    }
    return pos;
}

// Appends the blocks of a frame in block order as the threads coding them finish: block i
// waits until block i - 1 is in. Block i - 1 was claimed before block i by a thread that is
// coding it, so the wait is bounded by what is left of that block.
class FrameWriter
{
  public:
    explicit FrameWriter(uint8_t *base) : base_(base) {}

    void append(size_t block, const uint8_t *coded, size_t bytes)
    {
        // Polled as the pool's threads poll, then the core is given up (ranks may share cores).
        auto in = [&] { return written_.load(std::memory_order_acquire) == block; };
        if (!spin_until(in))
            while (!in())
                std::this_thread::yield();
        std::memcpy(base_ + end_, coded, bytes);
        end_ += bytes;
        written_.store(block + 1, std::memory_order_release);
    }

    // After every block was appended (the threads have finished).
    size_t bytes() const { return end_; }

  private:
    uint8_t *base_;
    std::atomic<size_t> written_{0}; // blocks [0, written_) are in, ending at end_
    size_t end_ = 0;                 // written by the thread that appends block written_ only
};

} // namespace

zip_status_t compress_frame(zip_ctx &ctx, uint64_t stream, zip_elem_type_t type, const uint8_t *src,
                            size_t count, uint8_t *dst, size_t dst_cap, size_t *frame_len,
                            const GivenReference *given)
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
    if (given) {
        // The receiver's copy of the reference is what it decoded: only a lossless sender's
        // copy is the same.
        if (payload != src || ptype != type)
            return fail(ctx, ZIP_E_ARG, "delta coding against a reference needs a lossless codec");
        if (given->bytes != pbytes || (given->ptr == nullptr && pbytes != 0))
            return fail(ctx, ZIP_E_ARG, "reference and message differ in size");
        grow(ctx.delta_buf, pbytes);
        xor_bytes(payload, given->ptr, pbytes, ctx.delta_buf.data());
        blocks_src = ctx.delta_buf.data();
        h.flags = kFlagTemporalDelta;
        h.reference_check = check32(given->ptr, pbytes);
    } else if (ctx.temporal) {
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
    const size_t table_end = kFrameHeaderBytes + block_table_bytes(h.block_count);
    if (dst_cap < table_end)
        return fail(ctx, ZIP_E_CAPACITY, "destination smaller than the frame header");
    uint8_t *table = dst + kFrameHeaderBytes;
    const BlockRange all{blocks_src, pbytes, block, ptype, 0, nblocks};
    size_t out;
    const unsigned parts = unsigned(std::min<size_t>(ctx.threads, nblocks));
    // With codec threads every block of such a frame is tried, whether the workers help or the
    // caller codes alone (the pool's engage()): the frame does not depend on which.
    const bool every_block =
        parts > 1 && pbytes >= kParallelMinBytes && dst_cap - table_end >= pbytes;
    if (every_block && ctx.pool->engage(pbytes >= kWakeMinBytes)) {
        // Blocks are claimed one at a time, in order (a thread that starts late takes fewer).
        // Each is coded into its thread's scratch, which stays in that core's cache, and
        // copied to the frame once the block before it is there: the frame's bytes are written
        // once, by the core that coded them. (Coded in the frame where each block would start
        // if every one before were raw, and moved down by whichever thread was next in line,
        // the frame was written twice and its lines moved between the cores: two threads
        // compressed at 1.40-1.83x one thread's speed, 1.66-2.17x so; docs/fast-codec.md.) Every
        // block is tried (no raw-streak rule, whose outcome would depend on which thread coded
        // what): the frame is the one thread's frame whenever that one tried every block.
        for (unsigned t = 0; t < parts; ++t)
            grow(ctx.block_scratch[t], block); // here, where a failure can be reported
        FrameWriter writer(dst + table_end);
        std::atomic<size_t> next{0};
        ctx.pool->run([&](unsigned t) {
            if (t >= parts)
                return;
            BlockCodec &enc = t == 0 ? *ctx.encoder : *ctx.worker_encoders[t - 1];
            std::vector<uint8_t> &scratch = ctx.block_scratch[t];
            for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < nblocks;) {
                BlockRange r = all;
                r.b0 = i;
                r.b1 = i + 1;
                const size_t raw_n = std::min(block, pbytes - i * block);
                // Cannot fail: the scratch has room for the block raw.
                writer.append(i, scratch.data(),
                              code_blocks(ctx, enc, r, table, scratch.data(), raw_n));
            }
        });
        out = table_end + writer.bytes();
    } else {
        const size_t got = code_blocks(ctx, *ctx.encoder, all, table, dst + table_end,
                                       dst_cap - table_end, every_block);
        if (every_block)
            ctx.pool->ran_alone();
        if (got == SIZE_MAX)
            return fail(ctx, ZIP_E_CAPACITY, "destination too small for the frame");
        out = table_end + got;
    }
    write_frame_header(h, dst);
    if (ctx.temporal && !given)
        ctx.refs.store(stream, payload, pbytes, payload_check, since_key);
    *frame_len = out;
    return ZIP_OK;
}

namespace
{

BlockCodec *decoder_for(std::array<std::unique_ptr<BlockCodec>, 16> &decoders, uint8_t id,
                        uint32_t param)
{
    if (id >= decoders.size())
        return nullptr;
    auto &slot = decoders[id];
    if (!slot || slot->param() != param)
        slot = make_codec(CodecId(id), param);
    return slot.get();
}

} // namespace

zip_status_t decompress_frame(zip_ctx &ctx, uint64_t stream, const uint8_t *frame, size_t frame_len,
                              uint8_t *dst, size_t dst_cap, size_t *raw_len,
                              const GivenReference *given)
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

    const uint8_t *ref = nullptr;
    if (h.flags & kFlagTemporalDelta) {
        bool held = false;
        if (given) {
            held = (given->ptr != nullptr || pbytes == 0) && given->bytes == pbytes &&
                   check32(given->ptr, pbytes) == h.reference_check;
            ref = given->ptr;
        } else if (const ReferenceStore::Reference *r = ctx.refs.find(stream)) {
            held = r->payload.size() == pbytes && r->check == h.reference_check;
            ref = r->payload.data();
        }
        if (!held)
            return fail(ctx, ZIP_E_STATE,
                        "temporal frame refers to a message this side does not hold");
    }

    const bool checked = !(h.flags & kFlagBlocksUnchecked);
    const uint8_t *table = frame + kFrameHeaderBytes;
    const size_t first = kFrameHeaderBytes + block_table_bytes(h.block_count);
    // Decodes blocks [b0, b1), their bytes from `in` on; ZIP_OK or the first block's failure.
    auto decode_blocks = [&](std::array<std::unique_ptr<BlockCodec>, 16> &decoders, uint32_t b0,
                             uint32_t b1, size_t in, const char **why) {
        BlockCodec *codec = nullptr;
        for (uint32_t i = b0; i < b1; ++i) {
            BlockEntry e = read_block_entry(table, i);
            const size_t off = size_t(i) * h.block_raw_bytes;
            const size_t raw_n = i + 1 < h.block_count ? h.block_raw_bytes : pbytes - off;
            if (checked ? check32(frame + in, e.stored_bytes) != e.check : e.check != 0) {
                *why = "block check mismatch";
                return ZIP_E_CHECKSUM;
            }
            if (e.raw) {
                std::memcpy(payload + off, frame + in, raw_n);
            } else {
                if (!codec && !(codec = decoder_for(decoders, h.codec, h.codec_param))) {
                    *why = "frame names a codec or parameter this build does not know";
                    return ZIP_E_UNSUPPORTED;
                }
                zip_status_t st =
                    codec->decompress(frame + in, e.stored_bytes, ptype, payload + off, raw_n);
                if (st != ZIP_OK) {
                    *why = "block does not decode";
                    return st;
                }
            }
            in += e.stored_bytes;
        }
        return ZIP_OK;
    };
    const unsigned parts = unsigned(std::min<size_t>(ctx.threads, h.block_count));
    const bool shared = parts > 1 && pbytes >= kParallelMinBytes;
    if (shared && ctx.pool->engage(pbytes >= kWakeMinBytes)) {
        // Where each block starts (the header check made sure the blocks fit in the frame).
        ctx.block_offsets.resize(h.block_count);
        size_t in = first;
        for (uint32_t i = 0; i < h.block_count; ++i) {
            ctx.block_offsets[i] = in;
            in += read_block_entry(table, i).stored_bytes;
        }
        // Each thread decodes its own range of blocks and then helps the others
        // (block_claims.hpp), so a thread that starts late (a worker waking up) or meets cheap
        // blocks (raw ones are a copy) takes fewer of them than its share. Every block is
        // decoded; the error reported is the lowest failing block's, as one thread would
        // report it.
        struct Failure {
            uint32_t block = UINT32_MAX;
            zip_status_t status = ZIP_OK;
            const char *why = "";
        };
        std::vector<Failure> failed(parts);
        static_assert(kMaxThreads <= BlockClaims::kMaxParts);
        BlockClaims claims(h.block_count, parts);
        ctx.pool->run([&](unsigned t) {
            if (t >= parts)
                return;
            auto &decoders = t == 0 ? ctx.decoders : ctx.worker_decoders[t - 1];
            unsigned cursor = t;
            for (size_t n; (n = claims.next(cursor)) != BlockClaims::kNone;) {
                const auto i = uint32_t(n);
                const char *block_why = "";
                const zip_status_t st =
                    decode_blocks(decoders, i, i + 1, ctx.block_offsets[i], &block_why);
                if (st != ZIP_OK && i < failed[t].block)
                    failed[t] = {i, st, block_why};
            }
        });
        const Failure *first_failure = &failed[0];
        for (const Failure &f : failed)
            if (f.block < first_failure->block)
                first_failure = &f;
        if (first_failure->status != ZIP_OK)
            return fail(ctx, first_failure->status, first_failure->why);
    } else {
        s = decode_blocks(ctx.decoders, 0, h.block_count, first, &why);
        if (shared)
            ctx.pool->ran_alone();
        if (s != ZIP_OK)
            return fail(ctx, s, why);
    }

    if (h.flags & kFlagTemporalDelta)
        xor_bytes(payload, ref, pbytes, payload);
    if (!given && (h.flags & (kFlagTemporalDelta | kFlagTemporalKey)))
        ctx.refs.store(stream, payload, pbytes, check32(payload, pbytes), 0);
    unrotate_payload(ptype, h.rotation, payload, size_t(h.count));
    if (narrowed)
        widen_f32_to_f64(payload, h.count, dst);
    *raw_len = size_t(h.raw_bytes);
    return ZIP_OK;
}

} // namespace zip
