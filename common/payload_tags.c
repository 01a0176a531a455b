/* pml/zip's payload tags: two windows of the 24-bit tag cycle (payload_tags.h says why). */
#include "payload_tags.h"

#define TAG_BITS 24
#define CYCLE (UINT32_C(1) << TAG_BITS)

/* The top (first) tag of each window; message seq takes top - seq % ZIP_PAYLOAD_WINDOW_TAGS.
 * Window 0: -2^23 + 2^21 .. -2^23 + 1; window 1: -2^21 .. -2^22 + 1. */
static const int32_t window_top[2] = {-(1 << 23) + (1 << 21), -(1 << 21)};

/* A tag's place on the 24-bit cycle (what pml/ucx keeps of it). */
static uint32_t position(int32_t tag)
{
    return (uint32_t)tag & (CYCLE - 1);
}

uint32_t zip_payload_window_distance(int32_t nbc_tag, int window)
{
    const uint32_t hi = position(window_top[window]);
    const uint32_t lo = position(window_top[window] - (int32_t)(ZIP_PAYLOAD_WINDOW_TAGS - 1));
    const uint32_t p = position(nbc_tag);
    if (p >= lo && p <= hi) {
        return 0;
    }
    const uint32_t below = (lo - p) & (CYCLE - 1); /* p lies below the window */
    const uint32_t above = (p - hi) & (CYCLE - 1); /* p lies above it */
    return below < above ? below : above;
}

int zip_payload_window(int32_t nbc_tag)
{
    return zip_payload_window_distance(nbc_tag, 1) > zip_payload_window_distance(nbc_tag, 0);
}

int zip_payload_tag(uint32_t seq, int window)
{
    return window_top[window & 1] - (int)(seq % ZIP_PAYLOAD_WINDOW_TAGS);
}
