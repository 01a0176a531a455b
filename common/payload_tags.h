/*
 * The private tags of pml/zip's payloads (pml_zip_header.c), without MPI (unit-tested in
 * tests/unit/test_payload_tags.cpp).
 *
 * A split message's payload follows its envelope on a negative tag, which no application
 * receive can match. Negative tags are Open MPI's own: fixed tags of the collectives (-10 ..
 * -31080), and the non-blocking range, which each non-blocking collective on a communicator
 * walks down by one tag or more (libnbc, coll/adapt, coll/zip), from -27 to about -2^30 and
 * round again. pml/ucx keeps 24 bits of a tag, so there that range passes every negative 24-bit
 * value once every 2^24 such calls; over ob1 it passes the 24-bit values below -2^22 after about
 * four million. A payload on a tag that the range is passing could meet a collective's message
 * between the same two ranks on the same communicator, and the wrong receive would take it.
 *
 * So a payload takes one of two windows of 2^21 tags, a quarter of the 24-bit cycle apart: the
 * one farther from the tag the communicator's range stands at on the sending rank when it sends
 * (the envelope says which). The collectives whose messages are in flight at that moment were
 * started at most a few calls before or after on any rank, and the window chosen is at least
 * 2^20 calls away from that tag, in both directions.
 */
#ifndef ZIP_PAYLOAD_TAGS_H
#define ZIP_PAYLOAD_TAGS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tags per window: at most this many split messages of a process may be in flight at once. */
#define ZIP_PAYLOAD_WINDOW_TAGS (1u << 21)

/* The window (0 or 1) farther from nbc_tag, the communicator's next non-blocking tag. */
int zip_payload_window(int32_t nbc_tag);

/* The payload tag of message seq in window w (negative, below -2^21, above -2^23). */
int zip_payload_tag(uint32_t seq, int window);

/* How many tags of the 24-bit cycle lie between nbc_tag and the nearest tag of window w, in
 * either direction (0: nbc_tag is in it). */
uint32_t zip_payload_window_distance(int32_t nbc_tag, int window);

#ifdef __cplusplus
}
#endif

#endif
