/*
 * The two seams between the zip collective algorithms and the outside world:
 * a byte transport (the PML in the component, threads and queues in unit tests) and
 * a codec (libzipcodec in the component, a toy codec in unit tests).
 *
 * A block the algorithms never compress ("plain": below the threshold, between two ranks on one
 * node, or longer than max_message) may travel in the caller's own layout: the transport's
 * optional typed operations move it by its opaque handle (for MPI: buffer, count and datatype),
 * so it is neither packed nor copied. A transport that leaves them NULL moves every block as
 * the bytes of its byte view.
 *
 * Plain C so that the Open MPI glue can fill these structs; the algorithms are C++.
 */
#ifndef ZIP_COLL_ALGO_TRANSPORT_H
#define ZIP_COLL_ALGO_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes returned by the algorithms; the glue maps them to OMPI_ERR_*. Transport and
 * codec callbacks return 0 on success and any nonzero value on failure; the algorithms keep
 * the first failing value in the result so the glue can report it. */
enum {
    ZIP_ALGO_OK = 0,
    ZIP_ALGO_ERR_TRANSPORT = -1, /* a send, receive or wait failed */
    ZIP_ALGO_ERR_CODEC = -2,     /* a frame did not decode to the expected length */
    ZIP_ALGO_ERR_NOMEM = -3,
    ZIP_ALGO_ERR_ARG = -4,
    ZIP_ALGO_ERR_LENGTH = -5, /* a plain block arrived with another length than expected */
    ZIP_ALGO_ERR_STATE = -6   /* a temporal frame named a reference this rank does not hold */
};

/* An opaque request handle. After a wait completes it, the transport may overwrite the handle
 * with any value it treats as inactive; the algorithms never touch a completed handle again. */
typedef void *zip_req_t;

typedef struct zip_transport {
    void *ctx;
    int rank;
    int size;
    int (*isend)(void *ctx, const void *buf, size_t len, int peer, int tag, zip_req_t *req);
    int (*irecv)(void *ctx, void *buf, size_t cap, int peer, int tag, zip_req_t *req);
    /* Blocks until *req completes; for a receive stores the received length in *len
     * (len may be NULL for sends). */
    int (*wait)(void *ctx, zip_req_t *req, size_t *len);
    /* Blocks until one of the active handles in reqs[0..n) completes. Stores its index in
     * *index (or n when none is active) and, for a receive, the received length in *len. */
    int (*waitany)(void *ctx, size_t n, zip_req_t *reqs, size_t *index, size_t *len);

    /* Optional, all NULL or all set; zero-initialise what a transport does not provide.
     * isend_plain / irecv_plain: move a plain block in the caller's own layout, given by its
     * handle (zip_block_t.typed); wait/waitany report the received length in bytes.
     * byte_view: sets *bytes to a contiguous byte view of the block behind `typed`, which is
     * about to be coded: its own memory, or a copy that the caller owns (packed now when
     * `sending`; unpacked by the caller after the call when receiving). The algorithms ask only
     * for blocks they may compress, and before they post any transfer. */
    int (*isend_plain)(void *ctx, void *typed, int peer, int tag, zip_req_t *req);
    int (*irecv_plain)(void *ctx, void *typed, int peer, int tag, zip_req_t *req);
    int (*byte_view)(void *ctx, void *typed, int sending, void **bytes);
    /* The longest message of bytes isend/irecv can move (0: no limit); a longer block travels
     * plainly (the PML's int count: INT_MAX). */
    size_t max_message;
    /* Optional (NULL: a blocking transport). Never blocks: if *req has completed, stores 1 in
     * *done, the received length in *len (receives; len may be NULL) and NULL in *req; else
     * stores 0 in *done. With it, the algorithms run as coroutines that suspend instead of
     * waiting (task.hpp), for the non-blocking collectives. */
    int (*test)(void *ctx, zip_req_t *req, int *done, size_t *len);
    /* Optional (NULL: memcpy). Copies n bytes that arrived inside a larger message to where
     * they belong (the scatter-allgather bcast's coalesced steps carry raw blocks packed with
     * frames). A simulator, whose messages carry no bytes, charges the copy's time instead. */
    void (*copy)(void *ctx, void *dst, const void *src, size_t n);
    /* Optional (NULL: nothing to do). Moves what is in flight along without waiting for
     * anything (Open MPI: opal_progress). Called between codec calls that would otherwise leave
     * posted sends idle: over ob1 a large send moves only while the sender calls into MPI. */
    void (*progress)(void *ctx);
} zip_transport_t;

/* Element type hint for the codec; values match zip_elem_type_t in zip/zip.h. */
enum { ZIP_ALGO_BYTES = 0, ZIP_ALGO_F32 = 1, ZIP_ALGO_F64 = 2, ZIP_ALGO_I32 = 3, ZIP_ALGO_I64 = 4 };

typedef struct zip_codec_ops {
    void *ctx;
    /* Compress `bytes` bytes of `elem_type` elements into dst. Must fail (nonzero) rather
     * than write more than dst_cap bytes; the algorithms pass dst_cap < bytes so that a
     * frame is only ever used when it is smaller than the raw data. */
    int (*compress)(void *ctx, int elem_type, const void *src, size_t bytes, void *dst,
                    size_t dst_cap, size_t *frame_len);
    /* Decode a frame into dst; *raw_len receives the decoded length. */
    int (*decompress)(void *ctx, const void *frame, size_t frame_len, void *dst, size_t dst_cap,
                      size_t *raw_len);
    /* Optional (NULL: no inter-step coding), both or neither: compress codes src against `ref`,
     * the previous block of the stream that both ends keep (`bytes` bytes, as src), into a delta
     * frame; decompress_ref decodes any frame, a delta frame against ref (ref_bytes bytes, NULL:
     * none held), failing with zip.h's ZIP_E_STATE when ref is not the sender's reference. */
    int (*compress_delta)(void *ctx, int elem_type, const void *src, size_t bytes, const void *ref,
                          void *dst, size_t dst_cap, size_t *frame_len);
    int (*decompress_ref)(void *ctx, const void *frame, size_t frame_len, const void *ref,
                          size_t ref_bytes, void *dst, size_t dst_cap, size_t *raw_len);
} zip_codec_ops_t;

#ifdef __cplusplus
}
#endif

#endif /* ZIP_COLL_ALGO_TRANSPORT_H */
