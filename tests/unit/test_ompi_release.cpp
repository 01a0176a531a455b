// The Open MPI release a process runs under, read from MPI_Get_library_version's text, and the
// check that keeps coll/zip and pml/zip out of a release they were not built for
// (common/ompi_release.h).
#include <gtest/gtest.h>

#include "ompi_release.h"

namespace
{

TEST(OmpiRelease, ReadsTheReleaseOfOpenMpisLibraryVersionText)
{
    zip_ompi_release_t r{};
    ASSERT_TRUE(zip_ompi_release_parse("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, "
                                       "repo rev: v4.1.4, May 26, 2022",
                                       &r));
    EXPECT_EQ(4, r.major);
    EXPECT_EQ(1, r.minor);
    EXPECT_EQ(4, r.release);
    ASSERT_TRUE(zip_ompi_release_parse("Open MPI v5.0.10rc2, package: Open MPI", &r));
    EXPECT_EQ(5, r.major);
    EXPECT_EQ(0, r.minor);
    EXPECT_EQ(10, r.release);
}

TEST(OmpiRelease, RefusesOtherLibrariesAndIncompleteTextsLeavingTheResultAlone)
{
    const zip_ompi_release_t before{7, 8, 9};
    for (const char *text :
         {"MPICH Version: 4.0", "Open MPI", "Open MPI v", "Open MPI v4.1", "Open MPI v4.x.1",
          "open mpi v4.1.4", "Open MPI v-4.1.4", "Intel(R) MPI Library 2021", ""}) {
        zip_ompi_release_t r = before;
        EXPECT_FALSE(zip_ompi_release_parse(text, &r)) << text;
        EXPECT_TRUE(zip_ompi_release_same(before, r)) << text;
    }
    zip_ompi_release_t r = before;
    EXPECT_FALSE(zip_ompi_release_parse(nullptr, &r));
}

TEST(OmpiRelease, OnlyTheSameMajorMinorAndReleaseAreTheSame)
{
    const zip_ompi_release_t built{4, 1, 4};
    EXPECT_TRUE(zip_ompi_release_same(built, {4, 1, 4}));
    EXPECT_FALSE(zip_ompi_release_same(built, {4, 1, 6})); // a patch release may move fields
    EXPECT_FALSE(zip_ompi_release_same(built, {4, 0, 4}));
    EXPECT_FALSE(zip_ompi_release_same(built, {5, 1, 4}));
}

} // namespace
