/*
 * The statistics counters as MPI_T performance variables (read-only, continuous, no object):
 * coll_zip_<op>_<counter>, e.g. coll_zip_bcast_bytes_out, so that tools can read them while
 * the application runs without waiting for the summary at MPI_Finalize; and the working memory
 * kept between calls, coll_zip_buffer_cache_bytes.
 */
#include "ompi_config.h"

#include "opal/mca/base/mca_base_pvar.h"

#include "ompi/constants.h"
#include "coll_zip.h"

/* ctx: the counter in the component's table; its value as the summary would print it (calls
 * handed on count in calls, calls_fallback and their verdict's counter, coll_stats.h). */
static int read_counter(const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    (void)obj;
    const zip_coll_stats_t *table = mca_coll_zip_component.op_stats;
    const size_t at = (size_t)((const char *)pvar->ctx - (const char *)table);
    *(unsigned long long *)value = (unsigned long long)zip_coll_stats_read(
        &table[at / sizeof(zip_coll_stats_t)], at % sizeof(zip_coll_stats_t));
    return OMPI_SUCCESS;
}

static void register_counter(void *ctx, const char *name, const char *desc, uint64_t *counter)
{
    (void)ctx;
    (void)mca_base_component_pvar_register(
        &mca_coll_zip_component.super.collm_version, name, desc, OPAL_INFO_LVL_4,
        MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
        MCA_BASE_VAR_BIND_NO_OBJECT, MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS,
        read_counter, NULL, NULL, counter);
}

static int read_buffer_cache(const struct mca_base_pvar_t *pvar, void *value, void *obj)
{
    (void)pvar;
    (void)obj;
    *(unsigned long long *)value = (unsigned long long)zip_algo_buffer_cache_held();
    return OMPI_SUCCESS;
}

void mca_coll_zip_pvars_register(void)
{
    (void)mca_base_component_pvar_register(
        &mca_coll_zip_component.super.collm_version, "buffer_cache_bytes",
        "Bytes of working memory this process keeps between collective calls now (at most "
        "coll_zip_buffer_cache)",
        OPAL_INFO_LVL_4, MCA_BASE_PVAR_CLASS_SIZE, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, NULL,
        MCA_BASE_VAR_BIND_NO_OBJECT, MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS,
        read_buffer_cache, NULL, NULL, NULL);
    for (int op = 0; op < COLL_ZIP_OP_COUNT; ++op) {
        zip_coll_stats_each_counter(&mca_coll_zip_component.op_stats[op], zip_coll_op_names[op],
                                    zip_coll_op_calls[op], register_counter, NULL);
    }
}
