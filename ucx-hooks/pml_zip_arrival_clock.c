/*
 * Timing payloads received through requests (MPI_Irecv, MPI_Sendrecv, persistent receives), so
 * that codes whose messages arrive that way also give pml/zip a link rate.
 *
 * Payloads in flight at once share the link: timing each alone would read a burst of 16 as a
 * link 16 times slower than it is, and zip would compress where it loses. So what is timed is
 * a busy period per peer class: from the first payload receive posted while none of the class
 * was in flight to the progress poll that sees the last one complete, with the bytes of all of
 * them. Between the two, every poll of zip's progress records the time since the previous
 * one. The period counts only if no gap exceeds ZIP_ARRIVAL_MAX_GAP_SHARE of it and the gaps
 * longer than ZIP_ARRIVAL_STALL add up to no more than that share: then each completion was
 * seen promptly and no transfer was held up by this process being elsewhere. A receive posted
 * before a computation and waited for after it has one gap as long as the computation; one
 * tested now and then during a computation (a transport that moves data only when polled then
 * moves it at the rate of the tests) has many long ones; a process the OS put aside under
 * oversubscription has them too. A payload a transport moves within one poll (a single copy on
 * shared memory, a whole socket buffer read at once) is one gap as long as the period. None of
 * those counts. Dropping a period only leaves the link unknown (zip sends raw), where keeping a
 * too-long one would make a fast link look slow and zip compress where it loses.
 */
#include "ompi_config.h"

#include "opal/sys/atomic.h"
#include "opal/util/output.h"

#include "pml_zip.h"

/* Above a quarter of the period, a gap could have held up the transfers by more than the 2x
 * that the warm-up and smoothing of the estimator absorb. */
#define ZIP_ARRIVAL_MAX_GAP_SHARE 0.25
/* Longer than a poll of a waiting process takes (microseconds to tens of them, a segment read
 * from a socket included; up to 100-150 us on a loaded 2-core machine), shorter than a time
 * slice of the OS or a compute phase between two MPI_Test calls. */
#define ZIP_ARRIVAL_STALL 200e-6

typedef struct {
    int in_flight;    /* payloads of the class posted and not yet complete */
    bool spoiled;     /* one of them failed: the period is not timed */
    double start;     /* the first one's post */
    double last_poll; /* the latest poll in the period */
    double max_gap;   /* the longest time between two polls */
    double stalled;   /* the sum of the gaps longer than ZIP_ARRIVAL_STALL */
    double end;       /* the latest completion seen */
    size_t bytes;     /* as they travelled */
} busy_period_t;

static busy_period_t period[2];
static opal_mutex_t period_lock = OPAL_MUTEX_STATIC_INIT;
volatile int32_t mca_pml_zip_arrivals_in_flight;

void mca_pml_zip_arrival_begin(int peer_class)
{
    busy_period_t *p = &period[peer_class];
    OPAL_THREAD_LOCK(&period_lock);
    if (0 == p->in_flight++) {
        const double now = mca_pml_zip_now();
        *p = (busy_period_t){.in_flight = 1, .start = now, .last_poll = now, .end = now};
    }
    OPAL_THREAD_UNLOCK(&period_lock);
    opal_atomic_add_fetch_32(&mca_pml_zip_arrivals_in_flight, 1);
}

void mca_pml_zip_arrival_poll(double now)
{
    OPAL_THREAD_LOCK(&period_lock);
    for (int c = 0; c < 2; ++c) {
        busy_period_t *p = &period[c];
        if (p->in_flight > 0 && now > p->last_poll) {
            const double gap = now - p->last_poll;
            if (gap > p->max_gap) {
                p->max_gap = gap;
            }
            if (gap > ZIP_ARRIVAL_STALL) {
                p->stalled += gap;
            }
            p->last_poll = now;
        }
    }
    OPAL_THREAD_UNLOCK(&period_lock);
}

void mca_pml_zip_arrival_end(int peer_class, size_t bytes, double seen, bool failed)
{
    busy_period_t *p = &period[peer_class];
    opal_atomic_add_fetch_32(&mca_pml_zip_arrivals_in_flight, -1);
    OPAL_THREAD_LOCK(&period_lock);
    p->bytes += bytes;
    p->spoiled |= failed;
    if (seen > p->end) {
        p->end = seen;
    }
    const bool closed = 0 == --p->in_flight;
    const busy_period_t done = *p;
    OPAL_THREAD_UNLOCK(&period_lock);
    if (!closed) {
        return;
    }
    const double seconds = done.end - done.start;
    const double limit = ZIP_ARRIVAL_MAX_GAP_SHARE * seconds;
    const bool kept =
        !done.spoiled && seconds > 0.0 && done.max_gap <= limit && done.stalled <= limit;
    opal_output_verbose(10, mca_pml_zip_component.output,
                        "pml:zip: %zu bytes arrived through requests in %.1f us, longest gap "
                        "between polls %.1f us, stalled %.1f us: %s",
                        done.bytes, 1e6 * seconds, 1e6 * done.max_gap, 1e6 * done.stalled,
                        kept ? "timed" : "not timed");
    if (kept) {
        mca_pml_zip_observe_arrival(peer_class, done.bytes, seconds);
    }
}
