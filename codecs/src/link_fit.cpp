// zip_link_fit_observe (zip.h): an arrival's rate with the fixed part of every arrival's time
// taken out (bytes moved before the clock started, or latency), that fixed part fitted from the
// two smallest sizes seen lately.
#include <cmath>

#include "zip/zip.h"

namespace
{

// The smallest class: below it an arrival's time is mostly latency (pml/zip does not time them).
constexpr int kFirstClassLog2 = 17;
// A class keeps the fastest of at most this many of its arrivals, so that an arrival slowed by
// the host (a descheduled sender) is outlived and a link that got slower is followed.
constexpr uint32_t kKeepArrivals = 16;
// A class takes part in the fit while it had an arrival among the fit's last this many.
constexpr uint32_t kRecentArrivals = 64;

int class_of(size_t bytes)
{
    const int log2 = int(std::floor(std::log2(double(bytes))));
    const int c = log2 - kFirstClassLog2;
    return c < ZIP_LINK_FIT_CLASSES ? c : ZIP_LINK_FIT_CLASSES - 1;
}

double rate_of(const zip_link_fit_class_t &c)
{
    return c.bytes / c.seconds;
}

// Keeps the arrival in its class if it is the class's fastest lately.
void keep(zip_link_fit_t *f, size_t bytes, double seconds)
{
    zip_link_fit_class_t &c = f->cls[class_of(bytes)];
    if (c.bytes == 0.0 || double(bytes) / seconds >= rate_of(c) || c.age + 1 >= kKeepArrivals) {
        c.bytes = double(bytes);
        c.seconds = seconds;
        c.age = 0;
    } else {
        ++c.age;
    }
    c.last = ++f->arrivals;
}

// The time every arrival has beyond its bytes at the link's rate (negative: bytes that came
// before the clock started), from the smallest recent class and the next recent one at least
// twice its size; false until there are two. The smallest sizes, because there the fixed part
// weighs most and the rate is least affected by what bends it at large sizes (caches, page
// faults on shared memory).
bool fixed_part(const zip_link_fit_t *f, double *seconds)
{
    const zip_link_fit_class_t *lo = nullptr;
    for (const zip_link_fit_class_t &k : f->cls) {
        if (k.bytes == 0.0 || f->arrivals - k.last >= kRecentArrivals)
            continue;
        if (lo == nullptr) {
            lo = &k;
        } else if (k.bytes >= 2.0 * lo->bytes) {
            const double slope = (k.seconds - lo->seconds) / (k.bytes - lo->bytes);
            if (!(slope > 0.0))
                return false;
            *seconds = lo->seconds - lo->bytes * slope;
            return true;
        }
    }
    return false;
}

} // namespace

extern "C" double zip_link_fit_observe(zip_link_fit_t *f, size_t bytes, double seconds, int *fitted)
{
    *fitted = 0;
    if (bytes == 0 || !(seconds > 0.0))
        return 0.0;
    if (f == nullptr || bytes < (size_t(1) << kFirstClassLog2))
        return double(bytes) / seconds;
    keep(f, bytes, seconds);
    double fixed = 0.0;
    if (!fixed_part(f, &fixed))
        return double(bytes) / seconds;
    *fitted = 1;
    // At most halved or doubled: a wider correction is noise in the two classes, not a link.
    const double wire = std::fmin(std::fmax(seconds - fixed, 0.5 * seconds), 2.0 * seconds);
    return double(bytes) / wire;
}
