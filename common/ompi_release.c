#include "ompi_release.h"

#include <stdio.h>
#include <string.h>

bool zip_ompi_release_parse(const char *library_version, zip_ompi_release_t *out)
{
    static const char prefix[] = "Open MPI v";
    if (NULL == library_version || 0 != strncmp(library_version, prefix, sizeof prefix - 1))
        return false;
    zip_ompi_release_t r;
    int used = 0;
    if (3 != sscanf(library_version + sizeof prefix - 1, "%d.%d.%d%n", &r.major, &r.minor,
                    &r.release, &used) ||
        used <= 0 || r.major < 0 || r.minor < 0 || r.release < 0)
        return false;
    *out = r;
    return true;
}

bool zip_ompi_release_same(zip_ompi_release_t a, zip_ompi_release_t b)
{
    return a.major == b.major && a.minor == b.minor && a.release == b.release;
}
