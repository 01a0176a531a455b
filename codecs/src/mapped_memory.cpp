// zip_mem_alloc / zip_mem_free: large buffers outside the C heap (zip.h says why).
#include <cstdint>
#include <cstdlib>

#include <sys/mman.h>

#include "zip/zip.h"

namespace
{

// Where the page faults go. A fresh 4 KiB page costs 11 us to fault in on this project's VM
// (16 MiB: 46 ms), and a frame buffer that the cache of raw_buffer does not hold yet is
// faulted in during the codec call that fills it, which the codec meters then read as a codec
// 10x slower than it is (the slow start of docs/performance.md). In 2 MiB pages the same 16 MiB
// take about 1 ms. So a buffer that holds a whole huge page is aligned to one and asked to get
// them (the kernel may still say no: transparent huge pages off, or no free huge page).
constexpr size_t kHugePage = size_t(2) << 20;

size_t whole_pages(size_t bytes)
{
    constexpr size_t page = 4096;
    return (bytes + page - 1) / page * page;
}

void *map_aligned_to_huge_pages(size_t bytes)
{
    const size_t len = whole_pages(bytes);
    void *p =
        mmap(nullptr, len + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return nullptr;
    // Keep [start, start + len) and give back what lies before and after it, so that
    // zip_mem_free unmaps exactly what the caller holds.
    const auto base = reinterpret_cast<uintptr_t>(p);
    const uintptr_t start = (base + kHugePage - 1) & ~uintptr_t(kHugePage - 1);
    if (start > base)
        munmap(p, start - base);
    const size_t tail = base + len + kHugePage - (start + len);
    if (tail > 0)
        munmap(reinterpret_cast<void *>(start + len), tail);
    (void)madvise(reinterpret_cast<void *>(start), len, MADV_HUGEPAGE); // advice only
    return reinterpret_cast<void *>(start);
}

} // namespace

extern "C" {

void *zip_mem_alloc(size_t bytes)
{
    if (bytes < ZIP_MEM_MAPPED_FROM)
        return std::malloc(bytes > 0 ? bytes : 1);
    if (bytes >= kHugePage)
        return map_aligned_to_huge_pages(bytes);
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

void zip_mem_free(void *p, size_t bytes)
{
    if (p == nullptr)
        return;
    if (bytes < ZIP_MEM_MAPPED_FROM)
        std::free(p);
    else
        munmap(p, bytes);
}

} // extern "C"
