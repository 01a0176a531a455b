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
    /* observe's two counters by size class (zip_ompi_size_class): _small, _medium, _large. */
    static const char *const classes[ZIP_OMPI_SIZE_CLASSES] = {"small", "medium", "large"};
    char name[64], desc[160];

    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        zip_coll_stats_t *s = &mca_coll_zip_component.op_stats[op];
        const char *row = mca_coll_zip_op_names[op], *call = mca_coll_zip_op_calls[op];
        for (size_t k = 0; k < zip_coll_stats_counter_count; ++k) {
            const zip_coll_stats_counter_t *c = &zip_coll_stats_counters[k];
            snprintf(name, sizeof(name), "%s_%s", row, c->name);
            snprintf(desc, sizeof(desc), "%s: %s", call, c->what);
            register_counter(name, desc, (char *)s + c->offset);
        }
        for (int k = 0; k < ZIP_OMPI_SIZE_CLASSES; ++k) {
            snprintf(name, sizeof(name), "%s_observe_calls_%s", row, classes[k]);
            snprintf(desc, sizeof(desc), "%s: observe_calls judged on a payload of %s", call,
                     zip_ompi_size_class_name(k));
            register_counter(name, desc, &s->observe_compressible_by_size[k]);
            snprintf(name, sizeof(name), "%s_observe_saving_ns_%s", row, classes[k]);
            snprintf(desc, sizeof(desc), "%s: observe_saving_ns of those", call);
            register_counter(name, desc, &s->observe_saving_ns_by_size[k]);
        }
    }
}
