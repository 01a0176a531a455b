/*
 * The codec speed coll/zip's policy decides with, taken from the communicator's own data.
 *
 * The ranks first agree on a speed measured on a synthetic field (zip_calibrate); real
 * application messages code 1.4-3.7x faster (docs/scale.md), so on links near the codec's
 * speed that first agreement hands on calls that compressing would speed up. Each rank keeps a
 * meter of what its codec did on the communicator's data (the blocking calls zip ran, and
 * samples of calls it handed on because the link looked faster), and at fixed blocking call
 * counts, the same on every rank, the ranks agree anew on the slowest speed any of them saw.
 * Routes and plans are then made again from the new speeds. MPI-free: the glue
 * (coll_zip_policy.c) does the reduction.
 *
 * A rank's speed is the median of its codec calls' speeds, weighted by their bytes, not their
 * mean: a call during which the rank lost its core (ranks that share cores; an interrupt)
 * reads many times slower, and one such call in a window would otherwise set the speed that
 * every rank decides with (netemu, 8 ranks on 2 cores: one window read 1.5 GB/s against
 * 2.9-3.6 in the windows around it, and the calls of the next 768 were handed on).
 */
#ifndef ZIP_COLL_ALGO_CODEC_METER_H
#define ZIP_COLL_ALGO_CODEC_METER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zip_algo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Speed classes of a quarter octave each, from 62.5 MB/s (the first also takes anything
 * slower, the last anything faster: up to 62.5 MB/s x 2^16 = 4 TB/s). */
#define ZIP_CODEC_METER_CLASSES 64

/* Per direction (0 compress, 1 decompress) and speed class, the raw bytes and the nanoseconds
 * of the codec calls whose speed fell in it since the window began (halved at each agreement,
 * so older calls weigh less). Updated with atomic adds. */
typedef struct zip_codec_meter {
    uint64_t bytes[2][ZIP_CODEC_METER_CLASSES];
    uint64_t ns[2][ZIP_CODEC_METER_CLASSES];
    uint64_t calls[2];
} zip_codec_meter_t;

/* A meter says nothing about a direction until it has seen this many raw bytes of it, the
 * smallest sample (coll_zip_threshold's default; a shorter run is timed too coarsely to stand
 * for the data), in this many codec calls: one call that lost its core for a scheduler's slice
 * would otherwise be the median (4 ranks on 2 cores: one rank's first call read 7-10 MB/s,
 * and the ranks agreed on that). */
#define ZIP_CODEC_METER_MIN_BYTES 16384
#define ZIP_CODEC_METER_MIN_CALLS 4

/* Counts one codec call: `bytes` raw bytes (compressed from, or decoded to) in `ns`. */
void zip_codec_meter_time(zip_codec_meter_t *m, int decompress, uint64_t bytes, uint64_t ns);

/*
 * Page faults are not the codec's speed. A codec call that writes fresh pages (a frame buffer
 * the cache of raw_buffer does not hold yet, an application buffer written for the first time)
 * pays their faults inside its time: 11 us a page on the project's VM, so the first calls of a
 * job read compression at 126-457 MB/s where the codec runs at 3-4 GB/s, the ranks agreed on
 * that at the 4th call, and auto handed on what compressing would have sped up. Around a call
 * that is checked, the process's minor page faults are read (getrusage, about a microsecond
 * each), and a call during which the process faulted is not counted. Checked: calls of
 * ZIP_CODEC_METER_CHECKED_FROM raw bytes and more (the check costs them about 1 %), and every
 * call while the meter holds fewer than ZIP_CODEC_METER_CHECKED_CALLS of its direction (a job's
 * first calls, when buffers are fresh). The faults are the process's (a codec thread writes
 * part of a frame too), so another thread's faults also leave a call out: the meter then says
 * less, and the speeds agreed before stand.
 */
#define ZIP_CODEC_METER_CHECKED_FROM ((uint64_t)1 << 20)
#define ZIP_CODEC_METER_CHECKED_CALLS 64
#define ZIP_CODEC_METER_UNCHECKED UINT64_MAX

/* Before a codec call of `bytes` raw bytes in direction dir: the process's minor faults so far
 * where the call is checked, else ZIP_CODEC_METER_UNCHECKED. */
uint64_t zip_codec_meter_faults_before(const zip_codec_meter_t *m, int decompress, uint64_t bytes);

/* After it: counts the call as zip_codec_meter_time does unless the process faulted since
 * `before` (from zip_codec_meter_faults_before). Returns whether it counted the call. */
bool zip_codec_meter_time_unfaulted(zip_codec_meter_t *m, int decompress, uint64_t bytes,
                                    uint64_t ns, uint64_t before);

/* Whether calls are checked at all (default true). For tests of what a sample counts, whose
 * fresh buffers fault where the allocator does not reuse memory at once (ASan's quarantine). */
void zip_codec_meter_check_faults(bool on);

/* This rank's share of the agreement: seconds per raw byte compressing and decompressing at
 * the meter's median speed class (the mean of the calls in it), 0 where it saw too little.
 * Reduced with MPI_MAX over the ranks this gives the slowest codec any rank saw, and 0 only
 * where no rank saw enough. */
void zip_codec_meter_mine(const zip_codec_meter_t *m, double mine[2]);

/* Takes the reduced values into the agreed speeds (a direction no rank measured keeps its
 * speed) and halves the meter for the next window. Returns whether a speed changed. */
bool zip_codec_meter_agreed(zip_codec_meter_t *m, const double all[2], zip_algo_agreed_t *speeds);

/* Whether the ranks agree anew at the n-th blocking call on a communicator (n from 1): at
 * 4, 16, 64 and so on while below `period`, then at every multiple of `period`; never with
 * period 0. The first ones come early so that a short run learns its data's speed; the
 * period bounds what the agreement costs (one small allreduce). */
bool zip_codec_meter_agree_at(uint64_t n, uint64_t period);

/* Whether the k-th call (from 1) handed on as "link faster" samples its data for the meter:
 * k = 1, 2, 4, 8 ...: a few at first, then ever fewer, so sampling costs nothing in the long
 * run; calls zip takes are timed anyway. */
bool zip_codec_meter_probe_at(uint64_t k);

/* Compresses the first 64 KiB (at most) of sample through codec (not bound to a meter), and
 * decodes the frame, twice, and counts each in m as if it had coded call_bytes (the call the
 * sample stands for) at the sample's speed. A call handed on is then judged by its own weight,
 * as a call zip took is: with 64 KiB it weighed 1/256 of a 16 MiB call that had compressed, and
 * a window of calls that coded slowly (first touch of zip's fresh buffers: 12 us a page on the
 * 2-core VM, 350 MB/s against 3-4.5 GB/s later) kept 16 MiB gathers raw for the rest of a
 * run. 0, or the codec's error. */
int zip_codec_meter_probe(zip_codec_meter_t *m, const zip_codec_ops_t *codec, int elem_type,
                          const void *sample, size_t sample_bytes, size_t call_bytes);

#ifdef __cplusplus
}
#endif

#endif
