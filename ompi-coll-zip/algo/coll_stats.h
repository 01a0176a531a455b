/*
 * coll/zip's statistics table: per collective, what zip did with this process's calls, the
 * summary printed at MPI_Finalize (coll_zip_stats 1) and the counters MPI_T shows. MPI-free:
 * the glue sums the tables over ranks and prints the lines.
 */
#ifndef ZIP_COLL_ALGO_COLL_STATS_H
#define ZIP_COLL_ALGO_COLL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "zip/zip.h"
#include "zip_ompi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-process counters of one collective; updated atomically because communicators on
 * different threads run collectives concurrently. All uint64_t: a table of them reduces over
 * ranks as one flat array. */
typedef struct zip_coll_stats {
    uint64_t calls;            /* calls that reached zip */
    uint64_t calls_fallback;   /* of those, handed on, or with only plain blocks */
    uint64_t calls_compressed; /* of those, sent or received at least one frame */
    uint64_t bytes_in;         /* raw bytes this process sent in zip's own path */
    uint64_t bytes_out;        /* bytes it actually sent */
    uint64_t codec_ns;         /* time spent compressing and decompressing */
    /* the policy */
    uint64_t calls_link_faster;    /* handed on: the link is faster than the codec could help */
    uint64_t calls_never;          /* handed on: policy never */
    uint64_t calls_incompressible; /* this process's sample said compressing would not pay */
    uint64_t calls_unagreed;       /* handed on: non-blocking, before the ranks agreed on speeds */
    uint64_t observe_compressible; /* policy observe: calls auto would have compressed here */
    uint64_t observe_saving_ns;    /* and the time the cost model predicts it would have saved */
    /* the same two by the size this process judged (zip_ompi_size_class) */
    uint64_t observe_compressible_by_size[ZIP_OMPI_SIZE_CLASSES];
    uint64_t observe_saving_ns_by_size[ZIP_OMPI_SIZE_CLASSES];
    /* Calls handed to the previous component, by the policy's verdict (ZIP_VERDICT_*): one
     * atomic add per such call (an atomic add costs ~20 ns here, a visible share of a small
     * call). Readers see them in calls, calls_fallback and the verdict's counter above
     * (zip_coll_stats_snapshot, zip_coll_stats_read); read directly they are not yet counted
     * there. */
    uint64_t handed_on[ZIP_VERDICT_COUNT];
} zip_coll_stats_t;

/* Counts one call; fallback and compressed are flags. */
void zip_coll_stats_add(zip_coll_stats_t *s, int fallback, int compressed, uint64_t bytes_in,
                        uint64_t bytes_out, uint64_t codec_ns);
/* Counts what the policy decided; observe_saving (seconds, 0: none) is judged on `bytes`. */
void zip_coll_stats_policy(zip_coll_stats_t *s, zip_verdict_t verdict, double observe_saving,
                           size_t bytes);
/* Counts a call handed to the previous component: a fallback, with the policy's verdict on it
 * (ZIP_VERDICT_TOO_SMALL and ZIP_VERDICT_COMPRESS count in no verdict's counter) and, when
 * observe_saving > 0, what observe predicts it would have saved (zip_coll_stats_policy). */
void zip_coll_stats_handed_on(zip_coll_stats_t *s, zip_verdict_t verdict, double observe_saving,
                              size_t bytes);
/* Reads n tables at once, each counter atomically, with the handed-on calls counted in calls,
 * calls_fallback and their verdicts' counters (and handed_on zero in the copy). */
void zip_coll_stats_snapshot(const zip_coll_stats_t *from, zip_coll_stats_t *to, size_t n);
/* The counter at byte offset `offset` of s as zip_coll_stats_snapshot would give it. */
uint64_t zip_coll_stats_read(const zip_coll_stats_t *s, size_t offset);

/* The summary of n collectives (names[i]: their rows), a line at a time to line(). */
typedef struct zip_coll_stats_header {
    const char *whose; /* "rank 3", "sum over all 8 ranks" */
    const char *codec;
    size_t threshold;
    const char *policy;
    zip_speeds_t speeds; /* as last agreed */
} zip_coll_stats_header_t;
void zip_coll_stats_print(const zip_coll_stats_t *t, const char *const *names, size_t n,
                          const zip_coll_stats_header_t *h, void (*line)(void *, const char *),
                          void *ctx);

/* The counters every collective has, by name (coll_zip_<op>_<name> in MPI_T), with what they
 * count and where they are; the by-size ones are left to the caller. */
typedef struct zip_coll_stats_counter {
    const char *name;
    const char *what;
    size_t offset;
} zip_coll_stats_counter_t;
extern const zip_coll_stats_counter_t zip_coll_stats_counters[];
extern const size_t zip_coll_stats_counter_count;
/* Every counter of s, the by-size ones included, with its MPI_T name (<row>_<counter>, e.g.
 * bcast_bytes_out, bcast_observe_calls_small) and description (call: what it counts), to fn. */
void zip_coll_stats_each_counter(zip_coll_stats_t *s, const char *row, const char *call,
                                 void (*fn)(void *ctx, const char *name, const char *desc,
                                            uint64_t *counter),
                                 void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ZIP_COLL_ALGO_COLL_STATS_H */
