/*
 * The statistics counters as MPI_T performance variables (read-only, continuous, no object):
 * coll_zip_<op>_<counter>, e.g. coll_zip_bcast_bytes_out, so that tools can read them while
 * the application runs without waiting for the summary at MPI_Finalize.
 */
#include "ompi_config.h"

#include <stddef.h>
#include <stdio.h>

#include "opal/mca/base/mca_base_pvar.h"

#include "ompi/constants.h"
#include "coll_zip.h"

static int read_counter(const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    (void)obj;
    *(unsigned long long *)value =
        (unsigned long long)__atomic_load_n((uint64_t *)pvar->ctx, __ATOMIC_RELAXED);
    return OMPI_SUCCESS;
}

static void register_counter(const char *name, const char *desc, void *counter)
{
    (void)mca_base_component_pvar_register(
        &mca_coll_zip_component.super.collm_version, name, desc, OPAL_INFO_LVL_4,
        MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
        MCA_BASE_VAR_BIND_NO_OBJECT, MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS,
        read_counter, NULL, NULL, counter);
}

void mca_coll_zip_pvars_register(void)
{
    const char *const *ops = mca_coll_zip_op_names;
    const char *const *calls = mca_coll_zip_op_calls;
    static const struct {
        const char *name;
        const char *what;
        size_t offset;
    } counters[] = {
        {"calls", "calls that reached coll/zip", offsetof(mca_coll_zip_op_stats_t, calls)},
        {"calls_fallback",
         "calls handed to the previous component, or whose blocks were all below the threshold",
         offsetof(mca_coll_zip_op_stats_t, calls_fallback)},
        {"calls_compressed", "calls in which this process sent or received a compressed frame",
         offsetof(mca_coll_zip_op_stats_t, calls_compressed)},
        {"bytes_in", "payload bytes this process sent through zip's path, before compression",
         offsetof(mca_coll_zip_op_stats_t, bytes_in)},
        {"bytes_out", "bytes this process actually sent through zip's path",
         offsetof(mca_coll_zip_op_stats_t, bytes_out)},
        {"codec_ns", "nanoseconds this process spent compressing and decompressing",
         offsetof(mca_coll_zip_op_stats_t, codec_ns)},
        {"calls_link_faster",
         "calls handed on because the link is faster than the codec could help (policy)",
         offsetof(mca_coll_zip_op_stats_t, calls_link_faster)},
        {"calls_never", "calls handed on because the policy is never",
         offsetof(mca_coll_zip_op_stats_t, calls_never)},
        {"calls_incompressible",
         "calls in which this process's sample said compression would "
         "not pay",
         offsetof(mca_coll_zip_op_stats_t, calls_incompressible)},
        {"observe_calls", "policy observe: calls in which auto would have compressed here",
         offsetof(mca_coll_zip_op_stats_t, observe_compressible)},
        {"observe_saving_ns", "policy observe: nanoseconds compression is predicted to have saved",
         offsetof(mca_coll_zip_op_stats_t, observe_saving_ns)},
    };
    /* observe's two counters by size class (zip_ompi_size_class): _small, _medium, _large. */
    static const char *const classes[ZIP_OMPI_SIZE_CLASSES] = {"small", "medium", "large"};
    char name[64], desc[160];

    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        mca_coll_zip_op_stats_t *s = &mca_coll_zip_component.op_stats[op];
        for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); ++k) {
            snprintf(name, sizeof(name), "%s_%s", ops[op], counters[k].name);
            snprintf(desc, sizeof(desc), "%s: %s", calls[op], counters[k].what);
            register_counter(name, desc, (char *)s + counters[k].offset);
        }
        for (int k = 0; k < ZIP_OMPI_SIZE_CLASSES; ++k) {
            snprintf(name, sizeof(name), "%s_observe_calls_%s", ops[op], classes[k]);
            snprintf(desc, sizeof(desc), "%s: observe_calls judged on a payload of %s", calls[op],
                     zip_ompi_size_class_name(k));
            register_counter(name, desc, &s->observe_compressible_by_size[k]);
            snprintf(name, sizeof(name), "%s_observe_saving_ns_%s", ops[op], classes[k]);
            snprintf(desc, sizeof(desc), "%s: observe_saving_ns of those", calls[op]);
            register_counter(name, desc, &s->observe_saving_ns_by_size[k]);
        }
    }
}
