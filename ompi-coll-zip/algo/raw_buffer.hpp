// Working memory of the algorithms (frames, staging, scratch), kept between calls.
#pragma once

#include <cstddef>
#include <memory>

namespace zipcoll
{

// Gives a buffer back to the cache of raw_buffer (or to the heap); `bytes` is its capacity.
struct RawBufferFree {
    size_t bytes = 0;
    void operator()(char *p) const noexcept;
};

using RawBuffer = std::unique_ptr<char[], RawBufferFree>;

// At least n bytes, not initialised; empty (not an exception) when n is 0 or memory is short,
// so callers can fail before posting any request. Buffers from 256 KiB up come from a small
// process-wide cache of freed ones (up to 4, and 64 MiB unless set_raw_buffer_cache_limit
// says otherwise) where one is large enough: allocated anew for every call,
// glibc maps them fresh and each call pays their page faults and unmapping (netemu, 8 ranks at
// 10 Gbit/s, MPI_Scatter of 1 MiB of smooth data per rank, whose root stages 7 MiB of frames:
// 27.6-33.2 ms against stock's 9.3-11.6 ms; 8.7 against 8.6 with glibc's mmap threshold raised).
RawBuffer raw_buffer(size_t n);

// What the cache may hold unless told otherwise (coll_zip_buffer_cache's default).
constexpr size_t kDefaultRawBufferCache = size_t(64) << 20;

// Caps what the cache holds from now on (0: nothing is kept), freeing the smallest kept
// buffers until it holds no more than that.
void set_raw_buffer_cache_limit(size_t bytes);

// Frees what the cache holds (the component's close; tests).
void release_raw_buffers();

// Bytes the cache holds now (tests).
size_t cached_raw_buffer_bytes();

} // namespace zipcoll
