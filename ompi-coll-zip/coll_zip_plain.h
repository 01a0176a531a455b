/*
 * Blocks that zip does not compress travel as plain messages of the user's own datatype,
 * straight between the user buffers and all posted at once, as coll/basic's linear algorithms
 * move them: a call whose blocks are all plain costs what it costs without zip. Both ends of a
 * block know its size (MPI requires matching type signatures) and whether they share a node,
 * so both agree that it is plain; a plain receive that brings another length is an error, not
 * a silently wrong result (ranks that disagree on the settings, for instance).
 */
#ifndef MCA_COLL_ZIP_PLAIN_H
#define MCA_COLL_ZIP_PLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "ompi/request/request.h"

struct ompi_communicator_t;
struct ompi_datatype_t;
struct mca_coll_zip_module_t;

/* True when a block of `bytes` (> 0) between this rank and `peer` is never compressed: below
 * the threshold (zip_algo_block_may_compress, the algorithms' own rule), too large for one
 * message of bytes, or between two ranks on one node (shared memory beats any codec) unless
 * force_local is set. */
bool mca_coll_zip_block_is_plain(size_t bytes, const struct mca_coll_zip_module_t *m, int peer);

typedef struct mca_coll_zip_plain_t {
    struct mca_coll_zip_module_t *module; /* owns the arrays: calls on one comm never overlap */
    int count;
    struct ompi_communicator_t *comm;
    int tag;
} mca_coll_zip_plain_t;

/* Room for up to `max_requests`; fails only for lack of memory. */
int mca_coll_zip_plain_begin(mca_coll_zip_plain_t *p, struct mca_coll_zip_module_t *m,
                             struct ompi_communicator_t *comm, int tag, int max_requests);
int mca_coll_zip_plain_irecv(mca_coll_zip_plain_t *p, void *buf, int count,
                             struct ompi_datatype_t *dtype, int peer);
int mca_coll_zip_plain_isend(mca_coll_zip_plain_t *p, const void *buf, int count,
                             struct ompi_datatype_t *dtype, int peer);
/* Waits for every posted transfer; the first error, if any. `op` names the call in the
 * message about a receive of the wrong length. */
int mca_coll_zip_plain_wait(mca_coll_zip_plain_t *p, const char *op);
/* After a failure elsewhere: lets the posted transfers complete on their own and returns rc. */
int mca_coll_zip_plain_abandon(mca_coll_zip_plain_t *p, int rc);

#endif
