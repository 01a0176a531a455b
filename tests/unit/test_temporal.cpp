// The temporal codec (Kumar's inter-step scheme): sender and receiver keep the previous message
// of each stream; a receiver without the right reference gets ZIP_E_STATE, never wrong data.
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace
{

using ziptest::dataset_bytes;

// A sending and a receiving context of one codec spec, made for each test.
class ContextPair : public ::testing::Test
{
  protected:
    explicit ContextPair(const char *spec) : spec_(spec) {}
    void SetUp() override
    {
        enc_ = zip_ctx_create(spec_, nullptr);
        dec_ = zip_ctx_create(spec_, nullptr);
        ASSERT_NE(enc_, nullptr);
        ASSERT_NE(dec_, nullptr);
    }
    void TearDown() override
    {
        zip_ctx_destroy(enc_);
        zip_ctx_destroy(dec_);
    }
    const char *spec_;
    zip_ctx_t *enc_ = nullptr;
    zip_ctx_t *dec_ = nullptr;
};

class Temporal : public ContextPair
{
  protected:
    Temporal() : ContextPair("temporal") {}
    std::vector<uint8_t> compress(uint64_t stream, const std::vector<uint8_t> &src)
    {
        std::vector<uint8_t> frame(zip_compress_bound(src.size()));
        size_t len = 0;
        EXPECT_EQ(zip_compress(enc_, stream, ZIP_TYPE_F64, src.data(), src.size() / 8, frame.data(),
                               frame.size(), &len),
                  ZIP_OK);
        frame.resize(len);
        return frame;
    }
    zip_status_t decompress(uint64_t stream, const std::vector<uint8_t> &frame,
                            std::vector<uint8_t> &out)
    {
        size_t len = 0;
        return zip_decompress(dec_, stream, frame.data(), frame.size(), out.data(), out.size(),
                              &len);
    }
};

TEST_F(Temporal, ConsecutiveStepsRoundTripBitExact)
{
    const size_t n = 6 * 128 * 128;
    for (uint64_t step = 1; step <= 5; ++step) {
        auto src = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, n, step);
        auto frame = compress(3, src);
        std::vector<uint8_t> out(src.size());
        ASSERT_EQ(decompress(3, frame, out), ZIP_OK) << zip_ctx_last_error(dec_);
        ASSERT_EQ(out, src) << "step " << step;
    }
}

// A message that changed in one element of a hundred since the last one: the delta frame
// carries little more than the changes.
TEST_F(Temporal, MostlyUnchangedMessageCostsFarLessThanAKeyFrame)
{
    auto first = dataset_bytes("random-unit", ZIP_TYPE_F64, 50000, 1);
    auto second = first;
    auto changes = dataset_bytes("random-unit", ZIP_TYPE_F64, 500, 2);
    for (size_t i = 0; i < 500; ++i)
        std::memcpy(second.data() + 8 * (100 * i + 37), changes.data() + 8 * i, 8);
    auto key = compress(2, first);
    auto delta = compress(2, second);
    std::vector<uint8_t> out(first.size());
    ASSERT_EQ(decompress(2, key, out), ZIP_OK);
    ASSERT_EQ(decompress(2, delta, out), ZIP_OK);
    EXPECT_EQ(out, second);
    EXPECT_LT(delta.size() * 10, key.size());
}

TEST_F(Temporal, MissingReferenceIsAStateErrorNotWrongData)
{
    auto a = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, 1);
    auto b = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, 2);
    compress(9, a); // receiver never sees this key frame
    auto delta = compress(9, b);
    std::vector<uint8_t> out(b.size());
    EXPECT_EQ(decompress(9, delta, out), ZIP_E_STATE);
}

TEST_F(Temporal, WrongReferenceIsDetected)
{
    auto a = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, 1);
    auto b = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, 2);
    std::vector<uint8_t> out(a.size());
    // Receiver holds b as reference for stream 4; sender deltas against a.
    ASSERT_EQ(decompress(4, compress(5, b), out), ZIP_OK);
    auto key = compress(4, a);
    auto delta = compress(4, b);
    EXPECT_EQ(decompress(4, delta, out), ZIP_E_STATE);
    (void)key;
}

TEST_F(Temporal, SizeChangeResyncsWithAKeyFrame)
{
    auto a = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, 1);
    auto b = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 2048, 2);
    std::vector<uint8_t> out(a.size());
    ASSERT_EQ(decompress(1, compress(1, a), out), ZIP_OK);
    std::vector<uint8_t> out_b(b.size());
    ASSERT_EQ(decompress(1, compress(1, b), out_b), ZIP_OK);
    EXPECT_EQ(out_b, b);
}

TEST_F(Temporal, StreamsAreIndependent)
{
    auto a1 = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, 1);
    auto b1 = dataset_bytes("random", ZIP_TYPE_F64, 4096, 1);
    auto a2 = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, 2);
    std::vector<uint8_t> out(a1.size());
    ASSERT_EQ(decompress(1, compress(1, a1), out), ZIP_OK);
    ASSERT_EQ(decompress(2, compress(2, b1), out), ZIP_OK);
    ASSERT_EQ(decompress(1, compress(1, a2), out), ZIP_OK);
    EXPECT_EQ(out, a2);
}

TEST_F(Temporal, MemoryCapEvictsOldStreamsOnBothEnds)
{
    const size_t bytes = 4096 * 8;
    ASSERT_EQ(zip_ctx_set_memory_cap(enc_, 2 * bytes), ZIP_OK);
    ASSERT_EQ(zip_ctx_set_memory_cap(dec_, 2 * bytes), ZIP_OK);
    std::vector<uint8_t> out(bytes);
    for (uint64_t step = 1; step <= 3; ++step)
        for (uint64_t stream = 1; stream <= 3; ++stream) {
            auto src = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, step + stream);
            ASSERT_EQ(decompress(stream, compress(stream, src), out), ZIP_OK);
            ASSERT_EQ(out, src);
        }
    EXPECT_LE(zip_ctx_memory_used(enc_), 2 * bytes + 4 * 65536 + (1u << 20));
}

TEST_F(Temporal, KeyFrameEveryIntervalLetsALateReceiverJoin)
{
    zip_ctx_destroy(enc_);
    enc_ = zip_ctx_create("temporal:key=3", nullptr);
    std::vector<uint8_t> out(4096 * 8);
    zip_status_t last = ZIP_E_STATE;
    for (uint64_t step = 1; step <= 4; ++step) {
        auto src = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, 4096, step);
        auto frame = compress(1, src);
        if (step >= 3) // receiver joins late: step 3 is a delta, step 4 a key frame
            last = decompress(1, frame, out);
        if (step == 3) {
            EXPECT_EQ(last, ZIP_E_STATE);
        }
    }
    EXPECT_EQ(last, ZIP_OK);
}

} // namespace

// ---- Delta frames against a reference the caller keeps (zip_compress_delta,
// zip_decompress_ref), as coll/zip's Alltoallv streams use them ----

namespace
{

class CallerReference : public ContextPair
{
  protected:
    CallerReference() : ContextPair("fast") {}
    std::vector<uint8_t> delta(const std::vector<uint8_t> &src, const std::vector<uint8_t> &ref)
    {
        std::vector<uint8_t> frame(zip_compress_bound(src.size()));
        size_t len = 0;
        EXPECT_EQ(zip_compress_delta(enc_, ZIP_TYPE_F64, src.data(), src.size() / 8, ref.data(),
                                     frame.data(), frame.size(), &len),
                  ZIP_OK)
            << zip_ctx_last_error(enc_);
        frame.resize(len);
        return frame;
    }
};

// Doubles with NaN payloads, -0.0, infinities and subnormals among smooth values.
std::vector<uint8_t> awkward_doubles(size_t n, uint64_t step)
{
    auto v = dataset_bytes("heat3d-halo", ZIP_TYPE_F64, n, step);
    const uint64_t specials[] = {0x7ff8000000000001ull, 0xfff0000000000abcull,
                                 0x8000000000000000ull, 0x7ff0000000000000ull, 1ull};
    for (size_t i = 0; i < 5; ++i)
        std::memcpy(v.data() + 8 * (i * 97 % n), &specials[i], 8);
    return v;
}

} // namespace

TEST_F(CallerReference, DeltaFrameDecodesBitExactAgainstTheSameReference)
{
    const auto ref = awkward_doubles(8192, 1);
    auto src = ref;
    for (size_t i = 0; i < src.size(); i += 800)
        src[i] ^= 0x10; // a few changed low bytes
    const auto frame = delta(src, ref);
    zip_frame_info_t info{};
    ASSERT_EQ(zip_frame_inspect(frame.data(), frame.size(), &info), ZIP_OK);
    std::vector<uint8_t> out(src.size());
    size_t len = 0;
    ASSERT_EQ(zip_decompress_ref(dec_, frame.data(), frame.size(), ref.data(), ref.size(),
                                 out.data(), out.size(), &len),
              ZIP_OK)
        << zip_ctx_last_error(dec_);
    EXPECT_EQ(len, src.size());
    EXPECT_EQ(out, src);
    // Far smaller than the same message on its own.
    std::vector<uint8_t> plain(zip_compress_bound(src.size()));
    size_t plain_len = 0;
    ASSERT_EQ(zip_compress(enc_, 0, ZIP_TYPE_F64, src.data(), src.size() / 8, plain.data(),
                           plain.size(), &plain_len),
              ZIP_OK);
    EXPECT_LT(frame.size() * 4, plain_len);
}

TEST_F(CallerReference, MissingOtherOrResizedReferenceIsAStateError)
{
    const auto ref = awkward_doubles(4096, 1);
    const auto src = awkward_doubles(4096, 2);
    const auto frame = delta(src, ref);
    auto other = ref;
    other[100] ^= 1;
    std::vector<uint8_t> out(src.size(), 0xee);
    size_t len = 0;
    EXPECT_EQ(zip_decompress_ref(dec_, frame.data(), frame.size(), nullptr, 0, out.data(),
                                 out.size(), &len),
              ZIP_E_STATE);
    EXPECT_EQ(zip_decompress_ref(dec_, frame.data(), frame.size(), other.data(), other.size(),
                                 out.data(), out.size(), &len),
              ZIP_E_STATE);
    EXPECT_EQ(zip_decompress_ref(dec_, frame.data(), frame.size(), ref.data(), ref.size() - 8,
                                 out.data(), out.size(), &len),
              ZIP_E_STATE);
    // A receiver that keeps no references at all (zip_decompress) is told the same.
    EXPECT_EQ(zip_decompress(dec_, 0, frame.data(), frame.size(), out.data(), out.size(), &len),
              ZIP_E_STATE);
    EXPECT_EQ(out, std::vector<uint8_t>(src.size(), 0xee)) << "nothing decoded on ZIP_E_STATE";
}

TEST_F(CallerReference, PlainFramesDecodeWithOrWithoutAReference)
{
    const auto src = awkward_doubles(4096, 3);
    std::vector<uint8_t> frame(zip_compress_bound(src.size()));
    size_t flen = 0;
    ASSERT_EQ(
        zip_compress(enc_, 0, ZIP_TYPE_F64, src.data(), 4096, frame.data(), frame.size(), &flen),
        ZIP_OK);
    const auto unrelated = awkward_doubles(4096, 9);
    std::vector<uint8_t> out(src.size());
    size_t len = 0;
    ASSERT_EQ(zip_decompress_ref(dec_, frame.data(), flen, unrelated.data(), unrelated.size(),
                                 out.data(), out.size(), &len),
              ZIP_OK);
    EXPECT_EQ(out, src);
    ASSERT_EQ(
        zip_decompress_ref(dec_, frame.data(), flen, nullptr, 0, out.data(), out.size(), &len),
        ZIP_OK);
    EXPECT_EQ(out, src);
}

TEST(CallerReferenceLossy, ALossyContextRefusesDeltaCoding)
{
    zip_ctx_t *ctx = zip_ctx_create("trunc:20+fast", nullptr);
    ASSERT_NE(ctx, nullptr);
    const auto src = awkward_doubles(1024, 1);
    std::vector<uint8_t> frame(zip_compress_bound(src.size()));
    size_t len = 0;
    EXPECT_EQ(zip_compress_delta(ctx, ZIP_TYPE_F64, src.data(), 1024, src.data(), frame.data(),
                                 frame.size(), &len),
              ZIP_E_ARG);
    EXPECT_NE(std::string(zip_ctx_last_error(ctx)).find("lossless"), std::string::npos);
    zip_ctx_destroy(ctx);
}
