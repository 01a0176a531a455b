/*
 * Where a receive's first message lands. A receive with room for an envelope in one contiguous
 * piece is posted straight into the application's buffer, as stock MPI's is: a bare message
 * (every raw message up to pml_zip_bare_max) then lands where it belongs with the wrapped PML's
 * own paths, in one message. An envelope lands there too, and the bytes it covered get back
 * what they held before the receive (saved when it was posted), so that only the bytes of the
 * message are changed, as MPI promises.
 *
 * Any other receive lands in a landing buffer ("stage"). A bare message can be longer than it,
 * and over pml/ob1 a message longer than a contiguous receive buffer is written past its end
 * (Open MPI 4.1.4: vader's single copy; measured, 1000 bytes past a 4000-byte buffer for a
 * 5000-byte message), so there the stage is received through a datatype with a gap in the
 * middle, which ob1 fills by copying and truncates correctly. pml/ucx truncates either way and
 * would pay a generic datatype for the gap: it gets the plain buffer. A receive of at most
 * MCA_PML_ZIP_SMALL_STAGE_BYTES gets a stage of that size, whose gapped type is made once.
 *
 * Under MPI_THREAD_MULTIPLE, receives that small never land in place. Active receives that
 * share a buffer are erroneous, but benchmarks and test suites post them (MPICH's threads
 * test: four threads receiving into one buffer). With one thread, a completion callback copies
 * an envelope as it arrives (mca_pml_zip_first_copy_attach), before anything else can be
 * delivered there. With several, another thread can deliver into the buffer between the
 * wrapped PML's copy and that callback (or the callback's attachment), two receives then take
 * one envelope and wait for one payload for ever. A stage of zip's own is no one else's; a
 * message this small costs one short copy more. Larger receives keep landing in place.
 */
#include "ompi_config.h"

#include <limits.h>
#include <string.h>

#include "ompi/constants.h"

#include "pml_zip.h"

_Static_assert(0 == MCA_PML_ZIP_LANDING_BYTES % 2 && 0 == MCA_PML_ZIP_SMALL_STAGE_BYTES % 2,
               "the fixed stages are two equal halves (gapped_type)");

static bool stage_gapped;
/* The gapped types of a MCA_PML_ZIP_LANDING_BYTES and a MCA_PML_ZIP_SMALL_STAGE_BYTES stage,
 * made once (both even: two of an element, gapped_type). */
static ompi_datatype_t *landing_gapped, *small_gapped;

/* A stage of an even number of bytes is two of one contiguous half whose extent takes the gap
 * as well: ob1 unpacks that with Open MPI's loop for contiguous elements (count 2 makes it need
 * buffers, so ob1 still never reads a longer message into it in one piece). An odd stage is a
 * struct of two blocks, unpacked by the generic loop: about 200 instructions more per message
 * (callgrind, docs/performance.md). *count: how many of *type make the stage. */
static int gapped_type(size_t bytes, ompi_datatype_t **type, size_t *count)
{
    const size_t half = bytes / 2;
    if (bytes - half > INT_MAX) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    int rc;
    if (0 == bytes % 2) {
        ompi_datatype_t *block = NULL;
        rc = ompi_datatype_create_contiguous((int)half, &ompi_mpi_byte.dt, &block);
        if (OMPI_SUCCESS == rc) {
            rc = ompi_datatype_create_resized(block, 0, (ptrdiff_t)(half + MCA_PML_ZIP_STAGE_GAP),
                                              type);
            ompi_datatype_destroy(&block);
        }
        *count = 2;
    } else {
        const int lengths[2] = {(int)half, (int)(bytes - half)};
        const ptrdiff_t displs[2] = {0, (ptrdiff_t)(half + MCA_PML_ZIP_STAGE_GAP)};
        ompi_datatype_t *const types[2] = {&ompi_mpi_byte.dt, &ompi_mpi_byte.dt};
        rc = ompi_datatype_create_struct(2, lengths, displs, types, type);
        *count = 1;
    }
    if (OMPI_SUCCESS == rc) {
        rc = ompi_datatype_commit(type);
    }
    return rc;
}

void mca_pml_zip_landing_init(void)
{
    stage_gapped =
        0 != strcmp("ucx", mca_pml_zip_wrapped_component.pmlm_version.mca_component_name);
    size_t count;
    if (stage_gapped &&
        OMPI_SUCCESS != gapped_type(MCA_PML_ZIP_LANDING_BYTES, &landing_gapped, &count)) {
        landing_gapped = NULL;
    }
    if (stage_gapped &&
        OMPI_SUCCESS != gapped_type(MCA_PML_ZIP_SMALL_STAGE_BYTES, &small_gapped, &count)) {
        small_gapped = NULL;
    }
}

void mca_pml_zip_landing_fini(void)
{
    if (NULL != landing_gapped) {
        ompi_datatype_destroy(&landing_gapped);
    }
    if (NULL != small_gapped) {
        ompi_datatype_destroy(&small_gapped);
    }
}

size_t mca_pml_zip_stage_alloc_bytes(size_t bytes)
{
    return bytes + MCA_PML_ZIP_STAGE_GAP;
}

/* The type to receive `bytes` into a stage with: *own is the caller's to destroy. */
static ompi_datatype_t *stage_type(size_t bytes, size_t *count, ompi_datatype_t **own)
{
    *own = NULL;
    if (stage_gapped) {
        *count = 2;
        if (MCA_PML_ZIP_LANDING_BYTES == bytes && NULL != landing_gapped) {
            return landing_gapped;
        }
        if (MCA_PML_ZIP_SMALL_STAGE_BYTES == bytes && NULL != small_gapped) {
            return small_gapped;
        }
        if (OMPI_SUCCESS == gapped_type(bytes, own, count)) {
            return *own;
        }
        /* No gapped type: a short plain buffer (a longer message then fails, as stock). */
    }
    *count = bytes;
    return &ompi_mpi_byte.dt;
}

static int stage_post(mca_pml_base_module_irecv_fn_t post, void *stage, size_t bytes, int src,
                      int tag, ompi_communicator_t *comm, ompi_request_t **request)
{
    size_t count;
    ompi_datatype_t *own;
    ompi_datatype_t *type = stage_type(bytes, &count, &own);
    int rc = post(stage, count, type, src, tag, comm, request);
    if (NULL != own) {
        ompi_datatype_destroy(&own); /* the request holds its own reference */
    }
    return rc;
}

int mca_pml_zip_stage_irecv(void *stage, size_t bytes, int src, int tag, ompi_communicator_t *comm,
                            ompi_request_t **request)
{
    return stage_post(mca_pml_zip_wrapped.pml_irecv, stage, bytes, src, tag, comm, request);
}

int mca_pml_zip_stage_irecv_init(void *stage, size_t bytes, int src, int tag,
                                 ompi_communicator_t *comm, ompi_request_t **request)
{
    return stage_post(mca_pml_zip_wrapped.pml_irecv_init, stage, bytes, src, tag, comm, request);
}

int mca_pml_zip_stage_recv(void *stage, size_t bytes, int src, int tag, ompi_communicator_t *comm,
                           ompi_status_public_t *status)
{
    size_t count;
    ompi_datatype_t *own;
    ompi_datatype_t *type = stage_type(bytes, &count, &own);
    int rc = mca_pml_zip_wrapped.pml_recv(stage, count, type, src, tag, comm, status);
    if (NULL != own) {
        ompi_datatype_destroy(&own);
    }
    return rc;
}

/* A message of n bytes arrived in a stage of `bytes`: puts them together at its start. */
static void stage_join(void *stage, size_t bytes, size_t n)
{
    const size_t half = bytes / 2;
    if (stage_gapped && n > half) {
        char *p = stage;
        const size_t rest = (n < bytes ? n : bytes) - half;
        memmove(p + half, p + half + MCA_PML_ZIP_STAGE_GAP, rest);
    }
}

char *mca_pml_zip_landing_base(void *buf, size_t count, ompi_datatype_t *dtype)
{
    const size_t bytes = dtype->super.size * count;
    if (bytes < MCA_PML_ZIP_LANDING_BYTES ||
        (bytes <= MCA_PML_ZIP_SMALL_STAGE_BYTES && opal_using_threads())) {
        return NULL;
    }
    return zip_ompi_contiguous_base(buf, count, dtype);
}

size_t mca_pml_zip_landing_stage_bytes(size_t cap)
{
    if (cap <= MCA_PML_ZIP_LANDING_BYTES) {
        return MCA_PML_ZIP_LANDING_BYTES;
    }
    return cap <= MCA_PML_ZIP_SMALL_STAGE_BYTES ? MCA_PML_ZIP_SMALL_STAGE_BYTES : cap;
}

static void first_copy_take(mca_pml_zip_first_copy_t *fc, const ompi_request_t *inner)
{
    const ompi_status_public_t *st = &inner->req_status;
    if (!st->_cancelled && MPI_SUCCESS == st->MPI_ERROR &&
        MCA_PML_ZIP_ENVELOPE_BYTES == st->_ucount) {
        memcpy(fc->bytes, fc->at, MCA_PML_ZIP_ENVELOPE_BYTES);
        opal_atomic_wmb();
        fc->taken = 1;
    }
}

/* Runs inside the wrapped PML's completion of the receive, as the message is delivered. */
static int first_copy_delivered(ompi_request_t *inner)
{
    mca_pml_zip_first_copy_t *fc = (mca_pml_zip_first_copy_t *)inner->req_complete_cb_data;
    inner->req_complete_cb_data = NULL;
    first_copy_take(fc, inner);
    return 0; /* completes as it is */
}

void mca_pml_zip_first_copy_attach(ompi_request_t *inner, mca_pml_zip_first_copy_t *fc,
                                   const char *at)
{
    fc->at = at;
    fc->taken = 0;
    inner->req_complete_cb_data = fc;
    opal_atomic_wmb();
    inner->req_complete_cb = first_copy_delivered;
    opal_atomic_mb();
    /* Completed already (inside the irecv, or by another thread before the callback was in
     * place): whoever takes the callback off takes the copy. */
    if (REQUEST_COMPLETED == inner->req_complete) {
        mca_pml_zip_first_copy_settle(inner, fc);
    }
}

/* ompi_request_complete reads the callback before it marks the request complete, so one
 * attached in between is never run: the attach above then finds the request pending and leaves
 * it. Left on, it would go back to the wrapped PML's pool with the request (pml/ucx sets a
 * pooled request's fields once) and run on a later receive, with this receive's record. */
void mca_pml_zip_first_copy_settle(ompi_request_t *inner, mca_pml_zip_first_copy_t *fc)
{
    if (NULL != opal_atomic_swap_ptr(&inner->req_complete_cb, (intptr_t)NULL)) {
        inner->req_complete_cb_data = NULL;
        first_copy_take(fc, inner); /* after completion: from the buffer as it is now */
    }
}

const unsigned char *mca_pml_zip_first_copy_get(const mca_pml_zip_first_copy_t *fc)
{
    if (!fc->taken) {
        return NULL;
    }
    opal_atomic_rmb();
    return fc->bytes;
}

/* In place: reads the head and puts back the bytes an envelope covered (saved holds what the
 * buffer's first MCA_PML_ZIP_LANDING_BYTES were). */
static bool land_in_place(char *base, const char *saved, const void *head_bytes, size_t n,
                          mca_pml_zip_head_t *head)
{
    if (!mca_pml_zip_head_parse(head_bytes, n, head)) {
        return false;
    }
    if (ZIP_SHAPE_ENVELOPE == head->shape) {
        /* Its payload, if it comes here, is received after this. */
        memcpy(base, saved, MCA_PML_ZIP_ENVELOPE_BYTES);
    }
    return true;
}

const char *mca_pml_zip_stage_bytes_of(void *stage, size_t stage_bytes, size_t n)
{
    stage_join(stage, stage_bytes, n);
    return stage;
}

/* Not from a zip sender: its n bytes are the message, as they came. */
static void head_held(mca_pml_zip_head_t *head, size_t n)
{
    memset(head, 0, sizeof(*head));
    head->shape = ZIP_SHAPE_HELD;
    head->raw_bytes = n;
}

const char *mca_pml_zip_first_arrived(char *base, void *stage, size_t stage_bytes,
                                      const unsigned char *copy, size_t n, mca_pml_zip_head_t *head,
                                      bool *framed)
{
    if (NULL != base) {
        *framed = land_in_place(base, stage, NULL != copy ? (const void *)copy : base, n, head);
    } else {
        stage_join(stage, stage_bytes, n);
        *framed = mca_pml_zip_head_parse(stage, n, head);
    }
    if (!*framed) {
        head_held(head, n);
    }
    return NULL != base ? NULL : (const char *)stage;
}
