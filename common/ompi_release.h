/*
 * Which Open MPI release a process runs under, from the text of MPI_Get_library_version, and
 * whether it is the one a component was built against (no MPI; unit-tested in
 * tests/unit/test_ompi_release.cpp).
 *
 * coll/zip and pml/zip are built against Open MPI's internal headers and read its internal
 * structures (communicators, datatypes, the PML and coll modules), whose layout is not promised
 * to stay the same from one release to the next. Open MPI itself loads any component whose MCA
 * interface version matches, whatever release it was built against, so the components check
 * the release themselves (zip_ompi_version.c).
 */
#ifndef ZIP_OMPI_RELEASE_H
#define ZIP_OMPI_RELEASE_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zip_ompi_release {
    int major, minor, release;
} zip_ompi_release_t;

/* Reads "Open MPI vMAJOR.MINOR.RELEASE..." (MPI_Get_library_version's text in Open MPI 1.7 to
 * 5.x; a suffix such as "rc2" or ", package: ..." may follow). Returns false, leaving *out as
 * it was, for any other text. */
bool zip_ompi_release_parse(const char *library_version, zip_ompi_release_t *out);

/* Whether two releases are the same one (major, minor and release). */
bool zip_ompi_release_same(zip_ompi_release_t a, zip_ompi_release_t b);

#ifdef __cplusplus
}
#endif

#endif /* ZIP_OMPI_RELEASE_H */
