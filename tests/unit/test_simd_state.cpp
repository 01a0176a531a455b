// Every entry point of the codec engine returns with the upper halves of the vector registers
// clean (simd_state.hpp): Debian's XXH3 leaves them dirty, and the application's SSE code after
// a codec call then ran several times slower on this project's machines. XGETBV(1) reports which
// register state components are in use; component 2 (the upper 128 bits of YMM0-15) and 6 (the
// upper 256 bits of ZMM0-15) must be back in their initial state after each call.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "test_support.hpp"
#include "zip/zip.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

namespace
{

bool have_xinuse()
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
        return false;
    if (!__get_cpuid_count(0xd, 1, &a, &b, &c, &d))
        return false;
    return (a & (1u << 2)) != 0; // XGETBV with ECX = 1
}

__attribute__((target("xsave"))) uint64_t xinuse()
{
    return _xgetbv(1);
}

constexpr uint64_t kUpperStates = (1u << 2) | (1u << 6); // YMM_Hi128, ZMM_Hi256

// Dirties the upper state as XXH3's AVX-512 path does (no VZEROUPPER on the way out): in
// assembly, since the compiler puts a VZEROUPPER after any AVX code it generates itself.
__attribute__((noinline)) void dirty_upper(volatile double *sink)
{
    asm volatile("vpcmpeqd %%ymm1, %%ymm1, %%ymm1" ::: "xmm1");
    *sink = *sink + 1.0;
}

class SimdState : public testing::Test
{
  protected:
    void SetUp() override
    {
        if (!have_xinuse())
            GTEST_SKIP() << "no XGETBV(1) on this CPU";
    }
};

TEST_F(SimdState, TheProbeSeesDirtyUpperHalves)
{
    volatile double sink = 1.0;
    dirty_upper(&sink);
    // Without this the test below could not fail: the probe must see what it checks for.
    EXPECT_NE(xinuse() & kUpperStates, 0u);
}

TEST_F(SimdState, EveryEntryPointReturnsWithCleanUpperHalves)
{
    const size_t n = 65536;
    const std::vector<uint8_t> data = ziptest::dataset_bytes("gauss-1024", ZIP_TYPE_F64, n);
    const std::vector<uint8_t> ref = ziptest::dataset_bytes("gauss-1024", ZIP_TYPE_F64, n, 2);
    for (const char *spec : {"fast", "raw", "lz4", "fpc", "dfcm"}) {
        SCOPED_TRACE(spec);
        zip_status_t st = ZIP_OK;
        zip_ctx_t *ctx = zip_ctx_create(spec, &st);
        ASSERT_NE(ctx, nullptr);
        std::vector<uint8_t> frame(zip_compress_bound(data.size())), back(data.size());
        size_t frame_len = 0, raw_len = 0;
        volatile double sink = 1.0;
        dirty_upper(&sink);
        ASSERT_EQ(zip_compress(ctx, 0, ZIP_TYPE_F64, data.data(), n, frame.data(), frame.size(),
                               &frame_len),
                  ZIP_OK);
        EXPECT_EQ(xinuse() & kUpperStates, 0u) << "after zip_compress";
        dirty_upper(&sink);
        ASSERT_EQ(
            zip_decompress(ctx, 0, frame.data(), frame_len, back.data(), back.size(), &raw_len),
            ZIP_OK);
        EXPECT_EQ(xinuse() & kUpperStates, 0u) << "after zip_decompress";
        EXPECT_EQ(back, data);
        dirty_upper(&sink);
        zip_frame_info_t info;
        ASSERT_EQ(zip_frame_inspect(frame.data(), frame_len, &info), ZIP_OK);
        EXPECT_EQ(xinuse() & kUpperStates, 0u) << "after zip_frame_inspect";
        dirty_upper(&sink);
        ASSERT_EQ(zip_compress_delta(ctx, ZIP_TYPE_F64, data.data(), n, ref.data(), frame.data(),
                                     frame.size(), &frame_len),
                  ZIP_OK);
        EXPECT_EQ(xinuse() & kUpperStates, 0u) << "after zip_compress_delta";
        dirty_upper(&sink);
        ASSERT_EQ(zip_decompress_ref(ctx, frame.data(), frame_len, ref.data(), ref.size(),
                                     back.data(), back.size(), &raw_len),
                  ZIP_OK);
        EXPECT_EQ(xinuse() & kUpperStates, 0u) << "after zip_decompress_ref";
        EXPECT_EQ(back, data);
        zip_ctx_destroy(ctx);
    }
}

} // namespace
#endif
