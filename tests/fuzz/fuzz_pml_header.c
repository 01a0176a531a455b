/*
 * libFuzzer target for pml/zip's first-message parser (ucx-hooks/pml_zip_header.c), the only
 * code of pml/zip that reads zip's own bytes from the network (the first message, and the stream
 * prefix of a temporal stream message's payload). Besides memory safety it checks
 * that whatever parses is canonical: writing the parsed fields back gives the same bytes, and
 * the shape is the one the byte count alone gives.
 */
#include <stdlib.h>
#include <string.h>

#include "pml_zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The stream prefix in front of a stream message's payload: canonical too. */
    uint32_t cseq;
    int keep;
    if (mca_pml_zip_stream_prefix_parse(data, size, &cseq, &keep)) {
        unsigned char prefix[MCA_PML_ZIP_STREAM_PREFIX_BYTES];
        mca_pml_zip_stream_prefix_write(prefix, cseq, keep);
        if (0 != memcmp(prefix, data, sizeof(prefix))) {
            abort();
        }
    }
    mca_pml_zip_head_t head;
    if (!mca_pml_zip_head_parse(data, size, &head)) {
        return 0;
    }
    if (head.shape != mca_pml_zip_shape_of(size)) {
        abort();
    }
    if (ZIP_SHAPE_BARE == head.shape) {
        /* No header: nothing was read, the count is the message's. */
        if (head.raw_bytes != size || MCA_PML_ZIP_ENVELOPE_BYTES == size) {
            abort();
        }
        return 0;
    }
    unsigned char again[MCA_PML_ZIP_ENVELOPE_BYTES];
    mca_pml_zip_envelope_write(again, head.seq, head.flags, head.raw_bytes, head.link_hint);
    if (0 != memcmp(again, data, MCA_PML_ZIP_ENVELOPE_BYTES)) {
        abort();
    }
    /* A payload tag is never an application tag, nor one of Open MPI's fixed internal ones. */
    const int ptag = mca_pml_zip_payload_tag(head.seq, head.flags);
    if (ptag >= -31080 || ptag < -(1 << 23)) {
        abort();
    }
    return 0;
}
