/*
 * The first-message shapes of pml/zip (see pml_zip.h): the 14-byte envelope, and the bare
 * message, which has no header. The only code that reads zip's own bytes from the network;
 * fuzzed by tests/fuzz/fuzz_pml_header.c.
 *
 *   envelope u8 'Z' | u8 flags | u32 seq | u64 length: with flag HINT, raw_bytes (low 48
 *            bits) and link hint (high 16 bits); without it, raw_bytes. With flag TEMPORAL the
 *            payload starts with the stream prefix: u8 'T' | u8 flags | u16 0 | u32 cseq.
 *            Flag WINDOW: the payload's tag is in the second of two windows (payload_tags.h)
 *   (host byte order: Open MPI 4.1's PMLs do not convert MPI_BYTE either, so peers share one
 *   byte order)
 *
 * The link hint is the sender's measured rate to other nodes (mca_pml_zip_link_hint), 0 when it
 * has none: a process that only sends large messages times nothing but its own send
 * completions, which run ahead of the wire where the transport buffers; its peers' replies,
 * however small, bring it the rate they timed (a reply that is due to carry one goes as an
 * envelope, mca_pml_zip_hint_due).
 */
#include "ompi_config.h"

#include <string.h>

#include "payload_tags.h"
#include "pml_zip.h"

#define ZIP_ENVELOPE_MAGIC 0x5a

mca_pml_zip_shape_t mca_pml_zip_shape_of(size_t count)
{
    return MCA_PML_ZIP_ENVELOPE_BYTES == count ? ZIP_SHAPE_ENVELOPE : ZIP_SHAPE_BARE;
}

#define ZIP_LENGTH_BITS 48
#define ZIP_LENGTH_MASK ((UINT64_C(1) << ZIP_LENGTH_BITS) - 1)

static uint64_t length_with_hint(uint64_t raw_bytes, uint16_t link_hint)
{
    return raw_bytes | ((uint64_t)link_hint << ZIP_LENGTH_BITS);
}

void mca_pml_zip_envelope_write(void *dst, uint32_t seq, uint32_t flags, uint64_t raw_bytes,
                                uint16_t link_hint)
{
    uint64_t length = raw_bytes;
    if (0 != link_hint && raw_bytes <= ZIP_LENGTH_MASK) {
        flags |= MCA_PML_ZIP_ENV_HINT;
        length = length_with_hint(raw_bytes, link_hint);
    }
    unsigned char *p = dst;
    p[0] = ZIP_ENVELOPE_MAGIC;
    p[1] = (unsigned char)flags;
    memcpy(p + 2, &seq, 4);
    memcpy(p + 6, &length, 8);
}

bool mca_pml_zip_head_parse(const void *src, size_t len, mca_pml_zip_head_t *head)
{
    const unsigned char *p = src;
    memset(head, 0, sizeof(*head));
    switch (mca_pml_zip_shape_of(len)) {
    case ZIP_SHAPE_BARE:
        head->shape = ZIP_SHAPE_BARE;
        head->raw_bytes = len;
        return true;
    case ZIP_SHAPE_ENVELOPE:
        if (ZIP_ENVELOPE_MAGIC != p[0] ||
            0 != (p[1] & ~(MCA_PML_ZIP_ENV_FRAME | MCA_PML_ZIP_ENV_HINT | MCA_PML_ZIP_ENV_TEMPORAL |
                           MCA_PML_ZIP_ENV_WINDOW))) {
            return false;
        }
        head->flags = p[1];
        memcpy(&head->seq, p + 2, 4);
        memcpy(&head->raw_bytes, p + 6, 8);
        if (head->flags & MCA_PML_ZIP_ENV_HINT) {
            head->link_hint = (uint16_t)(head->raw_bytes >> ZIP_LENGTH_BITS);
            head->raw_bytes &= ZIP_LENGTH_MASK;
            if (0 == head->link_hint) {
                return false; /* a writer sets the flag only with a hint */
            }
        }
        /* A frame is never longer than its data; an empty message is never a frame, nor a
         * stream message. */
        if ((head->flags & (MCA_PML_ZIP_ENV_FRAME | MCA_PML_ZIP_ENV_TEMPORAL)) &&
            0 == head->raw_bytes) {
            return false;
        }
        head->shape = ZIP_SHAPE_ENVELOPE;
        return true;
    default:
        return false;
    }
}

#define ZIP_STREAM_MAGIC 0x54 /* 'T' */

void mca_pml_zip_stream_prefix_write(void *dst, uint32_t cseq, int keep)
{
    unsigned char *p = dst;
    p[0] = ZIP_STREAM_MAGIC;
    p[1] = keep ? MCA_PML_ZIP_STREAM_KEEP : 0;
    p[2] = p[3] = 0;
    memcpy(p + 4, &cseq, 4);
}

bool mca_pml_zip_stream_prefix_parse(const void *src, size_t len, uint32_t *cseq, int *keep)
{
    const unsigned char *p = src;
    if (len < MCA_PML_ZIP_STREAM_PREFIX_BYTES || ZIP_STREAM_MAGIC != p[0] ||
        0 != (p[1] & ~MCA_PML_ZIP_STREAM_KEEP) || 0 != p[2] || 0 != p[3]) {
        return false;
    }
    *keep = p[1] & MCA_PML_ZIP_STREAM_KEEP;
    memcpy(cseq, p + 4, 4);
    return true;
}

int mca_pml_zip_payload_tag(uint32_t seq, uint32_t flags)
{
    return zip_payload_tag(seq, (flags & MCA_PML_ZIP_ENV_WINDOW) ? 1 : 0);
}

void mca_pml_zip_status_out(ompi_status_public_t *dst, int source, int tag, size_t count,
                            int cancelled)
{
    if (MPI_STATUS_IGNORE == dst) {
        return;
    }
    dst->MPI_SOURCE = source;
    dst->MPI_TAG = tag;
    dst->_ucount = count;
    dst->_cancelled = cancelled;
}
