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

/*
 * Element type of the payload: IEEE binary32/binary64, or 32/64-bit integers (signed or not:
 * the codecs see bit patterns, which the type's width tells them how to group). Anything else is
 * ZIP_TYPE_BYTES. Lossy stages apply to the floating-point types only; integers, like bytes,
 * always travel exactly.
 */
typedef enum zip_elem_type {
    ZIP_TYPE_BYTES = 0,
    ZIP_TYPE_F32 = 1,
    ZIP_TYPE_F64 = 2,
    ZIP_TYPE_I32 = 3,
    ZIP_TYPE_I64 = 4
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
 * Threads that code one frame (default 1, at most 64): the blocks of a message of 128 KiB or
 * more are compressed and decompressed on this many threads (the caller's and threads - 1 that
 * the context starts and keeps; they poll for 50 us after each call, then sleep), each with its
 * own codec state. The caller never waits for a sleeping thread: below 2 MiB it wakes none and
 * codes alone unless its last call ended within 50 us (the threads still poll then), and a
 * thread that wakes after the caller has taken every block stays out of the call. Frames
 * decode with any setting. With more than one thread every block is
 * tried, so a frame can differ from the single-thread one (which skips most blocks after a run
 * of incompressible ones) in which blocks are stored raw, never in what it decodes to; it is
 * the same for every thread count above one. ZIP_E_ARG outside 1..64, ZIP_E_NOMEM if the
 * threads cannot be started.
 */
zip_status_t zip_ctx_set_threads(zip_ctx_t *ctx, unsigned threads);

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

/*
 * Inter-step coding against a reference the caller keeps (both ends of a stream hold the same
 * previous message, as coll/zip's Alltoallv does per peer): zip_compress_delta codes
 * src XOR ref (ref holds count elements of `type`, as src) into a temporal delta frame that
 * names ref by its check (docs/format.md, "Temporal frames"). The context's codec must be
 * lossless (ZIP_E_ARG otherwise: a receiver's copy of the reference is what it decoded); its
 * own temporal streams are not touched, and `stream` is not needed.
 * zip_decompress_ref decodes any frame; a delta frame is decoded against ref (ref_bytes bytes,
 * NULL: none held) and is ZIP_E_STATE, with nothing decoded, when ref is missing, of another size,
 * or not the reference the sender used. ref must not overlap dst.
 */
zip_status_t zip_compress_delta(zip_ctx_t *ctx, zip_elem_type_t type, const void *src, size_t count,
                                const void *ref, void *dst, size_t dst_cap, size_t *frame_len);
zip_status_t zip_decompress_ref(zip_ctx_t *ctx, const void *frame, size_t frame_len,
                                const void *ref, size_t ref_bytes, void *dst, size_t dst_cap,
                                size_t *raw_len);

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

/* ---- Speed-aware policy: send a payload compressed or raw ----
 *
 * One cost model for every decision site (docs/design.md, "The cost model"). With B raw bytes,
 * ratio R = raw / compressed, codec speeds Cc, Cd (raw bytes per second through compressor and
 * decompressor) and the bandwidth L the transfer gets on the wire (after sharing a NIC):
 *   raw                       B / L
 *   compressed, one shot      B / Cc + B / (R L) + B / Cd      (compress, send, decompress)
 *   compressed, pipelined     max(B / Cc, B / (R L), B / Cd)   (segments overlap the stages)
 *   compressed, exchange      max(B / Cc + B / Cd, B / (R L))  (pipelined, but each rank
 *                             compresses what it sends and decompresses what it receives on
 *                             its one core: alltoall(v))
 *   compressed, fan-in        c/k + max(B / (R L), d - d/k) + d/k, c = B / Cc, d = B / Cd
 *                             (k senders compress a block each at once, then one receiver's
 *                             link and decoder serve them in turn, the last block's decoding
 *                             after its arrival: gather(v))
 *   compressed, fan-out       c/k + max(c - c/k, B / (R L)) + d/k  (one sender compresses k
 *                             blocks one after the other while its link sends the ones before,
 *                             each receiver decodes its own: scatter(v))
 *                             k: zip_speeds_t's ends (below 1: 1, where both are one shot)
 * A payload is compressed when the compressed time is below ZIP_POLICY_MARGIN times the raw
 * time. Before a sample gives R, ZIP_POLICY_RATIO_CAP stands in for it: if even that ratio
 * cannot pay, the link is faster than the codec and no sample is taken.
 */
#define ZIP_POLICY_MARGIN 0.9
#define ZIP_POLICY_RATIO_CAP 8.0

typedef enum zip_policy_mode {
    ZIP_POLICY_AUTO = 0,   /* the cost model decides */
    ZIP_POLICY_ALWAYS = 1, /* compress whenever the data shrink (size threshold still applies) */
    ZIP_POLICY_NEVER = 2,  /* always raw */
    ZIP_POLICY_OBSERVE = 3 /* decide as AUTO and count what it would save, but send raw */
} zip_policy_mode_t;

/* Parses "auto", "always", "never", "observe"; -1 for anything else. */
int zip_policy_mode_parse(const char *name);
const char *zip_policy_mode_name(zip_policy_mode_t mode);

typedef enum zip_transfer_shape {
    ZIP_TRANSFER_ONE_SHOT = 0,  /* compress, send, decompress one after the other */
    ZIP_TRANSFER_PIPELINED = 1, /* segments: the three stages overlap */
    ZIP_TRANSFER_EXCHANGE = 2,  /* pipelined, both codec stages on one core (alltoall(v)) */
    ZIP_TRANSFER_FAN_IN = 3,    /* senders compress at once into one receiver (gather(v)) */
    ZIP_TRANSFER_FAN_OUT = 4    /* one sender to receivers that decode at once (scatter(v)) */
} zip_transfer_shape_t;

typedef enum zip_verdict {
    ZIP_VERDICT_COMPRESS = 0,
    ZIP_VERDICT_TOO_SMALL = 1,      /* below the size threshold */
    ZIP_VERDICT_INCOMPRESSIBLE = 2, /* the sample did not shrink enough to pay */
    ZIP_VERDICT_LINK_FASTER = 3,    /* the link is faster than the codec could ever help */
    ZIP_VERDICT_NEVER = 4,          /* policy "never" */
    ZIP_VERDICT_UNAGREED = 5        /* no speeds to decide with yet (coll/zip: a non-blocking
                                       call before its communicator's ranks agreed on them) */
} zip_verdict_t;
#define ZIP_VERDICT_COUNT 6
const char *zip_verdict_name(zip_verdict_t verdict);

typedef struct zip_speeds {
    double compress_Bps;   /* raw bytes per second through the compressor */
    double decompress_Bps; /* raw bytes per second out of the decompressor */
    double link_Bps;       /* bytes per second this transfer gets on the wire; 0: unknown */
    int ends; /* fan-in, fan-out: the ranks at the other end of the root's link, each coding
                 its own block at once (a gather's senders, a scatter's receivers); exchange:
                 the blocks a rank codes in turn where they are few (a halo's remote
                 neighbours), 0: many (alltoall(v)); else 0 */
} zip_speeds_t;

/* Predicted seconds. An unknown link (0) is taken as infinitely fast. */
double zip_policy_time_raw(const zip_speeds_t *s, size_t bytes);
double zip_policy_time_compressed(const zip_speeds_t *s, size_t bytes, double ratio,
                                  zip_transfer_shape_t shape);

/*
 * The decision. ratio: raw / compressed of a sample, or 0 before any sample (then the link
 * test alone: ZIP_VERDICT_LINK_FASTER or ZIP_VERDICT_COMPRESS meaning "worth a sample").
 * OBSERVE decides as AUTO (the caller sends raw and counts). ALWAYS compresses any payload at
 * or above the threshold whose sample shrinks by a tenth (ratio >= 1 / ZIP_POLICY_MARGIN), or
 * with no sample yet.
 */
zip_verdict_t zip_policy_decide(zip_policy_mode_t mode, const zip_speeds_t *s, size_t bytes,
                                size_t threshold, double ratio, zip_transfer_shape_t shape);

/*
 * Running estimates of this process's codec speeds and of the link per peer class (0: same
 * node, 1: other node), from what zip observes. Thread-safe. Codec speeds are smoothed
 * (exponential average); a link estimate is the fastest recent observation, decaying slowly,
 * because waiting for a late receiver makes single observations too slow, never too fast.
 */
typedef struct zip_estimator zip_estimator_t;
enum { ZIP_PEER_LOCAL = 0, ZIP_PEER_REMOTE = 1 };

zip_estimator_t *zip_estimator_create(void);
void zip_estimator_destroy(zip_estimator_t *e);
void zip_estimator_observe_codec(zip_estimator_t *e, int decompress, size_t raw_bytes,
                                 double seconds);
/* bytes moved in seconds by one of `sharing` transfers that shared the NIC at the time. */
void zip_estimator_observe_link(zip_estimator_t *e, int peer_class, size_t bytes, double seconds,
                                int sharing);
/* Forgets peer_class's link rate (not a fixed one): the next observation sets it, even if slower.
 * For a caller that learns a better kind of observation (a sender's completion times are too
 * fast where the transport buffers; a receiver's arrival times are not). */
void zip_estimator_reset_link(zip_estimator_t *e, int peer_class);
/* A link rate fixed by the user (bytes per second): observations no longer change it. */
void zip_estimator_fix_link(zip_estimator_t *e, int peer_class, double Bps);
/* Speeds for a transfer to peer_class sharing the NIC with `sharing` - 1 others. */
zip_speeds_t zip_estimator_speeds(const zip_estimator_t *e, int peer_class, int sharing);

/*
 * A link's rate from timed arrivals of several sizes. A transport can move a fixed part of each
 * payload before the receiver starts the clock (ob1 over TCP sends a rendezvous payload's first
 * 64 KiB with its header, before the receive is posted): then bytes / seconds overstates the
 * rate, by 25-30 % at 256 KiB on a 1 Gbit/s link; latency understates it. Both are a fixed part
 * of every arrival's time: seconds = fixed + bytes / rate. Per size class (powers of two from
 * 128 KiB) the fastest of its recent arrivals is kept; once the smallest class seen lately and
 * another at least twice its size have one, the line through the two gives the fixed part, and
 * each arrival's rate is its bytes over its time without it (the time at most halved or
 * doubled). Each arrival still gives its own rate, so a size that moves slower per byte (large
 * copies on shared memory) does not slow the others. Plain data, no lock: the caller
 * serialises.
 */
#define ZIP_LINK_FIT_CLASSES 16
typedef struct {
    double bytes; /* the kept arrival of the class, 0: none */
    double seconds;
    uint32_t age;  /* arrivals in the class since the kept one */
    uint32_t last; /* the fit's arrival count at the class's latest arrival */
} zip_link_fit_class_t;
typedef struct {
    zip_link_fit_class_t cls[ZIP_LINK_FIT_CLASSES];
    uint32_t arrivals;
} zip_link_fit_t;

/* Records an arrival of bytes in seconds and returns its rate (bytes per second): without the
 * fixed part when *fitted is set to 1, else bytes / seconds (0 for an arrival that cannot be
 * timed: no bytes or no time). */
double zip_link_fit_observe(zip_link_fit_t *f, size_t bytes, double seconds, int *fitted);

/* Measures ctx's compress and decompress speed on a synthetic smooth field of doubles
 * (about a millisecond), e.g. to seed an estimator. */
zip_status_t zip_calibrate(zip_ctx_t *ctx, double *compress_Bps, double *decompress_Bps);

/*
 * Working memory that leaves the application's heap as it was. glibc raises its mmap threshold
 * to the size of any mapped chunk that is freed (up to 32 MiB), so one transient buffer of zip's
 * moves the application's later allocations of that size from fresh mappings to the heap, and
 * the heap's top may then be trimmed and faulted in again on every step (CoMD under zip: its
 * four 1.4 MB halo buffers per exchange, 0.5 s of page faults a rank in a 5 s run). From
 * ZIP_MEM_MAPPED_FROM bytes these map pages of their own and unmap them; below, malloc and free.
 * From 2 MiB the pages start on a huge page's boundary and are advised to be huge pages (a fresh
 * 4 KiB page faulted in at 11 us on the project's VM). zip_mem_free takes the size zip_mem_alloc
 * was given. NULL when memory is short.
 */
#define ZIP_MEM_MAPPED_FROM ((size_t)64 << 10)
void *zip_mem_alloc(size_t bytes);
void zip_mem_free(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* ZIP_ZIP_H */
