/*
 * ompi-zip codec engine: the whole C ABI that the Open MPI glue (and any other C caller) sees.
 *
 * A context (zip_ctx_t) owns one codec configuration, its predictor tables and scratch buffers,
 * and the per-stream state of the temporal codec. It is reused across messages so that the hot
 * path does not allocate after warm-up. A context is not thread-safe: use one per thread (or
 * serialise calls); contexts are independent of each other.
 *
 * Every function returns a zip_status_t; ZIP_OK is 0. zip_ctx_last_error() gives a human
 * readable message for the last failure on that context.
 *
 * Data are compressed into a self-describing frame (docs/format.md). Any frame produced by any
 * codec can be decoded by any context: the frame names its codec and parameters.
 */
#ifndef ZIP_ZIP_H
#define ZIP_ZIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zip_status {
    ZIP_OK = 0,
    ZIP_E_ARG = 1,         /* invalid argument (null pointer, unknown codec spec, ...) */
    ZIP_E_NOMEM = 2,       /* allocation failed or memory cap exceeded */
    ZIP_E_CAPACITY = 3,    /* destination buffer too small */
    ZIP_E_TRUNCATED = 4,   /* frame shorter than its header says */
    ZIP_E_CORRUPT = 5,     /* frame fields inconsistent, or a block does not decode */
    ZIP_E_CHECKSUM = 6,    /* integrity check mismatch */
    ZIP_E_VERSION = 7,     /* frame from an unknown format version */
    ZIP_E_UNSUPPORTED = 8, /* codec or option not available in this build */
    ZIP_E_STATE = 9        /* temporal frame whose reference message this side does not hold */
} zip_status_t;

/* Element type of the payload. Anything that is not IEEE binary32/binary64 is ZIP_TYPE_BYTES. */
typedef enum zip_elem_type {
    ZIP_TYPE_BYTES = 0,
    ZIP_TYPE_F32 = 1,
    ZIP_TYPE_F64 = 2
} zip_elem_type_t;

typedef struct zip_ctx zip_ctx_t;

/* Size of one element of `type` in bytes (1 for ZIP_TYPE_BYTES). */
size_t zip_elem_size(zip_elem_type_t type);

/* Static message for a status code. Never NULL. */
const char *zip_status_str(zip_status_t status);

/*
 * Create a context from a codec spec:
 *   "<lossless>"                      e.g. "fast", "fpc", "fpc:bits=12", "dfcm", "xorlz",
 *                                     "lz4", "zstd", "zstd:level=3", "temporal", "raw"
 *   "<lossy>+<lossless>"             e.g. "trunc:20+fast", "f32+fpc", "abs:1e-6+fast",
 *                                     "rel:1e-4+zstd"
 * The lossy stage applies only to ZIP_TYPE_F64/F32 payloads; bytes pass through it untouched.
 * On failure returns NULL and, if `err` is not NULL, stores a status there; zip_spec_error()
 * gives the reason.
 */
zip_ctx_t *zip_ctx_create(const char *spec, zip_status_t *err);
void zip_ctx_destroy(zip_ctx_t *ctx);

/* Message describing why the last zip_ctx_create() in this thread failed. */
const char *zip_spec_error(void);

/* Message for the last failure on this context ("" if none). */
const char *zip_ctx_last_error(const zip_ctx_t *ctx);

/* Canonical spec of the context, e.g. "trunc:20+fpc:bits=16". */
const char *zip_ctx_spec(const zip_ctx_t *ctx);

/*
 * Block checks (default on): each block carries a 32-bit XXH3 check of its stored bytes, verified
 * before it is decoded. Off, frames still check their header and block table and the decoders
 * still validate every block's structure, but damage inside a block may decode to wrong values;
 * decompression of smooth doubles with `fast` is then about 15% faster. Use it off only where
 * the transport already checks the bytes (TCP, InfiniBand CRC). Decoding follows the frame's own
 * flag, whatever the receiving context's setting.
 */
zip_status_t zip_ctx_set_block_checks(zip_ctx_t *ctx, int enabled);

/* Raw bytes per block (default 65536, rounded to the element size). 0 keeps the default. */
zip_status_t zip_ctx_set_block_size(zip_ctx_t *ctx, size_t block_bytes);

/*
 * Cap on the memory the context may hold (tables, scratch, temporal references), in bytes.
 * Default 64 MiB. Temporal streams beyond the cap are evicted least-recently-used first.
 */
zip_status_t zip_ctx_set_memory_cap(zip_ctx_t *ctx, size_t cap_bytes);
size_t zip_ctx_memory_used(const zip_ctx_t *ctx);

/* Largest frame that compressing `raw_bytes` bytes can produce (any codec, any block size >= 4
 * KiB). */
size_t zip_compress_bound(size_t raw_bytes);

/*
 * Compress `count` elements of `type` at `src` (any alignment) into a frame at `dst`.
 * `stream` names the message stream for the temporal codec (e.g. a hash of communicator, peer
 * and tag); other codecs ignore it. On success *frame_len is the frame size. When compression
 * would not shrink the data the frame stores the data raw (still a valid frame).
 * ZIP_E_CAPACITY if dst_cap < the frame size (dst_cap >= zip_compress_bound() always suffices).
 */
zip_status_t zip_compress(zip_ctx_t *ctx, uint64_t stream, zip_elem_type_t type, const void *src,
                          size_t count, void *dst, size_t dst_cap, size_t *frame_len);

/*
 * Decompress a frame into `dst`, which holds `dst_cap` bytes. On success *raw_len is the number
 * of bytes written. Every field is validated; corrupt or truncated input returns an error and
 * never reads or writes out of bounds (dst may be partly written on error).
 */
zip_status_t zip_decompress(zip_ctx_t *ctx, uint64_t stream, const void *frame, size_t frame_len,
                            void *dst, size_t dst_cap, size_t *raw_len);

/* What a frame header says, validated but without decoding the blocks. */
typedef struct zip_frame_info {
    unsigned version;
    unsigned codec_id;
    zip_elem_type_t type; /* type of the original data */
    uint64_t count;       /* elements of the original data */
    uint64_t raw_bytes;   /* count * element size */
    uint64_t frame_bytes; /* header + block table + blocks */
    uint32_t block_count;
    uint32_t block_raw_bytes;
    int stored_raw; /* nonzero: the frame holds the data uncompressed */
    int lossy;      /* nonzero: the frame was produced by a lossy stage */
} zip_frame_info_t;

zip_status_t zip_frame_inspect(const void *frame, size_t frame_len, zip_frame_info_t *info);

/* Drop the temporal state of one stream (both ends must do it at the same point) or of all. */
void zip_ctx_forget_stream(zip_ctx_t *ctx, uint64_t stream);
void zip_ctx_forget_all(zip_ctx_t *ctx);

/* Names of the available codecs, comma separated (e.g. for help text). */
const char *zip_codec_list(void);

#ifdef __cplusplus
}
#endif

#endif /* ZIP_ZIP_H */
