// Counters that threads add to without ordering anything else by them: coll/zip's statistics
// (coll_stats.cpp) and codec meter (codec_meter.cpp), which MPI_THREAD_MULTIPLE calls update
// from several threads and a reader sums now and then. (GCC's builtins: std::atomic_ref cannot
// load through a pointer to const before C++26.)
#pragma once

#include <cstdint>

namespace zipcoll
{

inline void relaxed_add(uint64_t *counter, uint64_t value)
{
    if (value != 0)
        __atomic_fetch_add(counter, value, __ATOMIC_RELAXED);
}

inline uint64_t relaxed_load(const uint64_t *counter)
{
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

inline void relaxed_store(uint64_t *counter, uint64_t value)
{
    __atomic_store_n(counter, value, __ATOMIC_RELAXED);
}

} // namespace zipcoll
