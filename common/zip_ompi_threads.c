/*
 * The codec threads of both components' contexts, capped at the process's binding
 * (zip_ompi.h). In a file of its own, so that a program that links libzipompi.a without
 * libzipcommon (tests/mpi/test_zip_ompi.c) does not pull it in.
 */
#include <stdbool.h>

#include "opal/util/output.h"

#include "codec_threads.h"
#include "zip_ompi.h"

unsigned zip_ompi_codec_threads(const char *param, int asked)
{
    static bool capped_reported = false;
    if (asked <= 1) {
        return (unsigned)asked;
    }
    const unsigned cpus = zip_cpus_usable();
    const unsigned threads = zip_codec_threads_for((unsigned)asked, cpus);
    if (threads < (unsigned)asked && !capped_reported) {
        capped_reported = true;
        opal_output(0,
                    "%s %d: this process may run on %u CPU(s) (its binding; mpirun --map-by "
                    "...:PE=N gives a rank N cores); using %u codec thread(s)",
                    param, asked, cpus, threads);
    }
    return threads;
}
