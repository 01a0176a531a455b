// zip_mem_alloc / zip_mem_free: large buffers outside the C heap (zip.h says why).
#include <cstdlib>

#include <sys/mman.h>

#include "zip/zip.h"

extern "C" {

void *zip_mem_alloc(size_t bytes)
{
    if (bytes < ZIP_MEM_MAPPED_FROM)
        return std::malloc(bytes > 0 ? bytes : 1);
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
