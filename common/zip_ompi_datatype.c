/*
 * Datatypes as the codecs see them: the element type of a type signature, and the bytes of
 * count x dtype (the user's memory itself when contiguous, else packed through Open MPI's
 * convertor, the same one the PMLs use).
 */
#include "ompi_config.h"

#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>

#include "opal/datatype/opal_convertor.h"

#include "mpi.h"
#include "ompi/datatype/ompi_datatype.h"

#include "zip_ompi.h"

zip_elem_type_t zip_ompi_elem_type(const struct ompi_datatype_t *dtype)
{
    /* bdt_used is the set of basic types of the signature, derived datatypes included. The
     * predefined types name the binary64 and binary32 basic types (whatever Fortran or C++
     * alias was used); complex values are pairs of reals to the codecs. Integers go by their
     * width, signed and unsigned alike (the codecs see bit patterns): MPI_INT, MPI_UNSIGNED,
     * MPI_INTEGER, MPI_INT32_T... are the 4-byte basic types, MPI_LONG, MPI_LONG_LONG,
     * MPI_INT64_T, MPI_AINT... the 8-byte ones. */
    const uint32_t used = dtype->super.bdt_used;
    const uint32_t f64 = MPI_DOUBLE->super.bdt_used | MPI_C_DOUBLE_COMPLEX->super.bdt_used;
    const uint32_t f32 = MPI_FLOAT->super.bdt_used | MPI_C_FLOAT_COMPLEX->super.bdt_used;
    /* Open MPI gives long its own basic types (not those of int64_t). */
    const uint32_t longs = MPI_LONG->super.bdt_used | MPI_UNSIGNED_LONG->super.bdt_used;
    const uint32_t i32 = MPI_INT32_T->super.bdt_used | MPI_UINT32_T->super.bdt_used |
                         MPI_INT->super.bdt_used | MPI_UNSIGNED->super.bdt_used |
                         (4 == sizeof(long) ? longs : 0);
    const uint32_t i64 = MPI_INT64_T->super.bdt_used | MPI_UINT64_T->super.bdt_used |
                         MPI_LONG_LONG->super.bdt_used | MPI_UNSIGNED_LONG_LONG->super.bdt_used |
                         (8 == sizeof(long) ? longs : 0);
    if (0 == used) {
        return ZIP_TYPE_BYTES;
    }
    if (0 == (used & ~f64)) {
        return ZIP_TYPE_F64;
    }
    if (0 == (used & ~f32)) {
        return ZIP_TYPE_F32;
    }
    if (0 == (used & ~i32)) {
        return ZIP_TYPE_I32;
    }
    if (0 == (used & ~i64)) {
        return ZIP_TYPE_I64;
    }
    return ZIP_TYPE_BYTES;
}

char *zip_ompi_contiguous_base(const void *buf, size_t count, const struct ompi_datatype_t *dtype)
{
    /* Open MPI asks with an int32 count, but only whether it is 1 matters to the answer. */
    const int32_t asked = count > 1 ? 2 : (int32_t)count;
    if (!ompi_datatype_is_contiguous_memory_layout(dtype, asked)) {
        return NULL;
    }
    return (char *)buf + dtype->super.true_lb;
}

/* Runs a prepared convertor over `bytes` bytes at mem (packing into or unpacking from it);
 * MPI_SUCCESS when it moved them all. */
static int convert(opal_convertor_t *conv, bool pack, char *mem, size_t bytes)
{
    size_t done = 0;
    while (done < bytes) {
        struct iovec iov = {.iov_base = mem + done, .iov_len = bytes - done};
        uint32_t iov_count = 1;
        size_t moved = bytes - done;
        const int32_t rc = pack ? opal_convertor_pack(conv, &iov, &iov_count, &moved)
                                : opal_convertor_unpack(conv, &iov, &iov_count, &moved);
        done += moved;
        if (rc < 0 || 0 == moved || 1 == rc) {
            break; /* failed, stuck, or the datatype has no more */
        }
    }
    return done == bytes ? MPI_SUCCESS : MPI_ERR_INTERN;
}

int zip_ompi_pack(void *dst, const void *buf, size_t count, const struct ompi_datatype_t *dtype)
{
    const size_t bytes = dtype->super.size * count;
    if (0 == bytes) {
        return MPI_SUCCESS;
    }
    const char *base = zip_ompi_contiguous_base(buf, count, dtype);
    if (NULL != base) {
        memcpy(dst, base, bytes);
        return MPI_SUCCESS;
    }
    opal_convertor_t conv;
    OBJ_CONSTRUCT(&conv, opal_convertor_t);
    opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dtype->super, count, buf, 0,
                                             &conv);
    const int rc = convert(&conv, true, dst, bytes);
    OBJ_DESTRUCT(&conv);
    return rc;
}

int zip_ompi_unpack(const void *src, size_t len, void *buf, size_t count,
                    const struct ompi_datatype_t *dtype)
{
    const size_t cap = dtype->super.size * count;
    const size_t n = len < cap ? len : cap;
    int rc = MPI_SUCCESS;
    if (n > 0) {
        char *base = zip_ompi_contiguous_base(buf, count, dtype);
        if (NULL != base) {
            memcpy(base, src, n);
        } else {
            opal_convertor_t conv;
            OBJ_CONSTRUCT(&conv, opal_convertor_t);
            opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &dtype->super, count,
                                                     buf, 0, &conv);
            rc = convert(&conv, false, (char *)src, n);
            OBJ_DESTRUCT(&conv);
        }
    }
    return len > cap ? MPI_ERR_TRUNCATE : rc;
}
