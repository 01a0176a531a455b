/*
 * A contiguous byte view of (buffer, count, datatype): the user's memory itself when the
 * datatype is contiguous, otherwise a packed copy. The algorithms only ever see bytes.
 */
#ifndef MCA_COLL_ZIP_VIEW_H
#define MCA_COLL_ZIP_VIEW_H

#include <stddef.h>

struct ompi_datatype_t;

typedef struct mca_coll_zip_view_t {
    char *bytes; /* what the algorithm reads or writes */
    size_t len;
    char *packed; /* owned copy when the datatype is not contiguous, else NULL */
    void *user;
    size_t count; /* elements of dtype at user */
    struct ompi_datatype_t *dtype;
} mca_coll_zip_view_t;

/* Views data to send (packs a non-contiguous layout now). */
int mca_coll_zip_view_send(mca_coll_zip_view_t *v, const void *buf, int count,
                           struct ompi_datatype_t *dtype);
/* Views memory to receive into; mca_coll_zip_view_deliver() moves packed data into place. */
int mca_coll_zip_view_recv(mca_coll_zip_view_t *v, void *buf, int count,
                           struct ompi_datatype_t *dtype);
int mca_coll_zip_view_deliver(mca_coll_zip_view_t *v);
void mca_coll_zip_view_free(mca_coll_zip_view_t *v);

#endif
