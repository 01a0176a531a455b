/*
 * pml/zip: an interposer in front of the PML that Open MPI selected (ucx, ob1, ...). It
 * compresses application point-to-point payloads of MPI_FLOAT/MPI_DOUBLE class and forwards
 * everything else to the wrapped PML unchanged. See docs/p2p.md for the wire format and the
 * rules both ends follow.
 */
#ifndef MCA_PML_ZIP_H
#define MCA_PML_ZIP_H

#include "ompi_config.h"

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/message/message.h"
#include "ompi/request/request.h"
#include "opal/threads/mutex.h"

#include "zip/zip.h"
#include "zip_ompi.h"

BEGIN_C_DECLS

/* Per-process counters, updated atomically (completions run on any thread). */
typedef struct mca_pml_zip_stats_t {
    uint64_t msgs_sent;       /* messages that went out with a zip header */
    uint64_t msgs_compressed; /* of those, carried a compressed frame */
    uint64_t bytes_raw;       /* application bytes of those messages */
    uint64_t bytes_wire;      /* bytes handed to the wrapped PML for them */
    uint64_t msgs_received;   /* messages decoded on the receive side */
    uint64_t probes_peeked;   /* messages pulled out of the wrapped PML before their receive */
    /* float/double messages on enabled communicators, by what the policy decided */
    uint64_t verdicts[ZIP_VERDICT_COUNT];
    /* of the raw ones, those to another node before its link was timed (the policy says
     * ZIP_VERDICT_LINK_FASTER for them; counted here instead, not there) */
    uint64_t link_unknown;
    /* policy "observe": messages that would have been compressed, and the time the cost
     * model predicts compression would have saved on them */
    uint64_t observed_compressible;
    uint64_t observed_saving_ns;
    /* the same two by message size (zip_ompi_size_class) */
    uint64_t observed_compressible_by_size[ZIP_OMPI_SIZE_CLASSES];
    uint64_t observed_saving_ns_by_size[ZIP_OMPI_SIZE_CLASSES];
} mca_pml_zip_stats_t;

typedef struct mca_pml_zip_component_t {
    mca_pml_base_component_2_0_0_t super;

    /* MCA parameters */
    int enable; /* compress on every communicator (the Info key overrides per comm) */
    char *codec;
    size_t threshold;
    size_t bare_max;   /* largest raw payload sent as a bare message */
    int codec_threads; /* threads that code one frame (zip_ctx_set_threads) */
    int verbose;
    int stats;
    bool force_local;        /* compress to peers on the same node too */
    bool version_check;      /* stay out under another Open MPI release than the one built for */
    bool release_ok;         /* built for this Open MPI release, or version_check off */
    bool direct_recv;        /* pml_zip_direct_recv (pml_zip_direct.c) */
    char *policy_name;       /* pml_zip_policy */
    int policy;              /* its zip_policy_mode_t */
    double link_gbps_remote; /* 0: measured */
    char *temporal_name;     /* pml_zip_temporal */
    int temporal;            /* 1: auto, 0: off */
    size_t temporal_memory;  /* pml_zip_temporal_memory */
    bool gpu_guard;          /* pml_zip_gpu_guard */
    const char *gpu_runtime; /* the GPU driver runtime loaded in this process, or NULL */

    int output;
    bool active; /* our table is installed in mca_pml */
    mca_pml_zip_stats_t counters;
} mca_pml_zip_component_t;

OMPI_MODULE_DECLSPEC extern mca_pml_zip_component_t mca_pml_zip_component;

/* The PML we stand in front of, saved when we install ourselves. */
extern mca_pml_base_component_t mca_pml_zip_wrapped_component;
extern mca_pml_base_module_t mca_pml_zip_wrapped;
extern mca_pml_base_module_t mca_pml_zip_module;

/* Name of the per-communicator MPI_Info key ("true"/"false"). */
#define MCA_PML_ZIP_INFO_KEY "zip_p2p"
/* Per-communicator policy (auto, always, never, observe), shared with coll/zip. */
#define MCA_PML_ZIP_POLICY_KEY "zip_policy"
/* Per-communicator pml_zip_temporal (off, auto). */
#define MCA_PML_ZIP_TEMPORAL_KEY "zip_p2p_temporal"

/* ---- pml_zip_policy.c: which traffic is ours ---- */

/* Whether the sender may compress on comm (MCA parameter, or the communicator's Info key).
 * Only the sender asks: the framing itself never depends on it. */
bool mca_pml_zip_comm_enabled(ompi_communicator_t *comm);
/* Per-communicator settings, indexed by context id (pml_zip_policy.c): from the Info keys, -1
 * unset (the MCA parameter decides), else the value (zip_p2p: 0 off, 1 on; zip_policy: a
 * zip_policy_mode_t; zip_p2p_temporal: 0 off, 1 auto), and `untouched`, 1 where a member has a
 * GPU runtime (pml_zip_gpu.c). Written when a communicator is made or a key changes (rare),
 * read on every message, so the hot path never searches an MPI_Info. */
typedef struct {
    int8_t enable;
    int8_t policy;
    int8_t temporal;
    int8_t untouched;
} mca_pml_zip_comm_setting_t;
extern mca_pml_zip_comm_setting_t *mca_pml_zip_comm_settings;
extern uint32_t mca_pml_zip_comm_settings_len;

/* ZIP_PEER_LOCAL or ZIP_PEER_REMOTE (force_local makes every peer remote). */
int mca_pml_zip_peer_class(ompi_communicator_t *comm, int dst);
/* The policy on comm: the Info key zip_policy, else pml_zip_policy. */
zip_policy_mode_t mca_pml_zip_comm_policy(ompi_communicator_t *comm);
/* Whether the sender codes streams on comm: the Info key zip_p2p_temporal, else
 * pml_zip_temporal. */
bool mca_pml_zip_comm_temporal(ompi_communicator_t *comm);
/* This process's codec and link estimates (created and calibrated on first use). */
zip_estimator_t *mca_pml_zip_estimator(void);
/* Whether this process has a link rate to peer_class, without creating the estimator (which
 * calibrates the codec): a job that never compresses need not pay for that. */
bool mca_pml_zip_link_known(int peer_class);
/* Counts a received message (only with pml_zip_stats: the counters are read nowhere else). */
static inline void mca_pml_zip_count_received(void)
{
    if (mca_pml_zip_component.stats) {
        opal_atomic_add_fetch_64((volatile int64_t *)&mca_pml_zip_component.counters.msgs_received,
                                 1);
    }
}
/* Seconds on a monotonic clock. */
double mca_pml_zip_now(void);
int mca_pml_zip_add_comm(ompi_communicator_t *comm);
int mca_pml_zip_del_comm(ompi_communicator_t *comm);
/* After the parameters are read: a rate given by pml_zip_link_gbps_remote is this process's
 * link hint from the first message on. */
void mca_pml_zip_policy_init(void);
void mca_pml_zip_policy_fini(void);

/* ---- pml_zip_header.c: the framing every application message carries ---- */

/*
 * Every message with an application tag (>= 0), on every communicator, whatever its datatype,
 * travels in one of two shapes, told apart by the wrapped PML's byte count alone, so that a
 * probe learns the shape without receiving anything:
 *
 *   ENVELOPE (count == 14): the message's description; its payload (raw, or a zip frame)
 *            follows as a second message on a private negative tag derived from seq and the
 *            window flag (common/payload_tags.h), sent in
 *            the application's send mode (so an MPI_Ssend completes when the payload is
 *            received, never when a probe reads the envelope).
 *   BARE     (any other count): the application's bytes, raw, nothing else: the message as
 *            the wrapped PML would have sent it without zip. Raw payloads up to
 *            pml_zip_bare_max (to a node mate without force_local: of any size) that are not
 *            sent in synchronous mode, are not 14 bytes long and do not carry a link hint
 *            (mca_pml_zip_hint_due).
 *
 * seq numbers the messages a process sends (all peers, all communicators); it names an
 * envelope's payload tag. Probes keep MPI's order without it (pml_zip_stash.c).
 */
#define MCA_PML_ZIP_ENVELOPE_BYTES 14
/* The longest first message zip itself sends (an envelope). A receive with at least this much
 * room in one contiguous piece is posted straight into the application's buffer, as stock
 * MPI's is (a bare message lands where it belongs; an envelope's bytes are put back); a
 * smaller or non-contiguous one into a landing buffer. */
#define MCA_PML_ZIP_LANDING_BYTES MCA_PML_ZIP_ENVELOPE_BYTES
/* Receives of at most this many bytes that do not land in place land in a stage of this size
 * (one datatype, made once); under MPI_THREAD_MULTIPLE, every receive this small does
 * (pml_zip_landing.c says why). */
#define MCA_PML_ZIP_SMALL_STAGE_BYTES 4096

enum {
    MCA_PML_ZIP_ENV_FRAME = 1,    /* payload is a zip frame, not the raw bytes */
    MCA_PML_ZIP_ENV_HINT = 2,     /* the length's top 16 bits are a link hint */
    MCA_PML_ZIP_ENV_TEMPORAL = 4, /* a stream message: the payload starts with a stream prefix */
    MCA_PML_ZIP_ENV_WINDOW = 8    /* the payload's tag is in the second window (payload_tags.h) */
};

/*
 * The stream prefix (8 bytes) in front of the payload of a temporal stream message
 * (pml_zip_temporal.c, docs/p2p.md "Temporal streams"):
 *   u8 'T' | u8 flags (1: keep) | u16 0 | u32 cseq (the message's number on its channel)
 * It travels with the payload rather than the envelope so that the envelope keeps its 14 bytes
 * (the shape is told by the byte count alone) and headers without flag 4 read as before.
 */
#define MCA_PML_ZIP_STREAM_PREFIX_BYTES 8
enum { MCA_PML_ZIP_STREAM_KEEP = 1 };
void mca_pml_zip_stream_prefix_write(void *dst, uint32_t cseq, int keep);
/* False unless the first len bytes at src start with a well-formed stream prefix. */
bool mca_pml_zip_stream_prefix_parse(const void *src, size_t len, uint32_t *cseq, int *keep);

typedef enum {
    ZIP_SHAPE_INVALID = 0,
    /* Not a wire shape: what a stash entry or a receive holds when the application's bytes are
     * already here (a bare message pulled with its envelope's peers, a message that did not
     * parse as zip's, a stream message's decoded data). */
    ZIP_SHAPE_HELD,
    ZIP_SHAPE_ENVELOPE,
    ZIP_SHAPE_BARE
} mca_pml_zip_shape_t;

/* What the first message of an application message says. */
typedef struct mca_pml_zip_head_t {
    mca_pml_zip_shape_t shape;
    uint32_t seq;
    uint32_t flags;     /* envelope: MCA_PML_ZIP_ENV_* */
    uint64_t raw_bytes; /* the application's bytes: what MPI_Get_count reports */
    uint16_t link_hint; /* the sender's rate to other nodes (mca_pml_zip_link_hint), 0: none */
} mca_pml_zip_head_t;

/* The shape a received or probed message of `count` bytes has (no byte read). */
mca_pml_zip_shape_t mca_pml_zip_shape_of(size_t count);
void mca_pml_zip_envelope_write(void *dst, uint32_t seq, uint32_t flags, uint64_t raw_bytes,
                                uint16_t link_hint);
/* Parses the first message (len bytes at src; a bare message's are not read); false if it is
 * not a well-formed zip message. */
bool mca_pml_zip_head_parse(const void *src, size_t len, mca_pml_zip_head_t *head);
/* The private tag of the payload that follows envelope seq with `flags` (negative: never an
 * app tag; in the window MCA_PML_ZIP_ENV_WINDOW names). */
int mca_pml_zip_payload_tag(uint32_t seq, uint32_t flags);

/* ---- pml_zip_landing.c: a first message received in the application's buffer ---- */

void mca_pml_zip_landing_init(void);
void mca_pml_zip_landing_fini(void);
/* A stage is a landing buffer for a receive not made in place; it takes a first message of up
 * to `bytes` and truncates a longer one without writing past its end. Allocate
 * mca_pml_zip_stage_alloc_bytes(bytes) for it; mca_pml_zip_first_arrived reads it. */
#define MCA_PML_ZIP_STAGE_GAP 8 /* bytes between the two halves of a gapped stage */
size_t mca_pml_zip_stage_alloc_bytes(size_t bytes);
int mca_pml_zip_stage_irecv(void *stage, size_t bytes, int src, int tag, ompi_communicator_t *comm,
                            ompi_request_t **request);
/* The same, posted inactive (the wrapped PML's irecv_init), for a receive that must have its
 * completion callback in place before it can complete. */
int mca_pml_zip_stage_irecv_init(void *stage, size_t bytes, int src, int tag,
                                 ompi_communicator_t *comm, ompi_request_t **request);
int mca_pml_zip_stage_recv(void *stage, size_t bytes, int src, int tag, ompi_communicator_t *comm,
                           ompi_status_public_t *status);
/* The start of the application's buffer if it is one contiguous piece of at least
 * MCA_PML_ZIP_LANDING_BYTES (then the first message is received there), else NULL. Under
 * MPI_THREAD_MULTIPLE, NULL for MCA_PML_ZIP_SMALL_STAGE_BYTES or less. */
char *mca_pml_zip_landing_base(void *buf, size_t count, ompi_datatype_t *dtype);
/* The stage a receive of cap bytes lands in when it does not land in place. */
size_t mca_pml_zip_landing_stage_bytes(size_t cap);
/* A message of n bytes that is not an envelope arrived in a stage of stage_bytes: its bytes, put
 * together at the stage's start (mca_pml_zip_first_arrived without reading a head). */
const char *mca_pml_zip_stage_bytes_of(void *stage, size_t stage_bytes, size_t n);
/* A first message of n bytes arrived: in the application's buffer at base (stage then holds what
 * the buffer's first MCA_PML_ZIP_LANDING_BYTES were; its head is read from copy, the bytes as
 * they were delivered, where one was taken: mca_pml_zip_first_copy_t), or in a stage of
 * stage_bytes (base NULL). Reads its head (*framed false: not from a zip sender, head says n raw
 * bytes). An envelope's bytes are read; for any other message, returns where its application
 * bytes are to be copied from, or NULL when they are in place already. */
const char *mca_pml_zip_first_arrived(char *base, void *stage, size_t stage_bytes,
                                      const unsigned char *copy, size_t n, mca_pml_zip_head_t *head,
                                      bool *framed);

/* The first MCA_PML_ZIP_ENVELOPE_BYTES a receive posted in place delivered, copied by a
 * completion callback on the wrapped request when the message arrives. Read back from the
 * application's buffer later, they could be another receive's: active receives that share a
 * buffer (erroneous, but found in benchmarks and test suites) would then both take one envelope
 * and wait for the same payload for ever. Where the callback is attached after the request
 * completed, the copy is taken at once. */
typedef struct mca_pml_zip_first_copy_t {
    const char *at; /* the application's buffer */
    unsigned char bytes[MCA_PML_ZIP_ENVELOPE_BYTES];
    volatile int32_t taken; /* bytes holds a 14-byte first message */
} mca_pml_zip_first_copy_t;
void mca_pml_zip_first_copy_attach(ompi_request_t *inner, mca_pml_zip_first_copy_t *fc,
                                   const char *at);
/* After the request completed, before it is freed: takes the callback off if the wrapped PML's
 * completion missed it (attached while the request was completing), taking the copy then. */
void mca_pml_zip_first_copy_settle(ompi_request_t *inner, mca_pml_zip_first_copy_t *fc);
/* The copy, or NULL (none taken: the message was not 14 bytes, or failed). */
const unsigned char *mca_pml_zip_first_copy_get(const mca_pml_zip_first_copy_t *fc);

/* ---- pml_zip_wire.c: payload encoding and decoding ---- */

/*
 * The first message of a send and what follows it. BARE (bare): the application's (pbuf,
 * pcount, ptype), or buf (buffered mode's copy). SPLIT: env holds the envelope; the payload is
 * either buf (a frame, or a copy for buffered mode) as MPI_BYTE, or the application's own (pbuf,
 * pcount, ptype) without a copy.
 */
typedef struct mca_pml_zip_out_t {
    bool split;
    unsigned char env[MCA_PML_ZIP_ENVELOPE_BYTES];
    void *buf; /* owned */
    size_t len;
    const void *pbuf;
    size_t pcount;
    ompi_datatype_t *ptype;
    uint32_t seq;
    int peer_class; /* float/double data the policy looked at: the class it used, else -1 */
    bool temporal;  /* a stream message: never cancelled (its successors may refer to it) */
    bool bare;      /* a bare message: the data alone on the application's tag */
} mca_pml_zip_out_t;

/* Writes out->env, the envelope of split message out->seq on comm: `flags`, the payload's tag
 * window (the one farther from the tag comm's non-blocking collectives stand at,
 * payload_tags.h) and this process's link hint. */
void mca_pml_zip_envelope_out(mca_pml_zip_out_t *out, const ompi_communicator_t *comm,
                              uint32_t flags, uint64_t raw_bytes);
/* own_copy: the payload must not reference the application's buffer (buffered mode). */
int mca_pml_zip_encode(const void *buf, size_t count, ompi_datatype_t *dtype,
                       mca_pml_base_send_mode_t mode, ompi_communicator_t *comm, int dst, int tag,
                       bool own_copy, mca_pml_zip_out_t *out);
void mca_pml_zip_out_release(mca_pml_zip_out_t *out);
/* pml_zip_send.c: an encoded message that will not be sent: its stream forgets it (a stream
 * message), its buffer goes. */
void mca_pml_zip_out_drop(mca_pml_zip_out_t *out, ompi_communicator_t *comm, int dst, int tag);
/* A message below pml_zip_threshold that goes bare, decided (and counted) without encoding it:
 * the send is then the wrapped PML's, in standard mode, as mca_pml_zip_encode would have it. */
bool mca_pml_zip_sends_small_bare(size_t count, ompi_datatype_t *dtype,
                                  mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                                  int dst);
/* Next sequence number of this process (a split message's). */
uint32_t mca_pml_zip_next_seq(void);
/* A payload of `bytes` as it travelled (raw, or a frame) from a peer of peer_class took `seconds`
 * from its receive being posted to its completion. */
void mca_pml_zip_observe_arrival(int peer_class, size_t bytes, double seconds);

/* ---- pml_zip_arrival_clock.c: timing payloads received through requests ------------------- */

/* Payloads of a peer class in flight at once are timed together, as a busy period from the
 * first one's post to the last one's completion, and only where this process polled progress
 * all along (the file says why). */
/* How many payloads are being timed: progress reads the time only while there are any. */
extern volatile int32_t mca_pml_zip_arrivals_in_flight;
/* A payload receive from a peer of peer_class is about to be posted. */
void mca_pml_zip_arrival_begin(int peer_class);
/* A progress poll at `now`. */
void mca_pml_zip_arrival_poll(double now);
/* The payload begun for peer_class completed with `bytes` as they travelled, its completion
 * seen by the poll at `seen`; failed: it did not arrive (an error), the period is not timed. */
void mca_pml_zip_arrival_end(int peer_class, size_t bytes, double seen, bool failed);
/* What this process tells its peers of its link to other nodes (in every header it writes): a
 * rate it timed on arriving payloads or was given (pml_zip_link_gbps_remote), 0 when it has
 * neither. A rate r is sent as round(256 log2 r). */
uint16_t mca_pml_zip_link_hint(void);
/* Whether a message to rank dst of comm must carry this process's link hint (so must go as an
 * envelope): it has one, and has not told that peer, or the rate moved since. tell: the telling
 * is recorded, the caller sends the envelope; else nothing changes (a question only). */
bool mca_pml_zip_hint_due(ompi_communicator_t *comm, int dst, bool tell);
/* Where this process has no rate to other nodes yet (none given, timed or heard from peers),
 * takes the one coll/zip's ranks agreed on (coll_zip_agreed_link_remote_mbps), if any: codes
 * whose messages are all below the size arrivals are timed at, or that receive them through
 * MPI_Irecv, would otherwise never know their link. Returns whether it took one. */
bool mca_pml_zip_adopt_coll_link(void);
/* A header from rank src of comm arrived carrying link_hint: a process without a rate of its
 * own to other nodes adopts the one its remote peers timed. */
void mca_pml_zip_observe_hint(ompi_communicator_t *comm, int src, uint16_t link_hint);
/* Where the rate to peer_class comes from, for the statistics: "given" (a parameter),
 * "arrivals" (payloads this process timed), "peers" (their link hints) or "none" (then the link
 * counts as faster than the codec: nothing is compressed). A sender's own completion times are
 * not used: they run ahead of the wire where the transport buffers (ob1 over TCP: 2 GB/s on a
 * 1 Gbit/s link) and far behind it where the receiver posts late. */
const char *mca_pml_zip_link_source(int peer_class);

/* Decodes a frame of raw_bytes application bytes into count x dtype at buf. */
int mca_pml_zip_decode_frame(const void *frame, size_t frame_len, size_t raw_bytes, void *buf,
                             size_t count, ompi_datatype_t *dtype);

/* Copies the public fields of a status the way Open MPI's PMLs do for single-completion
 * calls: MPI_ERROR is left as the application set it (MPI-3.1 3.2.5). */
void mca_pml_zip_status_out(ompi_status_public_t *dst, int source, int tag, size_t count,
                            int cancelled);
/* ---- pml_zip_buffers.c: staging buffers and codec contexts reused across messages ---- */

void *mca_pml_zip_buf_get(size_t bytes);
void mca_pml_zip_buf_put(void *buf);
/* The bytes of count x dtype in one piece: buf itself when the type is contiguous (*packed
 * NULL), else a staging buffer they were packed into (*packed, for mca_pml_zip_buf_put). NULL
 * when no staging buffer could be had. */
const char *mca_pml_zip_flat_bytes(const void *buf, size_t count, ompi_datatype_t *dtype,
                                   size_t bytes, void **packed);
zip_ctx_t *mca_pml_zip_ctx_get(void);
void mca_pml_zip_ctx_put(zip_ctx_t *ctx);
void mca_pml_zip_buffers_fini(void);

/* ---- pml_zip_request.c: the request the application sees for zip messages ---- */

typedef enum { ZIP_REQ_SEND, ZIP_REQ_RECV } mca_pml_zip_req_kind_t;

struct mca_pml_zip_request_t;
/* What a kind of request does at the two moments the request machinery hands it back, so that
 * pml_zip_request.c knows nothing of sends and receives (pml_zip_send.c, pml_zip_recv.c). */
typedef struct mca_pml_zip_request_ops_t {
    /* MPI_Start of a persistent request: post its wrapped requests (and track them). */
    int (*start)(struct mca_pml_zip_request_t *req);
    /* Its tracked wrapped requests completed; inner and inner2 are now the callee's. */
    void (*inner_done)(struct mca_pml_zip_request_t *req, ompi_request_t *inner,
                       ompi_request_t *inner2);
} mca_pml_zip_request_ops_t;

/* Where a receive is: its first message posted, or its payload posted after an envelope. */
typedef enum { ZIP_RECV_LANDING, ZIP_RECV_PAYLOAD } mca_pml_zip_recv_phase_t;

typedef struct mca_pml_zip_direct_t mca_pml_zip_direct_t;
typedef struct mca_pml_zip_psend_t mca_pml_zip_psend_t;

typedef struct mca_pml_zip_request_t {
    ompi_request_t super;
    mca_pml_zip_req_kind_t kind;
    const mca_pml_zip_request_ops_t *ops;
    ompi_request_t *inner;  /* the wrapped PML's request being waited for */
    ompi_request_t *inner2; /* send: the envelope's request, next to the payload's */
    mca_pml_zip_out_t out;  /* send: the encoded message */
    /* recv */
    mca_pml_zip_recv_phase_t phase;
    void *stage; /* landing buffer, or the frame's buffer in the payload phase */
    /* landing phase: posted into the application's buffer (stage holds what the first
     * MCA_PML_ZIP_LANDING_BYTES of it were, to put back what a short message covers) */
    bool in_place;
    mca_pml_zip_first_copy_t first; /* in place: the first message's bytes as delivered */
    size_t stage_bytes;             /* landing phase, not in place: what the stage takes */
    int msg_source, msg_tag;
    mca_pml_zip_head_t head; /* payload phase: the envelope it follows */
    bool drain;              /* payload phase: received into stage only to be discarded */
    int arrival_class;       /* payload phase: the peer class it is timed in, -1: not timed */
    double arrival_seen;     /* payload phase: the poll that saw it complete */
    /* the application's arguments (kept for persistent requests and decoding) */
    const void *sbuf;
    void *rbuf;
    size_t count;
    ompi_datatype_t *dtype;
    int peer;
    int tag;
    mca_pml_base_send_mode_t mode;
    ompi_communicator_t *comm;
    bool free_called; /* MPI_Request_free on an active request */
    bool pml_done;    /* zip finished with it (completion is being or was signalled) */
    /* recv of a stream message (pml_zip_temporal.c) */
    size_t tlen;                         /* the payload's bytes, prefix included */
    bool hold;                           /* a matched probe's fetch: keep the data in held */
    void *held;                          /* hold: the message's bytes (malloc'd) */
    struct mca_pml_zip_request_t *tnext; /* the stream's list of decoded ones to complete */
    int terror;                          /* its error, once decoded in turn */
    /* the payload of a direct receive's envelope: the application holds direct's request */
    mca_pml_zip_direct_t *direct;
    /* the message of a persistent send's start: the application holds psend's request */
    mca_pml_zip_psend_t *psend;
} mca_pml_zip_request_t;

OBJ_CLASS_DECLARATION(mca_pml_zip_request_t);

mca_pml_zip_request_t *mca_pml_zip_request_new(mca_pml_zip_req_kind_t kind,
                                               const mca_pml_zip_request_ops_t *ops,
                                               bool persistent, ompi_communicator_t *comm);
/* Hands a request with an active inner request to the progress engine. */
void mca_pml_zip_request_track(mca_pml_zip_request_t *req);
/* Drops a reference (OBJ_RETAIN adds one); the last one destructs the request and keeps its
 * memory for the next mca_pml_zip_request_new. Never OBJ_RELEASE a zip request. */
void mca_pml_zip_request_unref(mca_pml_zip_request_t *req);
void mca_pml_zip_request_cache_fini(void);
/* Completes a request: status fields as given. Runs no callback under a zip lock. */
void mca_pml_zip_request_complete(mca_pml_zip_request_t *req, int source, int tag, size_t count,
                                  int error, int cancelled);
int mca_pml_zip_progress(void);
int mca_pml_zip_request_start(size_t count, ompi_request_t **requests);

/* ---- pml_zip_stash.c: messages pulled out of the wrapped PML before their receive ---- */

typedef struct mca_pml_zip_stash_entry_t {
    opal_list_item_t super;
    ompi_communicator_t *comm; /* not retained: entries go when the communicator does */
    int source;
    int tag;
    mca_pml_zip_head_t head;
    void *buf;  /* the first message as received */
    void *data; /* inline: the application's bytes in buf (head.raw_bytes) */
    /* a bare message matched in the wrapped PML and not received yet (its receive brings it
     * into the application's buffer): buf and data are NULL */
    ompi_message_t *wmsg;
    void *held; /* a stream message a matched probe fetched and decoded (malloc'd): data */
    int error;  /* its fetch failed: what its receive reports */
} mca_pml_zip_stash_entry_t;

OBJ_CLASS_DECLARATION(mca_pml_zip_stash_entry_t);

/*
 * The message a receive or probe of (source, tag) on comm must see first: the first stashed
 * match, else the wrapped PML's first match. Returns 1 and its source, tag and application
 * count, or 0 if nothing matches (yet), or an error. With `take` the message is pulled out if
 * it was not (a bare one as the wrapped PML's handle), removed from the stash and handed over in
 * *taken; without, an envelope is pulled into the stash with everything its sender queued
 * ahead of it (its count is inside), and an inline or bare message stays where it is.
 */
int mca_pml_zip_stash_match(ompi_communicator_t *comm, int source, int tag, bool take,
                            mca_pml_zip_stash_entry_t **taken, int *msg_source, int *msg_tag,
                            size_t *count);
/* Whether any pulled message waits (receives then take the careful path). */
bool mca_pml_zip_stash_empty(void);
/* Drops the entries of a communicator that is going away. */
void mca_pml_zip_stash_drop_comm(ompi_communicator_t *comm);
void mca_pml_zip_stash_fini(void);
/* ---- the PML entry points ---- */

int mca_pml_zip_send(const void *buf, size_t count, ompi_datatype_t *dtype, int dst, int tag,
                     mca_pml_base_send_mode_t mode, ompi_communicator_t *comm);
int mca_pml_zip_isend(const void *buf, size_t count, ompi_datatype_t *dtype, int dst, int tag,
                      mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                      ompi_request_t **request);
int mca_pml_zip_isend_init(const void *buf, size_t count, ompi_datatype_t *dtype, int dst, int tag,
                           mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                           ompi_request_t **request);
int mca_pml_zip_recv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                     ompi_communicator_t *comm, ompi_status_public_t *status);
int mca_pml_zip_irecv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                      ompi_communicator_t *comm, ompi_request_t **request);
int mca_pml_zip_irecv_init(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                           ompi_communicator_t *comm, ompi_request_t **request);
int mca_pml_zip_iprobe(int src, int tag, ompi_communicator_t *comm, int *matched,
                       ompi_status_public_t *status);
int mca_pml_zip_probe(int src, int tag, ompi_communicator_t *comm, ompi_status_public_t *status);
int mca_pml_zip_improbe(int src, int tag, ompi_communicator_t *comm, int *matched,
                        ompi_message_t **message, ompi_status_public_t *status);
int mca_pml_zip_mprobe(int src, int tag, ompi_communicator_t *comm, ompi_message_t **message,
                       ompi_status_public_t *status);
int mca_pml_zip_mrecv(void *buf, size_t count, ompi_datatype_t *dtype, ompi_message_t **message,
                      ompi_status_public_t *status);
int mca_pml_zip_imrecv(void *buf, size_t count, ompi_datatype_t *dtype, ompi_message_t **message,
                       ompi_request_t **request);

/* ---- pml_zip_recv.c: what receives share with matched probes ---- */

/* Posts the wrapped receive of a message's first part (irecv and persistent start). */
int mca_pml_zip_post_landing(mca_pml_zip_request_t *req);
/* A first part arrived (from the wrapped PML or the stash): deliver it, or post the payload.
 * Completes req unless a payload receive was posted. */
void mca_pml_zip_recv_first(mca_pml_zip_request_t *req, int source, int tag,
                            const mca_pml_zip_head_t *head, const void *held_data);
/* Completes a receive: releases its staging buffer, reports min(message, buffer) bytes. */
void mca_pml_zip_recv_finish(mca_pml_zip_request_t *req, int error);
/* Starts a receive request: from the stash if a pulled message matches, else posted. */
int mca_pml_zip_recv_start(mca_pml_zip_request_t *req);
mca_pml_zip_request_t *mca_pml_zip_recv_request(void *buf, size_t count, ompi_datatype_t *dtype,
                                                int src, int tag, ompi_communicator_t *comm,
                                                bool persistent);
/* A receive request for a message a matched probe took (MPI_Mrecv, MPI_Imrecv). */
int mca_pml_zip_deliver_message(mca_pml_zip_stash_entry_t *e, void *buf, size_t count,
                                ompi_datatype_t *dtype, ompi_communicator_t *comm,
                                ompi_request_t **request);

/* ---- pml_zip_direct.c: receives the application holds as the wrapped PML's request ---- */

/* MPI_Irecv as the wrapped PML's own request, where that is safe (a contiguous buffer,
 * nothing stashed, pml_zip_direct_recv); OMPI_ERR_NOT_SUPPORTED: take a zip request instead. */
int mca_pml_zip_direct_irecv(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                             ompi_communicator_t *comm, ompi_request_t **request);
/* MPI_Recv_init as the wrapped PML's persistent request, its starts zip's (a contiguous
 * buffer, no MPI_THREAD_MULTIPLE, pml_zip_direct_recv); OMPI_ERR_NOT_SUPPORTED: a zip request. */
int mca_pml_zip_direct_irecv_init(void *buf, size_t count, ompi_datatype_t *dtype, int src, int tag,
                                  ompi_communicator_t *comm, ompi_request_t **request);
/* ---- pml_zip_direct_send.c: persistent sends held as the wrapped PML's request ---- */

/* MPI_Send_init & co. as the wrapped PML's persistent request, its start, free and cancel zip's
 * (not buffered mode, not under MPI_THREAD_MULTIPLE); OMPI_ERR_NOT_SUPPORTED: a zip request. */
int mca_pml_zip_direct_isend_init(const void *buf, size_t count, ompi_datatype_t *dtype, int dst,
                                  int tag, mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                                  ompi_request_t **request);
/* MPI_Start of such requests (their req_start). */
int mca_pml_zip_psend_start(size_t count, ompi_request_t **requests);
/* The zip request that sent a start's message (req->psend) completed. */
void mca_pml_zip_psend_finish(mca_pml_zip_psend_t *p, int error, int cancelled);
/* pml_zip_send.c: an encoded message sent by a zip request nobody holds, which completes psend's
 * request (*sender: that zip request, set before it can complete). */
int mca_pml_zip_send_encoded(mca_pml_zip_out_t *out, const void *buf, size_t count,
                             ompi_datatype_t *dtype, int dst, int tag,
                             mca_pml_base_send_mode_t mode, ompi_communicator_t *comm,
                             mca_pml_zip_psend_t *psend, mca_pml_zip_request_t **sender);
/* The mode a bare message or payload goes in: synchronous stays, the rest standard. Ready mode
 * promises a posted receive; zip's own receive is posted by then too, but standard mode is as
 * correct and keeps one path. */
static inline mca_pml_base_send_mode_t mca_pml_zip_wire_mode(mca_pml_base_send_mode_t mode)
{
    return MCA_PML_BASE_SEND_SYNCHRONOUS == mode ? mode : MCA_PML_BASE_SEND_STANDARD;
}

/* ---- pml_zip_persistent_table.c: records of direct persistent requests, by request ---- */
bool mca_pml_zip_persistent_add(const ompi_request_t *request, void *record); /* false: no room */
void *mca_pml_zip_persistent_find(const ompi_request_t *request);
void mca_pml_zip_persistent_forget(const ompi_request_t *request);
void mca_pml_zip_persistent_fini(void);

/* MPI_Start of persistent direct receives (their req_start). */
int mca_pml_zip_direct_start(size_t count, ompi_request_t **requests);
/* The message of a direct receive (an envelope's payload, or a persistent start served through
 * the stash) is in (req->direct): completes the application's request with this status. */
void mca_pml_zip_direct_finish(mca_pml_zip_direct_t *d, int source, int tag, size_t count,
                               int error, int cancelled);
/* Envelopes that arrived in direct receives and requests freed early, from zip's progress. */
extern volatile int32_t mca_pml_zip_direct_pending;
int mca_pml_zip_direct_progress(void);
/* Once the wrapped PML is known (mca_pml_zip_wrapped_component). */
void mca_pml_zip_direct_init(void);
void mca_pml_zip_direct_fini(void);

/* ---- pml_zip_ucx_fence.c: waits out pml/ucx completions under way (MPI_THREAD_MULTIPLE) ---- */

/* Once the wrapped PML is known. false: it is not pml/ucx, or its worker was not found. */
bool mca_pml_zip_ucx_fence_init(void);
/* Returns once every completion pml/ucx had begun has finished (its worker's lock, taken and
 * released). Only after mca_pml_zip_ucx_fence_init returned true. */
void mca_pml_zip_ucx_fence(void);

/* ---- pml_zip_temporal.c: inter-step coding of a stream's messages (pml_zip_temporal) ---- */

/* After the parameters are read (pml_zip_temporal, pml_zip_temporal_memory). */
void mca_pml_zip_temporal_init(void);
void mca_pml_zip_temporal_fini(void);
/* Whether a message of these sizes and mode to dst on comm is sent as a stream message (the
 * sender's settings alone: the receiver follows the envelope's flag). */
bool mca_pml_zip_temporal_applies(ompi_communicator_t *comm, int dst, size_t bytes, int elem,
                                  mca_pml_base_send_mode_t mode);
/* Encodes a stream message into out (split, flag TEMPORAL): a delta or plain frame, or raw. */
int mca_pml_zip_temporal_encode(const void *buf, size_t count, ompi_datatype_t *dtype, size_t bytes,
                                int elem, ompi_communicator_t *comm, int dst, int tag,
                                mca_pml_zip_out_t *out);
/* The payload of a stream message arrived in req->stage (n bytes): decoded in its channel's
 * order, it completes req now or once the messages before it are decoded. */
void mca_pml_zip_temporal_arrived(mca_pml_zip_request_t *req, size_t n);
/* A matched probe took the stream message e: fetch and decode it now, in its channel's order
 * (so that later messages of the channel never wait for the MPI_Mrecv), into e->held. */
int mca_pml_zip_temporal_fetch(mca_pml_zip_stash_entry_t *e, ompi_communicator_t *comm);
/* The message encoded last for (comm, dst, tag) could not be posted: its channel sends no more
 * stream messages (its receiver would wait for that one). */
void mca_pml_zip_temporal_abandon(ompi_communicator_t *comm, int dst, int tag);
/* The pml_zip_stats line of stream coding. */
void mca_pml_zip_temporal_report(int rank);
/* A communicator went: its streams at both ends. */
void mca_pml_zip_temporal_drop_comm(ompi_communicator_t *comm);
/* pml_zip_temporal "off"/"auto" (0/1), -1 for anything else. */
int mca_pml_zip_temporal_mode_parse(const char *name);

/* ---- pml_zip_gpu.c ---- */

/* Says in the modex whether this process has a GPU runtime loaded (at installation, after the
 * wrapped PML's initialisation, before MPI_Init's modex fence). */
void mca_pml_zip_gpu_publish(void);
/* Whether a process of comm (either group) has a GPU driver runtime loaded, as each said in the
 * modex: then its messages go to the wrapped PML untouched (pml_zip_gpu_guard). */
bool mca_pml_zip_gpu_in_comm(ompi_communicator_t *comm);
void mca_pml_zip_gpu_fini(void);

/* Whether comm's messages go to the wrapped PML untouched (its settings' `untouched`). */
static inline bool mca_pml_zip_comm_untouched(const ompi_communicator_t *comm)
{
    return NULL != mca_pml_zip_comm_settings && comm->c_contextid < mca_pml_zip_comm_settings_len &&
           1 == mca_pml_zip_comm_settings[comm->c_contextid].untouched;
}

/* ---- pml_zip_send.c ---- */

/* Whether zip frames a message with this tag: application tags only. */
static inline bool mca_pml_zip_app_tag(int tag)
{
    return tag >= 0 || MPI_ANY_TAG == tag;
}

END_C_DECLS

#endif /* MCA_PML_ZIP_H */
