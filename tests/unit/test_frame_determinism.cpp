// Same input, same frame: a frame depends only on the data and the context's configuration,
// never on what the context compressed before (issue 11: `fast` frames differed by a few bytes
// after other messages, because LZ4's stream state remembered whether it had been used).
// Every lossless codec, many data sets and sizes, one context fed in different orders.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace
{

using ziptest::dataset_bytes;
using Bytes = std::vector<uint8_t>;

struct CtxDeleter {
    void operator()(zip_ctx_t *c) const { zip_ctx_destroy(c); }
};
using Ctx = std::unique_ptr<zip_ctx_t, CtxDeleter>;

Ctx make_ctx(const std::string &spec)
{
    zip_status_t err;
    Ctx ctx(zip_ctx_create(spec.c_str(), &err));
    EXPECT_TRUE(ctx) << spec << ": " << zip_spec_error();
    return ctx;
}

struct Input {
    std::string name;
    zip_elem_type_t type;
    Bytes data;
};

Bytes compress(zip_ctx_t *ctx, const Input &in)
{
    Bytes frame(zip_compress_bound(in.data.size()));
    size_t len = 0;
    zip_status_t st =
        zip_compress(ctx, 3, in.type, in.data.data(), in.data.size() / zip_elem_size(in.type),
                     frame.data(), frame.size(), &len);
    EXPECT_EQ(st, ZIP_OK) << in.name;
    frame.resize(len);
    return frame;
}

// Data sets x sizes x types: smooth, sorted, noisy, special values; one block, several blocks,
// odd sizes; plus the synthetic record layouts.
std::vector<Input> inputs()
{
    std::vector<Input> v;
    const char *const sets[] = {"gauss-256",   "gauss-512-sorted", "sincos-256", "heat3d",
                                "heat3d-halo", "linear",           "random",     "special"};
    for (const char *set : sets)
        for (size_t n : {size_t(100), size_t(512), size_t(3001), size_t(20000)})
            for (zip_elem_type_t t : {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES}) {
                size_t count = t == ZIP_TYPE_BYTES ? n * 8 : n;
                v.push_back({std::string(set) + "/" + std::to_string(n) + "/" + std::to_string(t),
                             t, dataset_bytes(set, t, count, 5)});
            }
    return v;
}

class FrameDeterminism : public ::testing::TestWithParam<const char *>
{
};

TEST_P(FrameDeterminism, FrameDependsOnlyOnTheInputNotOnTheContextsHistory)
{
    const std::string spec = GetParam();
    const std::vector<Input> in = inputs();
    // Reference: each input compressed by a context that has seen nothing else.
    std::vector<Bytes> fresh;
    for (const Input &x : in) {
        Ctx ctx = make_ctx(spec);
        fresh.push_back(compress(ctx.get(), x));
    }
    // One context, forwards, then backwards, then interleaved with repeats.
    Ctx ctx = make_ctx(spec);
    for (size_t i = 0; i < in.size(); ++i)
        ASSERT_EQ(compress(ctx.get(), in[i]), fresh[i]) << spec << " forwards: " << in[i].name;
    for (size_t i = in.size(); i-- > 0;)
        ASSERT_EQ(compress(ctx.get(), in[i]), fresh[i]) << spec << " backwards: " << in[i].name;
    for (size_t i = 0; i < in.size(); ++i) {
        size_t j = (i * 7 + 3) % in.size();
        ASSERT_EQ(compress(ctx.get(), in[j]), fresh[j]) << spec << " shuffled: " << in[j].name;
        ASSERT_EQ(compress(ctx.get(), in[j]), fresh[j]) << spec << " repeated: " << in[j].name;
    }
}

// A long-lived context: LZ4's stream state resets itself after about 1 GB of input offsets
// (64 KiB + the plane per LZ4 call), after which the next plane was coded as by a fresh context.
// Many small messages with LZ4 planes get there quickly.
TEST_P(FrameDeterminism, FramesStayTheSameAfterManyMessages)
{
    const std::string spec = GetParam();
    const Input probe{"sincos-256/512/f32", ZIP_TYPE_F32,
                      dataset_bytes("sincos-256", ZIP_TYPE_F32, 512, 5)};
    Ctx ref = make_ctx(spec);
    const Bytes expect_probe = compress(ref.get(), probe);
    Ctx ctx = make_ctx(spec);
    for (int i = 0; i < 25000; ++i)
        ASSERT_EQ(compress(ctx.get(), probe), expect_probe) << spec << " message " << i;
}

std::string spec_name(const ::testing::TestParamInfo<const char *> &info)
{
    std::string s = info.param;
    for (char &c : s)
        if (!isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return s;
}

INSTANTIATE_TEST_SUITE_P(Codecs, FrameDeterminism,
                         ::testing::Values("fast", "fast:pred=1", "fast:accel=8", "lz4", "zstd",
                                           "fpc", "dfcm", "xorlz", "trunc:20+fast", "f32+fast"),
                         spec_name);

} // namespace
