// The clock coll/zip times its codec calls and link probes with (codec_binding.cpp,
// codec_meter.cpp, link_probe.cpp).
#pragma once

#include <chrono>
#include <cstdint>

namespace zipcoll
{

inline uint64_t steady_ns()
{
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
}

} // namespace zipcoll
