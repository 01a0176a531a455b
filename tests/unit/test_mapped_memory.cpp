// zip_mem_alloc keeps zip's large buffers out of the C heap (zip.h says why: a freed heap-mapped
// chunk raises glibc's mmap threshold, and CoMD's own halo buffers were then trimmed and faulted
// in again on every exchange). malloc's own statistics show whether memory came from it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <sstream>
#include <string>

#include "zip/zip.h"

namespace
{

} // namespace

// Defined where the program is linked with ASan's runtime, whether or not this file was compiled
// with it (the sanitized build leaves the tests' own files uninstrumented: tests/Makefile.am).
extern "C" void __asan_init() __attribute__((weak));

namespace
{

const bool kOwnMalloc = &__asan_init == nullptr; // ASan's malloc keeps no glibc statistics

// What malloc holds: mapped chunks and bytes in use from the heap.
struct HeapUse {
    size_t mapped_chunks, mapped_bytes, heap_bytes;
    bool operator==(const HeapUse &o) const
    {
        return mapped_chunks == o.mapped_chunks && mapped_bytes == o.mapped_bytes &&
               heap_bytes == o.heap_bytes;
    }
};

HeapUse heap_use()
{
    const struct mallinfo2 m = mallinfo2();
    return {m.hblks, m.hblkhd, m.uordblks};
}

TEST(MappedMemory, LargeBuffersNeverComeFromMalloc)
{
    if (!kOwnMalloc)
        GTEST_SKIP() << "malloc is the sanitizer's";
    for (size_t bytes : {ZIP_MEM_MAPPED_FROM, size_t(1) << 20, (size_t(32) << 20) + 5}) {
        const HeapUse before = heap_use();
        auto *p = static_cast<unsigned char *>(zip_mem_alloc(bytes));
        ASSERT_NE(p, nullptr) << bytes;
        std::memset(p, 0xa5, bytes); // all of it is ours to write
        EXPECT_EQ(p[bytes - 1], 0xa5);
        EXPECT_TRUE(heap_use() == before) << bytes << " bytes came from malloc";
        zip_mem_free(p, bytes);
        EXPECT_TRUE(heap_use() == before) << bytes;
    }
}

TEST(MappedMemory, SmallBuffersComeFromMalloc)
{
    if (!kOwnMalloc)
        GTEST_SKIP() << "malloc is the sanitizer's";
    const size_t bytes = ZIP_MEM_MAPPED_FROM - 1;
    const HeapUse before = heap_use();
    void *p = zip_mem_alloc(bytes);
    ASSERT_NE(p, nullptr);
    const HeapUse during = heap_use();
    EXPECT_GE(during.heap_bytes + during.mapped_bytes,
              before.heap_bytes + before.mapped_bytes + bytes);
    zip_mem_free(p, bytes);
    EXPECT_TRUE(heap_use() == before);
}

TEST(MappedMemory, ZeroBytesAndNullAreHarmless)
{
    void *p = zip_mem_alloc(0);
    EXPECT_NE(p, nullptr);
    zip_mem_free(p, 0);
    zip_mem_free(nullptr, 0);
    zip_mem_free(nullptr, size_t(1) << 20);
}

// The kernel's entry for the mapping that holds p (/proc/self/smaps): its range and flags.
struct Mapping {
    uintptr_t begin = 0, end = 0;
    std::string flags; // VmFlags: "hg" where huge pages were asked for
};

Mapping mapping_of(const void *p)
{
    const auto at = reinterpret_cast<uintptr_t>(p);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    Mapping m;
    bool inside = false;
    while (std::getline(smaps, line)) {
        uintptr_t b = 0, e = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> b >> dash >> e && dash == '-') {
            inside = b <= at && at < e;
            if (inside)
                m = {b, e, ""};
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            m.flags = line.substr(8);
        }
    }
    return m;
}

bool has_flag(const std::string &flags, const std::string &flag)
{
    std::istringstream in(flags);
    std::string f;
    while (in >> f)
        if (f == flag)
            return true;
    return false;
}

// A fresh 4 KiB page cost 11 us to fault in on the project's VM, inside the codec call that
// first wrote it, so a buffer of 2 MiB and more starts on a huge page's boundary and asks for
// huge pages; it holds exactly its own pages (nothing of the alignment is left mapped beside it)
// and zip_mem_free gives all of them back.
TEST(MappedMemory, BuffersOfAHugePageAndMoreAreAlignedAndAskForHugePages)
{
    if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled"))
        GTEST_SKIP() << "this kernel has no transparent huge pages";
    constexpr size_t huge = size_t(2) << 20;
    for (size_t bytes : {huge, huge + 5, (size_t(16) << 20) + 4096 * 3}) {
        auto *p = static_cast<unsigned char *>(zip_mem_alloc(bytes));
        ASSERT_NE(p, nullptr) << bytes;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % huge, 0u) << bytes;
        std::memset(p, 0x5a, bytes);
        const Mapping m = mapping_of(p);
        EXPECT_EQ(m.begin, reinterpret_cast<uintptr_t>(p)) << bytes;
        EXPECT_EQ(m.end, reinterpret_cast<uintptr_t>(p) + (bytes + 4095) / 4096 * 4096) << bytes;
        EXPECT_TRUE(has_flag(m.flags, "hg")) << bytes << ": VmFlags" << m.flags;
        zip_mem_free(p, bytes);
        EXPECT_EQ(mapping_of(p).begin, 0u) << bytes << " bytes left mapped";
    }
}

TEST(MappedMemory, BuffersBelowAHugePageAreLeftToTheKernelsDefault)
{
    const size_t bytes = (size_t(2) << 20) - 4096;
    void *p = zip_mem_alloc(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_FALSE(has_flag(mapping_of(p).flags, "hg"));
    zip_mem_free(p, bytes);
}

// Whether malloc maps a chunk of `bytes` now, i.e. whether glibc's mmap threshold is still below
// it. Leaves the chunk allocated: freeing a mapped chunk would itself raise the threshold.
bool malloc_maps(size_t bytes)
{
    const size_t before = mallinfo2().hblks;
    void *volatile p = std::malloc(bytes);
    return p != nullptr && mallinfo2().hblks == before + 1;
}

// In a process of its own (the threadsafe death-test style runs the test binary anew), so that
// glibc's threshold starts at its default, 128 KiB.
void in_fresh_process(void (*body)())
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(body(), ::testing::ExitedWithCode(0), "");
}

// The probe itself: one freed 600 KiB chunk from malloc moves the threshold past 256 KiB.
TEST(MappedMemoryDeathTest, AFreedMappedChunkMovesMallocsThreshold)
{
    if (!kOwnMalloc)
        GTEST_SKIP() << "malloc is the sanitizer's";
    in_fresh_process([] {
        const bool before = malloc_maps(256 << 10);
        void *volatile chunk = std::malloc(600 << 10); // volatile: the pair is not elided
        std::free(chunk);
        std::exit(before && !malloc_maps(256 << 10) ? 0 : 1);
    });
}

// The calibration codes 1.5 MB of a synthetic field; zip's buffers of that size likewise.
// None of it may pass through malloc, or the application's allocations of up to that size
// would come from the heap afterwards.
TEST(MappedMemoryDeathTest, CalibrationAndLargeBuffersLeaveMallocsThresholdAlone)
{
    if (!kOwnMalloc)
        GTEST_SKIP() << "malloc is the sanitizer's";
    in_fresh_process([] {
        zip_status_t st = ZIP_OK;
        zip_ctx_t *ctx = zip_ctx_create("fast", &st);
        double c = 0.0, d = 0.0;
        if (ctx == nullptr || zip_calibrate(ctx, &c, &d) != ZIP_OK)
            std::exit(2);
        zip_ctx_destroy(ctx);
        zip_mem_free(zip_mem_alloc(size_t(4) << 20), size_t(4) << 20);
        std::exit(malloc_maps(256 << 10) ? 0 : 1);
    });
}

} // namespace
