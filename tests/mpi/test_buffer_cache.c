/*
 * coll_zip_buffer_cache bounds the working memory a process keeps between collective calls.
 * After an MPI_Allgather of 1 MiB of smooth doubles per rank (zip's ring stages frames in a
 * buffer of two blocks), every rank's MPI_T size coll_zip_buffer_cache_bytes is at most the
 * limit given as --limit N (the value of coll_zip_buffer_cache in the job), and with a limit
 * of 4 MiB or more something was kept. The gathered data are checked bit for bit.
 */
#include "zt_counters.h"

enum { DOUBLES = 131072 }; /* 1 MiB a block */

static unsigned long long cache_bytes(int rank)
{
    int index = -1, count = 0;
    unsigned long long value = 0;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle;
    MPI_T_pvar_session_create(&session);
    const int ok = MPI_SUCCESS == MPI_T_pvar_get_index("coll_zip_buffer_cache_bytes",
                                                       MPI_T_PVAR_CLASS_SIZE, &index) &&
                   MPI_SUCCESS == MPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count) &&
                   1 == count;
    zt_check(ok, "MPI_T size coll_zip_buffer_cache_bytes is missing", rank);
    if (ok) {
        MPI_T_pvar_read(session, handle, &value);
        MPI_T_pvar_handle_free(session, &handle);
    }
    MPI_T_pvar_session_free(&session);
    return value;
}

int main(int argc, char **argv)
{
    int rank, size;
    if (!zt_counters_init(&argc, &argv, "buffer_cache", &rank, &size))
        return 0;
    unsigned long long limit = 0;
    int have_limit = 0;
    for (int i = 1; i + 1 < argc; ++i) {
        if (0 == strcmp(argv[i], "--limit")) {
            limit = strtoull(argv[i + 1], NULL, 10);
            have_limit = 1;
        }
    }
    zt_check(have_limit, "usage: test_buffer_cache --limit BYTES [--require-zip]", rank);

    double *mine = malloc(DOUBLES * sizeof(double));
    double *all = malloc((size_t)DOUBLES * size * sizeof(double));
    zt_fill(mine, DOUBLES, ZT_SMOOTH, rank, 7);
    zt_call(MPI_Allgather(mine, DOUBLES, MPI_DOUBLE, all, DOUBLES, MPI_DOUBLE, MPI_COMM_WORLD),
            "MPI_Allgather", rank);
    for (int p = 0; p < size; ++p) {
        zt_checkf(zt_block_matches(all + (size_t)p * DOUBLES, 1, DOUBLES, ZT_SMOOTH, p, 7), rank,
                  "block of rank %d", p);
    }
    const unsigned long long kept = cache_bytes(rank);
    zt_checkf(kept <= limit, rank, "keeps %llu bytes, above coll_zip_buffer_cache %llu", kept,
              limit);
    if (limit >= (4u << 20)) {
        zt_checkf(kept > 0, rank, "keeps nothing under coll_zip_buffer_cache %llu", limit);
    }
    free(all);
    free(mine);
    MPI_T_finalize();
    return zt_finish("buffer_cache");
}
