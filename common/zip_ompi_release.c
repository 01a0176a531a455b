/*
 * Both components' check of the Open MPI release they run under (ompi_release.h says why).
 * Only public MPI and OPAL output calls here: under another release these are what still
 * works as built. In a file of its own, like zip_ompi_threads.c, as it needs libzipcommon.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "opal/util/output.h"

#include "ompi_release.h"
#include "zip_ompi.h"

bool zip_ompi_release_ok(const char *component, const char *check_param, bool check, bool loud)
{
    const zip_ompi_release_t built = {OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, OMPI_RELEASE_VERSION};
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    zip_ompi_release_t running = {-1, -1, -1};
    /* Allowed before MPI_Init (MPI-3); the components check while MPI_Init opens them. */
    const bool known = MPI_SUCCESS == PMPI_Get_library_version(text, &len) &&
                       zip_ompi_release_parse(text, &running);
    if (known && zip_ompi_release_same(built, running))
        return true;
    if (!check)
        return true;
    /* Once per job: from rank 0 of MPI_COMM_WORLD (mpirun's environment), or from a process
     * that mpirun did not start (a singleton, ompi_info). */
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (loud && (NULL == rank || 0 == strcmp(rank, "0"))) {
        char *comma = strchr(text, ',');
        if (NULL != comma)
            *comma = '\0';
        opal_output(0,
                    "%s: built against Open MPI %d.%d.%d, but this is %s. zip reads Open MPI's "
                    "internal structures, which may differ between releases, so it stays out "
                    "of this run (MPI works as without zip). Rebuild and reinstall ompi-zip "
                    "against this Open MPI (docs/deployment.md), or set %s 0 to load it anyway",
                    component, built.major, built.minor, built.release,
                    known ? text : "an Open MPI whose release is unknown", check_param);
    }
    return false;
}
