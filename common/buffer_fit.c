#include "buffer_fit.h"

size_t zip_buffer_capacity(size_t bytes)
{
    const size_t page = 4096;
    if (0 == bytes) {
        bytes = 1;
    }
    if (bytes >= ZIP_BUFFER_LARGE_BYTES) {
        return (bytes + page - 1) & ~(page - 1);
    }
    return (bytes + ZIP_BUFFER_SMALL_STEP - 1) & ~(ZIP_BUFFER_SMALL_STEP - 1);
}

int zip_buffer_pick(const size_t *caps, int n, size_t bytes)
{
    int best = -1;
    for (int i = 0; i < n; ++i) {
        if (caps[i] >= bytes && (best < 0 || caps[i] < caps[best])) {
            best = i;
        }
    }
    if (best >= 0 && caps[best] > ZIP_BUFFER_LARGE_BYTES &&
        caps[best] / ZIP_BUFFER_MAX_WASTE > bytes) {
        return -1;
    }
    return best;
}
