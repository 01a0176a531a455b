/*
 * How many codec threads (coll_zip_codec_threads, pml_zip_codec_threads) a process can use: no
 * more than the CPUs it may run on. mpirun binds each rank to a core by default on two ranks
 * (and users bind hybrid codes' ranks to their cores), and the codec's threads inherit the
 * binding: asked for two threads on one core, the two time-share it and code slower than one.
 * Without MPI (unit-tested in tests/unit/test_codec_threads.cpp).
 */
#ifndef ZIP_CODEC_THREADS_H
#define ZIP_CODEC_THREADS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The CPUs the calling thread may run on (its affinity mask); 0 if it cannot be read. */
unsigned zip_cpus_usable(void);

/* asked (>= 1) capped at cpus when cpus is known (> 0); at least 1. */
unsigned zip_codec_threads_for(unsigned asked, unsigned cpus);

#ifdef __cplusplus
}
#endif

#endif
