// Frames of the first `fast` format still decode (issue 11 added strides, Xor and sparse
// planes as new values, so the old ones keep their meaning): real frames of the old encoder
// (fast_v1_frames.hpp), decoded through the public API and compared with the data they were
// made from; and a new encoder's frames are marked so that an old decoder refuses them as
// unsupported rather than decoding them wrongly.
#include <gtest/gtest.h>

#include <cstring>

#include "fast_v1_frames.hpp"
#include "test_support.hpp"

namespace
{

// What the old frames held: data set bytes as the generator wrote them (F32 narrowed, BYTES the
// raw double bytes).
std::vector<uint8_t> original(const fast_v1::Frame &f)
{
    return ziptest::dataset_bytes(f.dataset, zip_elem_type_t(f.type), f.count, f.seed);
}

} // namespace

TEST(FastCompat, FramesOfTheFirstFormatDecodeBitExact)
{
    zip_ctx_t *ctx = zip_ctx_create("fast", nullptr);
    ASSERT_NE(ctx, nullptr);
    ASSERT_EQ(fast_v1::frames().size(), 6u);
    for (const fast_v1::Frame &f : fast_v1::frames()) {
        SCOPED_TRACE(testing::Message() << f.spec << " " << f.dataset << " type " << f.type);
        zip_frame_info_t info;
        ASSERT_EQ(zip_frame_inspect(f.bytes.data(), f.bytes.size(), &info), ZIP_OK);
        EXPECT_EQ(info.codec_id, 6u); // fast
        EXPECT_FALSE(info.stored_raw);
        std::vector<uint8_t> want = original(f), got(want.size() + 8, 0xee);
        size_t len = 0;
        ASSERT_EQ(
            zip_decompress(ctx, 0, f.bytes.data(), f.bytes.size(), got.data(), got.size(), &len),
            ZIP_OK)
            << zip_ctx_last_error(ctx);
        ASSERT_EQ(len, want.size());
        EXPECT_EQ(0, std::memcmp(got.data(), want.data(), len));
    }
    zip_ctx_destroy(ctx);
}

TEST(FastCompat, NewFramesCarryTheSecondFormatInTheirParameter)
{
    // Bit 24 of the codec parameter: a decoder of the first format rejects the parameter (it
    // requires bits 10..31 zero) and reports ZIP_E_UNSUPPORTED instead of misreading a block.
    auto src = ziptest::dataset_bytes("records-5", ZIP_TYPE_F64, 20000);
    auto frame = ziptest::make_frame("fast", ZIP_TYPE_F64, src);
    uint32_t param;
    std::memcpy(&param, frame.data() + 8, 4);
    EXPECT_EQ(param & (1u << 24), 1u << 24);
    EXPECT_EQ(param & (1u << 25), 1u << 25); // format 3: bit planes (coding 10) may occur
    EXPECT_EQ(param & (1u << 26), 1u << 26); // format 4: element runs may occur
    EXPECT_EQ(param & ~(7u << 24), 0u);      // default options: nothing else set
}
