#include "sim_codec.hpp"

#include <cmath>

namespace simscale
{

SimCodec::SimCodec(const CodecTable *table, std::string codec, std::string dataset, Cpu cpu)
    : table_(table), codec_(std::move(codec)), dataset_(std::move(dataset)), cpu_(cpu)
{
    ops_.ctx = this;
    ops_.compress = &SimCodec::compress;
    ops_.decompress = &SimCodec::decompress;
}

double SimCodec::copy_seconds(size_t bytes) const
{
    if (bytes == 0)
        return 0.0;
    return double(bytes) / table_->at("memcpy", dataset_, double(bytes)).compress_Bps;
}

void SimCodec::pay() const
{
    const double t = owed_;
    owed_ = 0.0;
    cpu_.spend(t);
}

int SimCodec::compress(void *ctx, int, const void *, size_t bytes, void *, size_t dst_cap,
                       size_t *frame_len)
{
    auto *self = static_cast<SimCodec *>(ctx);
    const CodecPoint p = self->table_->at(self->codec_, self->dataset_, double(bytes));
    // The codec does the whole block's work even when the frame ends up too long to use
    // (incompressible data: the frame is the raw block plus a header).
    const double t = double(bytes) / p.compress_Bps;
    self->owe(t);
    self->work_.compress_s += t;
    self->work_.compressed_bytes += bytes;
    const double frame = std::ceil(double(bytes) / p.ratio);
    if (frame > double(dst_cap))
        return 1;
    *frame_len = size_t(frame);
    ++self->work_.frames;
    return 0;
}

int SimCodec::decompress(void *ctx, const void *, size_t, void *, size_t dst_cap, size_t *raw_len)
{
    // The receiver always knows the raw length (the wire rule of zip_algo.h) and passes it
    // as dst_cap.
    auto *self = static_cast<SimCodec *>(ctx);
    const CodecPoint p = self->table_->at(self->codec_, self->dataset_, double(dst_cap));
    const double t = double(dst_cap) / p.decompress_Bps;
    self->owe(t);
    self->work_.decompress_s += t;
    *raw_len = dst_cap;
    return 0;
}

} // namespace simscale
