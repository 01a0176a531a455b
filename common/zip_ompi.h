/*
 * What coll/zip and pml/zip share about MPI data and codec settings, in one place (as
 * ompi/mca/common/monitoring serves the monitoring components): which datatypes the float
 * codecs see as floats, contiguous views, packing to and from bytes, and the codec spec in
 * effect. Linked into both components as the convenience library libzipompi.la.
 *
 * C, like the rest of the MCA glue: Open MPI's internal headers do not compile as C++.
 */
#ifndef ZIP_OMPI_H
#define ZIP_OMPI_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "zip/zip.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ompi_datatype_t;

/* ---- zip_ompi_release.c: the Open MPI release ---- */

/* Whether the component may run: true under the Open MPI release it was built against
 * (major.minor.release, ompi_release.h), or with its check off (check false). Otherwise false,
 * after a message naming both releases and check_param (e.g. "coll_zip_version_check"), printed
 * once per job where loud (the component would have been on). Call it from the component's
 * register function, before anything reads Open MPI's internal structures. */
bool zip_ompi_release_ok(const char *component, const char *check_param, bool check, bool loud);

/* ---- zip_ompi_datatype.c: datatypes ---- */

/*
 * The element type the codecs should see for data of `dtype`, judged by its type signature
 * (the basic types it is built of, derived datatypes included): only IEEE binary64 (double,
 * and double complex, a pair of them) gives ZIP_TYPE_F64; only binary32 (float, float complex)
 * gives ZIP_TYPE_F32; only 4-byte integers (int, unsigned, INTEGER, int32_t, uint32_t)
 * ZIP_TYPE_I32; only 8-byte integers (long and long long on LP64, int64_t, uint64_t, MPI_AINT,
 * MPI_OFFSET, MPI_COUNT) ZIP_TYPE_I64; anything else, an empty signature or a mix (ints and
 * doubles, 4- and 8-byte ints, chars, long double) included, ZIP_TYPE_BYTES.
 * A vector or struct of doubles is therefore F64: packed, its bytes are doubles.
 */
zip_elem_type_t zip_ompi_elem_type(const struct ompi_datatype_t *dtype);

/* The first byte of count x dtype at buf when those elements are one contiguous run of
 * memory (packing them would copy them unchanged), else NULL. */
char *zip_ompi_contiguous_base(const void *buf, size_t count, const struct ompi_datatype_t *dtype);

/*
 * Packs count x dtype at buf into dst, which holds the type size times count bytes: the bytes
 * MPI would send for them, in order. MPI_SUCCESS, or MPI_ERR_INTERN if Open MPI's convertor
 * packed fewer bytes.
 */
int zip_ompi_pack(void *dst, const void *buf, size_t count, const struct ompi_datatype_t *dtype);

/*
 * Unpacks len bytes from src into count x dtype at buf, the inverse of zip_ompi_pack. When
 * len is more than count x dtype holds, copies what fits and returns MPI_ERR_TRUNCATE (as a
 * receive does); a shorter len fills the first elements only. Else MPI_SUCCESS, or
 * MPI_ERR_INTERN if the convertor unpacked fewer bytes.
 */
int zip_ompi_unpack(const void *src, size_t len, void *buf, size_t count,
                    const struct ompi_datatype_t *dtype);

/* ---- zip_ompi_codec.c: the codec spec in effect ---- */

/* The spec used when none is configured, and in place of one that MPI traffic cannot use. */
#define ZIP_OMPI_CODEC_DEFAULT "fast"

typedef enum zip_ompi_codec_status {
    ZIP_OMPI_CODEC_OK = 0,   /* spec is what was asked for, checked by the engine */
    ZIP_OMPI_CODEC_REFUSED,  /* asked names a codec MPI traffic cannot use (temporal); spec
                              * is ZIP_OMPI_CODEC_DEFAULT: the caller warns and goes on */
    ZIP_OMPI_CODEC_INVALID,  /* the engine rejects asked; spec is NULL */
    ZIP_OMPI_CODEC_NO_MEMORY /* spec (and maybe asked) is NULL */
} zip_ompi_codec_status_t;

typedef struct zip_ompi_codec {
    char *asked;        /* "<lossy>+<lossless>" or "<lossless>" as configured (malloc'd) */
    char *spec;         /* the spec to use (malloc'd), or NULL, see the status */
    const char *reason; /* unless OK: why asked is not used, for the caller's message. Static
                         * text, or the engine's zip_spec_error(), valid until this thread
                         * next creates a codec context */
} zip_ompi_codec_t;

/*
 * The codec spec for MPI messages of lossless codec `lossless` (NULL or "" means
 * ZIP_OMPI_CODEC_DEFAULT) behind the optional lossy stage `lossy` (NULL or "": none), checked by
 * creating a context of it. The temporal codec is refused: its frames refer to the previous
 * message of their stream, which the receivers of a collective do not share and pooled
 * contexts and wildcard receives cannot keep in step. If ctx is not NULL it receives the
 * context of the check (of out->spec) when there is one, else NULL; otherwise the context is
 * destroyed. Release *out with zip_ompi_codec_release.
 */
zip_ompi_codec_status_t zip_ompi_codec_resolve(const char *lossless, const char *lossy,
                                               zip_ompi_codec_t *out, zip_ctx_t **ctx);
void zip_ompi_codec_release(zip_ompi_codec_t *c);

/* ---- zip_ompi_threads.c: codec threads ---- */

/*
 * The codec threads to give a context when `param` (the MCA name, for the message) asks for
 * `asked`: above 1, no more than the CPUs this process may run on (its binding: more would
 * time-share them and code slower than one; codec_threads.h), said once per process and
 * component when capped. 1 or less comes back as asked (the engine refuses 0 and below).
 */
unsigned zip_ompi_codec_threads(const char *param, int asked);

/* Size classes of the "observe" counters of both components, by the payload judged. */
enum { ZIP_OMPI_SIZE_CLASSES = 3 };
static inline int zip_ompi_size_class(size_t bytes)
{
    return bytes < 65536 ? 0 : bytes < 1048576 ? 1 : 2;
}
static inline const char *zip_ompi_size_class_name(int size_class)
{
    static const char *const names[ZIP_OMPI_SIZE_CLASSES] = {"<64KiB", "64KiB-1MiB", ">=1MiB"};
    return size_class >= 0 && size_class < ZIP_OMPI_SIZE_CLASSES ? names[size_class] : "?";
}

/* The value of an on/off MPI_Info key of both components (zip_p2p, zip_coll): 1 for "true",
 * "yes" or "1", 0 for "false", "no" or "0" (either case), -1 for anything else (the key then
 * leaves the component's setting alone). */
static inline int zip_ompi_info_switch(const char *value)
{
    if (NULL == value) {
        return -1;
    }
    if (0 == strcasecmp(value, "true") || 0 == strcasecmp(value, "yes") ||
        0 == strcmp(value, "1")) {
        return 1;
    }
    if (0 == strcasecmp(value, "false") || 0 == strcasecmp(value, "no") ||
        0 == strcmp(value, "0")) {
        return 0;
    }
    return -1;
}

#ifdef __cplusplus
}
#endif

#endif /* ZIP_OMPI_H */
