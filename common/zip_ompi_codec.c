/*
 * The codec spec in effect for MPI messages: built from the components' parameters, refused
 * when it names a codec MPI traffic cannot use, and checked by the engine. The components
 * print their own messages (coll/zip through its help file, pml/zip to its output).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zip_ompi.h"

static bool is_set(const char *s)
{
    return NULL != s && '\0' != s[0];
}

/* "<lossy>+<lossless>", or "<lossless>" without a lossy stage. */
static char *join_spec(const char *lossless, const char *lossy)
{
    const char *codec = is_set(lossless) ? lossless : ZIP_OMPI_CODEC_DEFAULT;
    if (!is_set(lossy)) {
        return strdup(codec);
    }
    const size_t len = strlen(lossy) + 1 + strlen(codec) + 1;
    char *spec = malloc(len);
    if (NULL != spec) {
        snprintf(spec, len, "%s+%s", lossy, codec);
    }
    return spec;
}

/* A context of spec: OK, or INVALID / NO_MEMORY with the engine's reason. */
static zip_ompi_codec_status_t check(const char *spec, zip_ompi_codec_t *out, zip_ctx_t **ctx)
{
    zip_status_t st = ZIP_OK;
    zip_ctx_t *made = zip_ctx_create(spec, &st);
    if (NULL == made) {
        out->reason = zip_spec_error();
        return ZIP_E_NOMEM == st ? ZIP_OMPI_CODEC_NO_MEMORY : ZIP_OMPI_CODEC_INVALID;
    }
    if (NULL != ctx) {
        *ctx = made;
    } else {
        zip_ctx_destroy(made);
    }
    return ZIP_OMPI_CODEC_OK;
}

zip_ompi_codec_status_t zip_ompi_codec_resolve(const char *lossless, const char *lossy,
                                               zip_ompi_codec_t *out, zip_ctx_t **ctx)
{
    out->asked = join_spec(lossless, lossy);
    out->spec = NULL;
    out->reason = NULL;
    if (NULL != ctx) {
        *ctx = NULL;
    }
    if (NULL == out->asked) {
        out->reason = "out of memory";
        return ZIP_OMPI_CODEC_NO_MEMORY;
    }
    zip_ompi_codec_status_t status = ZIP_OMPI_CODEC_OK;
    const char *use = out->asked;
    /* Before the engine's check: a spec naming temporal is refused even if it is malformed. */
    if (NULL != strstr(out->asked, "temporal")) {
        status = ZIP_OMPI_CODEC_REFUSED;
        use = ZIP_OMPI_CODEC_DEFAULT;
    }
    const zip_ompi_codec_status_t checked = check(use, out, ctx);
    if (ZIP_OMPI_CODEC_OK != checked) {
        return checked;
    }
    out->spec = strdup(use);
    if (NULL == out->spec) {
        if (NULL != ctx) {
            zip_ctx_destroy(*ctx);
            *ctx = NULL;
        }
        out->reason = "out of memory";
        return ZIP_OMPI_CODEC_NO_MEMORY;
    }
    if (ZIP_OMPI_CODEC_REFUSED == status) {
        out->reason = "the temporal codec encodes each message against the previous one of its "
                      "stream, which MPI receivers do not share (a collective's receivers, a "
                      "wildcard receive, pooled codec contexts)";
    }
    return status;
}

void zip_ompi_codec_release(zip_ompi_codec_t *c)
{
    free(c->asked);
    free(c->spec);
    c->asked = NULL;
    c->spec = NULL;
    c->reason = NULL;
}
