// zip_gpu_loaded_from finds a library already loaded in the process by its soname, and loads
// nothing itself (common/gpu_runtime.h: what coll/zip and pml/zip ask before they touch data).
#include <gtest/gtest.h>

#include <dlfcn.h>

#include "gpu_runtime.h"

namespace
{

TEST(GpuRuntime, FindsALoadedLibraryBySoname)
{
    const char *const names[] = {"libno-such-gpu-runtime.so.7", "libc.so.6", nullptr};
    EXPECT_STREQ(zip_gpu_loaded_from(names), "libc.so.6");
}

TEST(GpuRuntime, LeavesALibraryThatIsNotLoadedUnloaded)
{
    // libbz2 is installed with the base system and linked into nothing of ours.
    const char *const names[] = {"libbz2.so.1.0", nullptr};
    void *installed = dlopen("libbz2.so.1.0", RTLD_LAZY | RTLD_NOLOAD);
    if (installed != nullptr) {
        dlclose(installed);
        GTEST_SKIP() << "libbz2 is already loaded in this process";
    }
    EXPECT_EQ(zip_gpu_loaded_from(names), nullptr);
    EXPECT_EQ(dlopen("libbz2.so.1.0", RTLD_LAZY | RTLD_NOLOAD), nullptr) << "it was loaded";
    void *opened = dlopen("libbz2.so.1.0", RTLD_LAZY);
    if (opened == nullptr)
        GTEST_SKIP() << "libbz2.so.1.0 is not installed";
    EXPECT_STREQ(zip_gpu_loaded_from(names), "libbz2.so.1.0");
    dlclose(opened);
}

TEST(GpuRuntime, TheUnitTestsRunWithoutAGpuDriver)
{
    // None of the drivers is linked into the tests, and nothing here loads one.
    EXPECT_EQ(zip_gpu_runtime_loaded(), nullptr);
}

} // namespace
