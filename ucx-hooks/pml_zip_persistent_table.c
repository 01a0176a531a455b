/*
 * zip's records of the persistent requests it hands out as the wrapped PML's own (direct
 * persistent receives, pml_zip_direct.c; direct persistent sends, pml_zip_direct_send.c), found
 * by the request's address. Not in the request's callback data: a caller may put its own there
 * before each start (osc/pt2pt does). Under MPI_THREAD_MULTIPLE (persistent receives over ob1)
 * records come and go from any thread: a lock, which OPAL_THREAD_LOCK takes only then.
 */
#include "ompi_config.h"

#include <stdint.h>

#include "opal/class/opal_hash_table.h"
#include "opal/threads/mutex.h"

#include "pml_zip.h"

static opal_hash_table_t records;
static bool records_ready;
static opal_mutex_t records_lock = OPAL_MUTEX_STATIC_INIT;

static uint64_t key_of(const ompi_request_t *request)
{
    return (uint64_t)(uintptr_t)request;
}

bool mca_pml_zip_persistent_add(const ompi_request_t *request, void *record)
{
    OPAL_THREAD_LOCK(&records_lock);
    if (!records_ready) {
        OBJ_CONSTRUCT(&records, opal_hash_table_t);
        records_ready = OPAL_SUCCESS == opal_hash_table_init(&records, 64);
        if (!records_ready) {
            OBJ_DESTRUCT(&records);
        }
    }
    const bool added = records_ready && OPAL_SUCCESS == opal_hash_table_set_value_uint64(
                                                            &records, key_of(request), record);
    OPAL_THREAD_UNLOCK(&records_lock);
    return added;
}

void *mca_pml_zip_persistent_find(const ompi_request_t *request)
{
    void *record = NULL;
    OPAL_THREAD_LOCK(&records_lock);
    (void)opal_hash_table_get_value_uint64(&records, key_of(request), &record);
    OPAL_THREAD_UNLOCK(&records_lock);
    return record;
}

void mca_pml_zip_persistent_forget(const ompi_request_t *request)
{
    OPAL_THREAD_LOCK(&records_lock);
    (void)opal_hash_table_remove_value_uint64(&records, key_of(request));
    OPAL_THREAD_UNLOCK(&records_lock);
}

void mca_pml_zip_persistent_fini(void)
{
    if (records_ready) {
        OBJ_DESTRUCT(&records);
        records_ready = false;
    }
}
