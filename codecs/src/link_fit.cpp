// zip_link_fit_observe (zip.h): a link's rate as the slope of arrival time against size, so that
// a fixed part of every arrival (bytes moved before the clock started, or latency) drops out.
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

} // namespace

extern "C" double zip_link_fit_observe(zip_link_fit_t *f, size_t bytes, double seconds, int *fitted)
{
    *fitted = 0;
    if (bytes == 0 || !(seconds > 0.0))
        return 0.0;
    const double own = double(bytes) / seconds;
    if (f == nullptr || bytes < (size_t(1) << kFirstClassLog2))
        return own;

    zip_link_fit_class_t &c = f->cls[class_of(bytes)];
    if (c.bytes == 0.0 || own >= rate_of(c) || c.age + 1 >= kKeepArrivals) {
        c.bytes = double(bytes);
        c.seconds = seconds;
        c.age = 0;
    } else {
        ++c.age;
    }
    c.last = ++f->arrivals;

    const zip_link_fit_class_t *lo = nullptr;
    const zip_link_fit_class_t *hi = nullptr;
    for (const zip_link_fit_class_t &k : f->cls) {
        if (k.bytes == 0.0 || f->arrivals - k.last >= kRecentArrivals)
            continue;
        if (lo == nullptr)
            lo = &k;
        hi = &k;
    }
    if (lo == hi || hi->bytes < 2.0 * lo->bytes)
        return own;
    const double slope = (hi->seconds - lo->seconds) / (hi->bytes - lo->bytes);
    if (!(slope > 0.0))
        return own;
    const double largest = rate_of(*hi);
    *fitted = 1;
    return std::fmin(std::fmax(1.0 / slope, 0.5 * largest), 2.0 * largest);
}
