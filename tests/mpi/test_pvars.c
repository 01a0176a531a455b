/*
 * The coll/zip counters are readable through MPI_T. Counters count from the moment their
 * handle is allocated (MPI_T counter semantics), so handles are made before a compressible
 * broadcast and read after it: one call, and at the root fewer bytes out than in.
 * Prints SKIP only when coll/zip is not loaded at all (and not --require-zip); a loaded zip
 * without these counters fails.
 */
#include "zt_common.h"

enum { CALLS, BYTES_IN, BYTES_OUT, NVARS };
static const char *const names[NVARS] = {"coll_zip_bcast_calls", "coll_zip_bcast_bytes_in",
                                         "coll_zip_bcast_bytes_out"};

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!zt_zip_counters_expected(argc, argv, "pvars")) {
        MPI_T_finalize();
        MPI_Finalize();
        return 0;
    }
    MPI_T_pvar_session session;
    MPI_T_pvar_session_create(&session);

    MPI_T_pvar_handle handle[NVARS];
    int have[NVARS], found = 1, all_found = 0;
    for (int v = 0; v < NVARS; ++v)
        found &= have[v] = zt_counter_handle(session, names[v], &handle[v], rank);
    MPI_Allreduce(&found, &all_found, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (all_found) {
        const int n = 200000;
        double *buf = malloc(n * sizeof(double));
        zt_fill(buf, n, ZT_SMOOTH, 0, 1);
        MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        free(buf);
        unsigned long long value[NVARS] = {0};
        for (int v = 0; v < NVARS; ++v)
            MPI_T_pvar_read(session, handle[v], &value[v]);
        zt_checkf(1 == value[CALLS], rank, "coll_zip_bcast_calls is %llu after one call",
                  value[CALLS]);
        if (0 == rank) {
            zt_checkf(value[BYTES_OUT] > 0 && value[BYTES_OUT] < value[BYTES_IN], rank,
                      "coll_zip_bcast_bytes_out %llu not below bytes_in %llu at the root",
                      value[BYTES_OUT], value[BYTES_IN]);
        }
    }
    for (int v = 0; v < NVARS; ++v)
        if (have[v])
            MPI_T_pvar_handle_free(session, &handle[v]);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize(); /* before MPI_Finalize: the other order crashes Open MPI 4.1.4 */
    return zt_finish("pvars");
}
