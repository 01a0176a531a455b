/*
 * pml/zip's temporal streams (docs/p2p.md, "Temporal streams"): what both ends of a
 * point-to-point stream keep, and the rules that keep them in step, without MPI (unit-tested in
 * tests/unit/test_p2p_streams.cpp).
 *
 * A *channel* is (communicator context id, peer, tag) in one direction: MPI matches a channel's
 * messages in the order they were sent, so both ends see its temporal messages in one order,
 * numbered by the sender (cseq, from 0). A *stream* is a channel's messages of one size; its
 * reference is the last message of the stream that was kept. Every temporal message says whether
 * it is kept (keep), and both ends apply the same rule to the channel, in cseq order:
 *
 *   keep:    the message becomes its stream's reference; if the channel then holds more than
 *            ZIP_P2P_SIZES_PER_CHANNEL sizes, the one kept longest ago is dropped;
 *   no keep: its stream's reference, if any, is dropped (after the message was decoded).
 *
 * Only the sender decides keep, from its memory budget: the references a process keeps for one
 * peer process (all communicators and tags) may claim memory / (2 (nprocs - 1)) bytes, and a
 * channel's claim is the most it ever held (its high-water mark), released only when its
 * communicator goes. The receiver holds, per channel, what the sender held at the same point of
 * the channel, so never more than the sender's claim: each side keeps at most memory / 2 of
 * references it sent and memory / 2 of references it received (docs/p2p.md, "Memory").
 *
 * Not thread-safe: the caller serialises every call (pml/zip holds one mutex), and a pointer
 * returned by one call is valid until the next call that changes the same channel.
 */
#ifndef ZIP_P2P_STREAMS_H
#define ZIP_P2P_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZIP_P2P_SIZES_PER_CHANNEL 4

typedef struct zip_p2p_streams zip_p2p_streams_t;

/* A channel: the communicator's context id, the peer's rank in it, the tag. */
typedef struct zip_p2p_key {
    uint32_t cid;
    int32_t peer;
    int32_t tag;
} zip_p2p_key_t;

/* memory: the cap of pml_zip_temporal_memory; nprocs: how many processes share it (the peers
 * of a process are the others). NULL when out of memory. */
zip_p2p_streams_t *zip_p2p_streams_create(size_t memory, unsigned nprocs);
void zip_p2p_streams_destroy(zip_p2p_streams_t *s);

/* ---- sender ---- */

/* Codes the first n bytes of the message being sent against ref (NULL: on its own) and returns
 * the frame's length, 0 when it would not be shorter than n. */
typedef size_t (*zip_p2p_sample_fn)(void *arg, const char *ref, size_t n);

/* A message of `bytes` bytes is about to be sent on channel k to the peer process `pair` (any
 * number that names the process, the same for every communicator). Returns its cseq and, in
 * *ref, what to code it against: the stream's reference when the shared choice rule
 * (temporal_choice.hpp, measured with `sample` when due) says a delta frame pays, else NULL.
 * ZIP_P2P_ABANDONED: the channel cannot carry stream messages (send it another way). */
uint32_t zip_p2p_send_begin(zip_p2p_streams_t *s, zip_p2p_key_t k, uint64_t pair, size_t bytes,
                            zip_p2p_sample_fn sample, void *arg, const char **ref);
/* The message begun last could not be sent after all (its cseq was used): channel k sends no
 * stream messages any more (zip_p2p_send_begin returns ZIP_P2P_ABANDONED), so its receiver,
 * which would wait for that cseq, never has to. */
void zip_p2p_send_abandon(zip_p2p_streams_t *s, zip_p2p_key_t k);
#define ZIP_P2P_ABANDONED UINT32_MAX

/* The message begun last went out: data are its bytes (the sender's, packed), as_delta whether
 * it was coded against the reference, ratio bytes / wire bytes. Applies the rule above and
 * returns keep, which the message must carry (1: kept, 0: not). */
int zip_p2p_send_end(zip_p2p_streams_t *s, zip_p2p_key_t k, uint64_t pair, const void *data,
                     size_t bytes, int as_delta, double ratio);

/* ---- receiver ---- */

/* The cseq channel k expects next: a message with another one waits (zip_p2p_recv_park). */
uint32_t zip_p2p_recv_next(zip_p2p_streams_t *s, zip_p2p_key_t k);
/* The reference to decode a message of `bytes` bytes of channel k against, NULL if none. */
const char *zip_p2p_recv_ref(zip_p2p_streams_t *s, zip_p2p_key_t k, size_t bytes);
/* The expected message of channel k was handled: decoded into `data` (malloc'd; the streams
 * take it over and free it in every case), or NULL when it could not be decoded (its stream's
 * reference is then dropped, so a later delta fails rather than decodes wrongly). Applies the
 * rule with keep and moves the channel to the next cseq. */
void zip_p2p_recv_done(zip_p2p_streams_t *s, zip_p2p_key_t k, size_t bytes, int keep, void *data);
/* A message (item, the caller's) of channel k whose cseq is not the expected one waits. */
int zip_p2p_recv_park(zip_p2p_streams_t *s, zip_p2p_key_t k, uint32_t cseq, void *item);
/* The waiting item whose turn has come on channel k (removed), or NULL. */
void *zip_p2p_recv_unpark(zip_p2p_streams_t *s, zip_p2p_key_t k);

/* ---- both ---- */

/* A communicator went: its channels (both directions) are forgotten, their claims released. */
void zip_p2p_streams_drop_cid(zip_p2p_streams_t *s, uint32_t cid);

typedef struct zip_p2p_counts {
    uint64_t temporal_sent; /* messages sent as stream messages */
    uint64_t delta_frames;  /* of those, coded against a reference */
    uint64_t kept_sent;     /* of those, kept as their stream's reference */
    uint64_t probes;        /* samples coded both ways */
    /* bytes the delta frames saved against plain frames, estimated with the plain ratio their
     * stream's last sample measured */
    uint64_t delta_saved;
    uint64_t temporal_recvd;                   /* stream messages handled by a receiver */
    uint64_t bytes_sent_refs, bytes_recv_refs; /* references held now */
    uint64_t peak_sent_refs, peak_recv_refs;   /* the most held at once */
} zip_p2p_counts_t;
void zip_p2p_streams_counts(const zip_p2p_streams_t *s, zip_p2p_counts_t *c);

#ifdef __cplusplus
}
#endif

#endif /* ZIP_P2P_STREAMS_H */
