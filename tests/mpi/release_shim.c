/*
 * Stands in for another Open MPI release (preloaded into the ranks by run-mpi-tests.sh and
 * run-p2p-tests.sh): PMPI_Get_library_version, which coll/zip and pml/zip read at registration,
 * answers with $ZIP_TEST_LIBRARY_VERSION, by default a 4.1 release that does not exist.
 */
#include <stdio.h>
#include <stdlib.h>

int PMPI_Get_library_version(char *version, int *resultlen)
{
    const char *text = getenv("ZIP_TEST_LIBRARY_VERSION");
    *resultlen = snprintf(version, 256, "%s",
                          NULL != text ? text : "Open MPI v4.1.99, package: release_shim");
    return 0;
}
