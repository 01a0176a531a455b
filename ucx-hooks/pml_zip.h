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

BEGIN_C_DECLS

/* Per-process counters, updated atomically (completions run on any thread). */
typedef struct mca_pml_zip_stats_t {
    uint64_t msgs_sent;       /* messages that went out with a zip header */
    uint64_t msgs_compressed; /* of those, carried a compressed frame */
    uint64_t bytes_raw;       /* application bytes of those messages */
    uint64_t bytes_wire;      /* bytes handed to the wrapped PML for them */
    uint64_t msgs_received;   /* messages decoded on the receive side */
    uint64_t probes_peeked;   /* probed messages pulled out early to read their header */
} mca_pml_zip_stats_t;

typedef struct mca_pml_zip_component_t {
    mca_pml_base_component_2_0_0_t super;

    /* MCA parameters */
    int enable; /* compress on every communicator (the Info key overrides per comm) */
    char *codec;
    size_t threshold;
    int verbose;
    int stats;
    bool force_local; /* compress to peers on the same node too */

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

/* ---- pml_zip_policy.c: which traffic is ours ---- */

/* Element type of a datatype whose signature is only binary64 / only binary32, or -1. */
int mca_pml_zip_elem_class(const ompi_datatype_t *dtype);
/* Application traffic (tag >= 0 or MPI_ANY_TAG) on a communicator where zip is on. */
bool mca_pml_zip_comm_enabled(ompi_communicator_t *comm, int tag);
/* Whether a message to dst may be compressed (peers on this node get raw zip messages). */
bool mca_pml_zip_may_compress(ompi_communicator_t *comm, int dst);
int mca_pml_zip_add_comm(ompi_communicator_t *comm);
int mca_pml_zip_del_comm(ompi_communicator_t *comm);
void mca_pml_zip_policy_fini(void);

/* ---- pml_zip_wire.c: the header every zip message starts with ---- */

#define MCA_PML_ZIP_MAGIC 0x5a49507032ULL /* "2pPIZ", with a version digit */
enum { MCA_PML_ZIP_KIND_RAW = 1, MCA_PML_ZIP_KIND_FRAME = 2 };

typedef struct mca_pml_zip_hdr_t {
    uint64_t magic;
    uint32_t kind;       /* RAW: payload is the data itself; FRAME: a zip frame */
    uint32_t elem;       /* zip_elem_type_t of the data */
    uint64_t raw_bytes;  /* application bytes: what MPI_Get_count reports */
    uint64_t wire_bytes; /* payload bytes after the header: detects mismatched receives */
} mca_pml_zip_hdr_t;

#define MCA_PML_ZIP_HDR_BYTES sizeof(mca_pml_zip_hdr_t)

/*
 * An encoded message as handed to the wrapped PML: either an owned buffer (header + payload,
 * as MPI_BYTE), or, for a large raw message, a struct type over the header here and the
 * application's own data, sent from MPI_BOTTOM without a copy. It must not move while the
 * send is in flight (the type holds the header's address).
 */
typedef struct mca_pml_zip_wire_t {
    mca_pml_zip_hdr_t hdr;
    void *buf;
    size_t len;
    ompi_datatype_t *type;
} mca_pml_zip_wire_t;

/* may_reference: the send completes before the application may touch buf again (not so in
 * buffered mode), so a raw message may be sent from buf itself. */
int mca_pml_zip_encode(const void *buf, size_t count, ompi_datatype_t *dtype, int elem,
                       bool may_compress, bool may_reference, mca_pml_zip_wire_t *w);
/* The (buffer, count, datatype) to send for an encoded message. */
void mca_pml_zip_wire_args(mca_pml_zip_wire_t *w, void **buf, size_t *count,
                           ompi_datatype_t **type);
void mca_pml_zip_wire_release(mca_pml_zip_wire_t *w);

/*
 * Where a zip-class receive lands: for a large contiguous receive, a struct type over a header
 * here and the application's buffer (a raw message then needs no copy; a frame is moved out and
 * decoded in place), otherwise a staging buffer of header + the posted size.
 */
typedef struct mca_pml_zip_landing_t {
    mca_pml_zip_hdr_t hdr;
    void *stage;
    size_t stage_cap;
    ompi_datatype_t *type;
} mca_pml_zip_landing_t;

int mca_pml_zip_landing_prepare(mca_pml_zip_landing_t *l, void *buf, size_t count,
                                ompi_datatype_t *dtype, void **rbuf, size_t *rcount,
                                ompi_datatype_t **rtype);
/* Decodes what arrived (received = bytes the wrapped PML reports); *raw = application bytes. */
int mca_pml_zip_landing_decode(mca_pml_zip_landing_t *l, size_t received, void *buf, size_t count,
                               ompi_datatype_t *dtype, size_t *raw);
void mca_pml_zip_landing_release(mca_pml_zip_landing_t *l);

/* Validates a received message; returns 1 if it is a zip message (hdr filled in). */
int mca_pml_zip_parse(const void *wire, size_t wire_len, mca_pml_zip_hdr_t *hdr);
/* Decodes a zip message into count x dtype at buf; *raw_bytes = application bytes. */
int mca_pml_zip_decode(const void *wire, size_t wire_len, void *buf, size_t count,
                       ompi_datatype_t *dtype, size_t *raw_bytes);
/* Copies a message received as bytes (not a zip message) into count x dtype at buf. */
int mca_pml_zip_unpack_bytes(const void *bytes, size_t len, void *buf, size_t count,
                             ompi_datatype_t *dtype);

/* ---- pml_zip_buffers.c: staging buffers and codec contexts reused across messages ---- */

void *mca_pml_zip_buf_get(size_t bytes);
void mca_pml_zip_buf_put(void *buf);
zip_ctx_t *mca_pml_zip_ctx_get(void);
void mca_pml_zip_ctx_put(zip_ctx_t *ctx);
void mca_pml_zip_buffers_fini(void);

/* ---- pml_zip_request.c: the request the application sees for zip messages ---- */

typedef enum { ZIP_REQ_SEND, ZIP_REQ_RECV } mca_pml_zip_req_kind_t;

typedef struct mca_pml_zip_request_t {
    ompi_request_t super;
    mca_pml_zip_req_kind_t kind;
    ompi_request_t *inner;    /* the wrapped PML's request while active */
    mca_pml_zip_wire_t out;   /* send: the encoded message */
    mca_pml_zip_landing_t in; /* recv (staged): where it lands */
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
    bool staged;      /* recv: a zip-class receive, through a staging buffer */
} mca_pml_zip_request_t;

OBJ_CLASS_DECLARATION(mca_pml_zip_request_t);

mca_pml_zip_request_t *mca_pml_zip_request_new(mca_pml_zip_req_kind_t kind, bool persistent,
                                               ompi_communicator_t *comm);
/* Hands a request with an active inner request to the progress engine. */
void mca_pml_zip_request_track(mca_pml_zip_request_t *req);
/* Marks a request complete with the given status (decoding already done). */
void mca_pml_zip_request_complete(mca_pml_zip_request_t *req, const ompi_status_public_t *st);
int mca_pml_zip_progress(void);
int mca_pml_zip_request_start(size_t count, ompi_request_t **requests);

/* ---- pml_zip_stash.c: messages a probe pulled out of the wrapped PML early ---- */

typedef struct mca_pml_zip_stash_entry_t {
    opal_list_item_t super;
    ompi_communicator_t *comm;
    int source;
    int tag;
    void *wire; /* the message as received, as bytes */
    size_t wire_len;
    bool is_zip;
    size_t app_bytes; /* what a receive of the application's type will report */
} mca_pml_zip_stash_entry_t;

OBJ_CLASS_DECLARATION(mca_pml_zip_stash_entry_t);

/* Oldest stashed message matching (source, tag) on comm, removed from the stash, or NULL. */
mca_pml_zip_stash_entry_t *mca_pml_zip_stash_take(ompi_communicator_t *comm, int source, int tag);
/* Same, left in the stash (for probe). */
mca_pml_zip_stash_entry_t *mca_pml_zip_stash_peek(ompi_communicator_t *comm, int source, int tag,
                                                  ompi_status_public_t *status);
void mca_pml_zip_stash_put(mca_pml_zip_stash_entry_t *e);
void mca_pml_zip_stash_fill_status(const mca_pml_zip_stash_entry_t *e,
                                   ompi_status_public_t *status);
/* Receives a stashed message into the application's buffer and releases it. */
int mca_pml_zip_stash_deliver(mca_pml_zip_stash_entry_t *e, void *buf, size_t count,
                              ompi_datatype_t *dtype, ompi_status_public_t *status);
/* Pulls a matched message out of the wrapped PML into a new stash entry. */
int mca_pml_zip_stash_pull(ompi_message_t **inner_msg, ompi_communicator_t *comm,
                           const ompi_status_public_t *probed, mca_pml_zip_stash_entry_t **out);
bool mca_pml_zip_stash_empty(void);
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

/* Encodes the application's data and posts the wrapped send (isend and start). */
int mca_pml_zip_post_send(mca_pml_zip_request_t *req);
/* Posts the wrapped receive of a zip-class message into a staging buffer (irecv and start). */
int mca_pml_zip_post_staged_recv(mca_pml_zip_request_t *req);
/* Finishes a receive whose inner request completed: decode, status, release. */
void mca_pml_zip_finish_recv(mca_pml_zip_request_t *req);

END_C_DECLS

#endif /* MCA_PML_ZIP_H */
