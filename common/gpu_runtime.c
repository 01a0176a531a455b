#include "gpu_runtime.h"

#include <dlfcn.h>
#include <stddef.h>

const char *const zip_gpu_runtime_sonames[] = {"libcuda.so.1", "libhsa-runtime64.so.1",
                                               "libze_loader.so.1", NULL};

const char *zip_gpu_loaded_from(const char *const *sonames)
{
    for (size_t i = 0; NULL != sonames[i]; ++i) {
        void *h = dlopen(sonames[i], RTLD_LAZY | RTLD_NOLOAD);
        if (NULL != h) {
            dlclose(h); /* drops only the reference RTLD_NOLOAD took */
            return sonames[i];
        }
    }
    return NULL;
}

const char *zip_gpu_runtime_loaded(void)
{
    return zip_gpu_loaded_from(zip_gpu_runtime_sonames);
}
