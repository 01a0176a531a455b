#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT_S */
#include "codec_threads.h"

#include <sched.h>
#include <stdlib.h>

unsigned zip_cpus_usable(void)
{
    /* Masks grow until the kernel's fits (machines of more than 1024 CPUs). */
    for (size_t ncpus = 1024; ncpus <= ((size_t)1 << 20); ncpus *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpus);
        if (NULL == set) {
            return 0;
        }
        const size_t bytes = CPU_ALLOC_SIZE(ncpus);
        CPU_ZERO_S(bytes, set);
        if (0 == sched_getaffinity(0, bytes, set)) {
            const int n = CPU_COUNT_S(bytes, set);
            CPU_FREE(set);
            return n > 0 ? (unsigned)n : 0;
        }
        CPU_FREE(set);
    }
    return 0;
}

unsigned zip_codec_threads_for(unsigned asked, unsigned cpus)
{
    unsigned n = asked < 1 ? 1 : asked;
    if (cpus > 0 && n > cpus) {
        n = cpus;
    }
    return n;
}
