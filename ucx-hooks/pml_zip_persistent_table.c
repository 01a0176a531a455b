/*
 * zip's records of the persistent requests it hands out as the wrapped PML's own (direct
 * persistent receives, pml_zip_direct.c; direct persistent sends, pml_zip_direct_send.c), found
 * by the request's address. Not in the request's callback data: a caller may put its own there
 * before each start (osc/pt2pt does). Used only without MPI_THREAD_MULTIPLE: no lock.
 */
#include "ompi_config.h"

#include <stdint.h>

#include "opal/class/opal_hash_table.h"

#include "pml_zip.h"

static opal_hash_table_t records;
static bool records_ready;

static uint64_t key_of(const ompi_request_t *request)
{
    return (uint64_t)(uintptr_t)request;
}

bool mca_pml_zip_persistent_add(const ompi_request_t *request, void *record)
{
    if (!records_ready) {
        OBJ_CONSTRUCT(&records, opal_hash_table_t);
        records_ready = OPAL_SUCCESS == opal_hash_table_init(&records, 64);
        if (!records_ready) {
            OBJ_DESTRUCT(&records);
            return false;
        }
    }
    return OPAL_SUCCESS == opal_hash_table_set_value_uint64(&records, key_of(request), record);
}

void *mca_pml_zip_persistent_find(const ompi_request_t *request)
{
    void *record = NULL;
    (void)opal_hash_table_get_value_uint64(&records, key_of(request), &record);
    return record;
}

void mca_pml_zip_persistent_forget(const ompi_request_t *request)
{
    (void)opal_hash_table_remove_value_uint64(&records, key_of(request));
}

void mca_pml_zip_persistent_fini(void)
{
    if (records_ready) {
        OBJ_DESTRUCT(&records);
        records_ready = false;
    }
}
