/*
 * MPI point-to-point rules that an interposed PML (pml/zip) must keep, each case as the MPI
 * standard states it and as stock Open MPI (ob1, ucx) behaves:
 *
 *   probe_ssend       a probe does not complete a synchronous send (to self and across ranks)
 *   probe_order       probing a later message does not let it overtake an earlier one
 *   probe_order_long  the same with bare messages (raw, 4-64 KiB: no zip header) queued ahead
 *                     of the probed one, received by plain, nonblocking and matched receives
 *   recv_untouched    a message shorter than the receive buffer changes its own bytes only,
 *                     whatever zip's first message covered (sizes 0-4033, every send mode)
 *   c2f_reuse         requests given Fortran handles (MPI_Request_c2f) give them back when
 *                     freed: the handles of 200 successive requests stay few
 *   status_error      probes, matched probes, MPI_Mrecv leave status.MPI_ERROR alone
 *   type_mismatch     doubles received as MPI_BYTE / MPI_PACKED, packed doubles received as
 *                     doubles or derived types of doubles (across ranks and on MPI_COMM_SELF)
 *   info_in_flight    MPI_Comm_set_info while a message is in flight does not change it
 *   truncate          a too small receive gives MPI_ERR_TRUNCATE and the program goes on
 *   sendrecv_replace  MPI_Sendrecv_replace of doubles, also doubles that look like a zip header
 *   zero_length       zero-length messages received with other types and larger buffers
 *   iprobe_local      MPI_Iprobe returns at once while the sender is outside MPI
 *   shared_buffer     active receives that share one buffer (erroneous: MPI leaves its bytes
 *                     undefined) still all complete, each with its own message's status, and the
 *                     buffer ends up holding one of the messages (persistent receives and
 *                     MPI_Irecv, started while every message is already waiting)
 *
 * Usage: p2p_semantics [case...] (every case without arguments). Runs on 2 or more ranks; ranks
 * 0 and 1 talk, the others only take part in the collective calls.
 */
#include <stdarg.h>

#include "p2p_cases.h"

#define LARGE 300000
#define SENTINEL_ERROR 12345
#define TAG 123

/* pt_check with a formatted description. */
static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pt_check(ok, what);
}

static double *dalloc(size_t n)
{
    double *p = malloc((n ? n : 1) * sizeof(double));
    if (NULL == p)
        abort();
    return p;
}

/* n doubles of smooth (compressible) data, different for every k. */
static void smooth(double *x, size_t n, int k)
{
    pt_fill_f64(x, n, 2 * (uint64_t)k);
}

static int count_of(const MPI_Status *st, MPI_Datatype t)
{
    int c = -12345;
    MPI_Get_count(st, t, &c);
    return c;
}

static MPI_Comm dup_world(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    return c;
}

/* ------------------------------------------------------------------------------------------ */
/* 1. A probe must not complete a synchronous send: only the matching receive does. */

struct ssend_kind {
    const char *name;
    int is_double;
    int count;
};
static const struct ssend_kind ssend_kinds[] = {
    {"0 bytes", 0, 0}, {"4096 doubles", 1, 4096}, {"300000 doubles", 1, LARGE}};

static void probe_ssend(void)
{
    MPI_Comm c = dup_world(), sig = dup_world();
    for (size_t k = 0; k < sizeof ssend_kinds / sizeof ssend_kinds[0]; ++k) {
        const char *name = ssend_kinds[k].name;
        const int n = ssend_kinds[k].count;
        MPI_Datatype t = ssend_kinds[k].is_double ? MPI_DOUBLE : MPI_BYTE;
        const size_t bytes = ssend_kinds[k].is_double ? n * sizeof(double) : (size_t)n;
        double *s = dalloc(n), *r = dalloc(n);
        smooth(s, n, (int)k + 1);
        MPI_Request req;
        MPI_Status st;

        /* To self: Issend, Probe, the Issend is still pending, Recv, now it completes. */
        pt_call(MPI_Issend(s, n, t, pt_rank, TAG, c, &req), "issend to self");
        pt_call(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st), "probe");
        check(st.MPI_SOURCE == pt_rank && st.MPI_TAG == TAG && count_of(&st, t) == n,
              "self, %s: probe status", name);
        check(!pt_test_for(&req, 0.02, MPI_STATUS_IGNORE),
              "self, %s: Issend not complete after a probe, before any receive", name);
        memset(r, 0, n ? bytes : 1);
        pt_call(MPI_Recv(r, n, t, pt_rank, TAG, c, &st), "recv from self");
        check(count_of(&st, t) == n && pt_same(r, s, bytes), "self, %s: data", name);
        int done = pt_test_for(&req, 1.0, MPI_STATUS_IGNORE);
        check(done, "self, %s: Issend completes after the receive", name);

        /* Across ranks: rank 1 probes, tells rank 0, rank 0 sees its Issend still pending. */
        MPI_Barrier(MPI_COMM_WORLD);
        if (0 == pt_rank) {
            pt_call(MPI_Issend(s, n, t, 1, TAG, c, &req), "issend");
            pt_call(MPI_Recv(NULL, 0, MPI_INT, 1, 1, sig, MPI_STATUS_IGNORE), "recv signal");
            check(!pt_test_for(&req, 0.02, MPI_STATUS_IGNORE),
                  "rank 0 -> 1, %s: Issend not complete after the peer's probe", name);
            pt_call(MPI_Send(NULL, 0, MPI_INT, 1, 2, sig), "send go");
            done &= pt_test_for(&req, 1.0, MPI_STATUS_IGNORE);
            check(done, "rank 0 -> 1, %s: Issend completes after the receive", name);
        } else if (1 == pt_rank) {
            pt_call(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st), "probe");
            check(st.MPI_SOURCE == 0 && st.MPI_TAG == TAG && count_of(&st, t) == n,
                  "rank 0 -> 1, %s: probe status", name);
            pt_call(MPI_Send(NULL, 0, MPI_INT, 0, 1, sig), "send signal");
            pt_call(MPI_Recv(NULL, 0, MPI_INT, 0, 2, sig, MPI_STATUS_IGNORE), "recv go");
            memset(r, 0, n ? bytes : 1);
            pt_call(MPI_Recv(r, n, t, 0, TAG, c, &st), "recv");
            check(count_of(&st, t) == n && pt_same(r, s, bytes), "rank 0 -> 1, %s: data", name);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (done) /* else the send may still read it */
            free(s);
        free(r);
    }
    MPI_Comm_free(&c);
    MPI_Comm_free(&sig);
}

/* ------------------------------------------------------------------------------------------ */
/* 2. Probing (or iprobing) the second message from a sender must not let it overtake the first:
 * a receive with MPI_ANY_TAG still gets the first. The first is doubles or ints (then received
 * with an int receive, which the double message would truncate). */

static void probe_order(void)
{
    static const int sizes[] = {500, LARGE};
    MPI_Comm c = dup_world();
    int *ia = malloc(LARGE * sizeof(int)), *ir = malloc(LARGE * sizeof(int));
    double *da = dalloc(LARGE), *db = dalloc(LARGE), *dr = dalloc(LARGE);
    for (int si = 0; si < 2; ++si) {
        const int n = sizes[si];
        for (int variant = 0; variant < 8; ++variant) {
            const int a_int = variant & 1, use_iprobe = (variant >> 1) & 1,
                      persistent = (variant >> 2) & 1;
            char name[96];
            snprintf(name, sizeof name, "%d, first %s, %s, %s receive", n,
                     a_int ? "ints" : "doubles", use_iprobe ? "iprobe" : "probe",
                     persistent ? "persistent" : "plain");
            MPI_Datatype at = a_int ? MPI_INT : MPI_DOUBLE;
            void *abuf = a_int ? (void *)ia : (void *)da, *arecv = a_int ? (void *)ir : (void *)dr;
            const size_t abytes = n * (a_int ? sizeof(int) : sizeof(double));
            for (int i = 0; i < n; ++i)
                ia[i] = 7 * i + variant;
            smooth(da, n, 10 + variant);
            smooth(db, n, 30 + variant);
            MPI_Barrier(MPI_COMM_WORLD);
            if (0 == pt_rank) {
                MPI_Request rq[2];
                pt_call(MPI_Isend(abuf, n, at, 1, 1, c, &rq[0]), "isend tag 1");
                pt_call(MPI_Isend(db, n, MPI_DOUBLE, 1, 2, c, &rq[1]), "isend tag 2");
                pt_call(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), "waitall");
            } else if (1 == pt_rank) {
                MPI_Status st;
                if (use_iprobe) {
                    int flag = 0;
                    while (!flag)
                        pt_call(MPI_Iprobe(0, 2, c, &flag, &st), "iprobe tag 2");
                } else {
                    pt_call(MPI_Probe(0, 2, c, &st), "probe tag 2");
                }
                check(st.MPI_TAG == 2 && count_of(&st, MPI_DOUBLE) == n, "%s: probe status", name);
                MPI_Request pa = MPI_REQUEST_NULL, pb = MPI_REQUEST_NULL;
                if (persistent) {
                    pt_call(MPI_Recv_init(arecv, n, at, 0, MPI_ANY_TAG, c, &pa), "recv_init");
                    pt_call(MPI_Recv_init(dr, n, MPI_DOUBLE, 0, MPI_ANY_TAG, c, &pb), "recv_init");
                }
                /* First receive: the tag-1 message, whatever was probed. */
                memset(arecv, 0, abytes);
                int rc;
                if (persistent) {
                    pt_call(MPI_Start(&pa), "start");
                    rc = MPI_Wait(&pa, &st);
                } else {
                    rc = MPI_Recv(arecv, n, at, 0, MPI_ANY_TAG, c, &st);
                }
                check(MPI_SUCCESS == rc, "%s: first ANY_TAG receive succeeds (rc %d)", name, rc);
                check(st.MPI_TAG == 1, "%s: first ANY_TAG receive gets tag 1, not %d", name,
                      st.MPI_TAG);
                check(count_of(&st, at) == n && pt_same(arecv, abuf, abytes),
                      "%s: first message's count and data", name);
                /* Second: the probed tag-2 message. */
                memset(dr, 0, n * sizeof(double));
                if (persistent) {
                    pt_call(MPI_Start(&pb), "start");
                    rc = MPI_Wait(&pb, &st);
                } else {
                    rc = MPI_Recv(dr, n, MPI_DOUBLE, 0, MPI_ANY_TAG, c, &st);
                }
                check(MPI_SUCCESS == rc && st.MPI_TAG == 2, "%s: second receive gets tag 2", name);
                check(count_of(&st, MPI_DOUBLE) == n && pt_same(dr, db, n * sizeof(double)),
                      "%s: second message's count and data", name);
                if (persistent) {
                    MPI_Request_free(&pa);
                    MPI_Request_free(&pb);
                }
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(ia);
    free(ir);
    free(da);
    free(db);
    free(dr);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 2b. Rank 0 sends A (tag 1, bytes: raw whatever zip's policy, so a bare message from 4 KiB to
 * pml_zip_bare_max), then B (tag 2, synchronous: always an envelope), then C (tag 1, like
 * A). Rank 1 probes for B first, which pulls B's envelope out of the wrapped PML and A with it;
 * every later receive must still see A, B, C in MPI's order, and their data. */

static const char *const long_ways[] = {"recv", "irecv", "mprobe+mrecv", "improbe+imrecv"};

/* Receives one message of (0, tag) on c into r (at most cap bytes) the given way. */
static int recv_long_way(MPI_Comm c, int way, int tag, unsigned char *r, int cap, MPI_Status *st)
{
    MPI_Request rq;
    MPI_Message msg;
    int flag = 0;
    switch (way) {
    case 0:
        return MPI_Recv(r, cap, MPI_BYTE, 0, tag, c, st);
    case 1:
        pt_call(MPI_Irecv(r, cap, MPI_BYTE, 0, tag, c, &rq), "irecv");
        return MPI_Wait(&rq, st);
    case 2:
        pt_call(MPI_Mprobe(0, tag, c, &msg, st), "mprobe");
        return MPI_Mrecv(r, cap, MPI_BYTE, &msg, st);
    default:
        while (!flag)
            pt_call(MPI_Improbe(0, tag, c, &flag, &msg, st), "improbe");
        pt_call(MPI_Imrecv(r, cap, MPI_BYTE, &msg, &rq), "imrecv");
        return MPI_Wait(&rq, st);
    }
}

static void probe_order_long(void)
{
    static const int sizes[] = {5000, 20000, 65536};
    enum { MAXB = 65536 };
    MPI_Comm c = dup_world();
    unsigned char *a = malloc(MAXB), *cc = malloc(MAXB), *r = malloc(MAXB + 64);
    double *b = dalloc(4096), *rb = dalloc(4096);
    for (int si = 0; si < 3; ++si) {
        const int n = sizes[si];
        for (int way = 0; way < 4; ++way) {
            char name[96];
            snprintf(name, sizeof name, "%d bytes, %s", n, long_ways[way]);
            for (int i = 0; i < n; ++i) {
                a[i] = (unsigned char)(31 * i + 7 * way + si);
                cc[i] = (unsigned char)(17 * i + 3 * way + si + 1);
            }
            smooth(b, 4096, 200 + 4 * si + way);
            MPI_Barrier(MPI_COMM_WORLD);
            if (0 == pt_rank) {
                MPI_Request rq[3];
                pt_call(MPI_Isend(a, n, MPI_BYTE, 1, 1, c, &rq[0]), "isend A");
                pt_call(MPI_Issend(b, 4096, MPI_DOUBLE, 1, 2, c, &rq[1]), "issend B");
                pt_call(MPI_Isend(cc, n, MPI_BYTE, 1, 1, c, &rq[2]), "isend C");
                pt_call(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE), "waitall");
            } else if (1 == pt_rank) {
                MPI_Status st;
                pt_call(MPI_Probe(0, 2, c, &st), "probe tag 2");
                check(st.MPI_TAG == 2 && count_of(&st, MPI_DOUBLE) == 4096, "%s: probe of B", name);
                int flag = 0;
                pt_call(MPI_Iprobe(0, MPI_ANY_TAG, c, &flag, &st), "iprobe any tag");
                check(flag && st.MPI_TAG == 1 && count_of(&st, MPI_BYTE) == n,
                      "%s: a probe of any tag sees A (flag %d, tag %d, count %d)", name, flag,
                      st.MPI_TAG, count_of(&st, MPI_BYTE));
                memset(r, 0, n + 64);
                int rc = recv_long_way(c, way, MPI_ANY_TAG, r, n + 64, &st);
                check(MPI_SUCCESS == rc && st.MPI_TAG == 1 && count_of(&st, MPI_BYTE) == n &&
                          pt_same(r, a, n),
                      "%s: the first receive of any tag gets A whole (rc %d, tag %d, count %d)",
                      name, rc, st.MPI_TAG, count_of(&st, MPI_BYTE));
                memset(rb, 0, 4096 * sizeof(double));
                rc = MPI_Recv(rb, 4096, MPI_DOUBLE, 0, MPI_ANY_TAG, c, &st);
                check(MPI_SUCCESS == rc && st.MPI_TAG == 2 && pt_same(rb, b, 4096 * sizeof(double)),
                      "%s: the second gets B (tag %d)", name, st.MPI_TAG);
                memset(r, 0, n + 64);
                rc = recv_long_way(c, way, 1, r, n + 64, &st);
                check(MPI_SUCCESS == rc && count_of(&st, MPI_BYTE) == n && pt_same(r, cc, n),
                      "%s: the third gets C whole", name);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(a);
    free(cc);
    free(r);
    free(b);
    free(rb);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 2c. pml/zip receives a first message straight into a contiguous buffer of 14 bytes or more;
 * an envelope (14 bytes) lands there too before zip puts back what it covered. Smaller buffers
 * receive through a landing buffer. MPI allows a receive to change only the bytes of the
 * message it delivers: the rest of the buffer, and the memory after it, must keep what they
 * held. Sizes around the envelope / bare boundaries and the old 4 KiB inline limit, standard
 * and synchronous sends, blocking and nonblocking receives, into an 8 KiB buffer and into
 * buffers of 1-16 bytes. */

static void recv_untouched(void)
{
    static const int sizes[] = {0, 1, 13, 14, 15, 16, 17, 100, 4000, 4016, 4017, 4032, 4033, 6000};
    static const int small_caps[] = {1, 8, 13, 14, 15, 16};
    enum { CAP = 8192, FILL = 0xAB, N_SIZES = sizeof sizes / sizeof sizes[0] };
    MPI_Comm c = dup_world();
    unsigned char *sbuf = malloc(CAP), *rbuf = malloc(CAP);
    for (int i = 0; i < CAP; ++i)
        sbuf[i] = (unsigned char)(i * 7 + 1);
    /* (size, receive count) pairs: every size into CAP, then every size that fits each small
     * buffer. */
    for (size_t k = 0; k < N_SIZES * (1 + sizeof small_caps / sizeof small_caps[0]); ++k) {
        const int n = sizes[k % N_SIZES], cap = k < N_SIZES ? CAP : small_caps[k / N_SIZES - 1];
        if (n > cap)
            continue;
        for (int way = 0; way < 4; ++way) {
            const int sync = way & 1, nonblocking = way >> 1;
            if (0 == pt_rank) {
                if (sync)
                    pt_call(MPI_Ssend(sbuf, n, MPI_BYTE, 1, 9, c), "ssend");
                else
                    pt_call(MPI_Send(sbuf, n, MPI_BYTE, 1, 9, c), "send");
            } else if (1 == pt_rank) {
                memset(rbuf, FILL, CAP);
                MPI_Status st;
                int rc;
                if (nonblocking) {
                    MPI_Request rq;
                    pt_call(MPI_Irecv(rbuf, cap, MPI_BYTE, 0, 9, c, &rq), "irecv");
                    rc = MPI_Wait(&rq, &st);
                } else {
                    rc = MPI_Recv(rbuf, cap, MPI_BYTE, 0, 9, c, &st);
                }
                int untouched = 1;
                for (int i = n; i < CAP; ++i)
                    untouched &= FILL == rbuf[i];
                check(MPI_SUCCESS == rc && count_of(&st, MPI_BYTE) == n && pt_same(rbuf, sbuf, n) &&
                          untouched,
                      "%d bytes, %s send, %s receive of %d: its bytes, the rest of the buffer as "
                      "it was (rc %d, count %d)",
                      n, sync ? "synchronous" : "standard",
                      nonblocking ? "nonblocking" : "blocking", cap, rc, count_of(&st, MPI_BYTE));
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 2d. A Fortran program's every request gets a Fortran handle (MPI_Request_c2f: a slot in Open
 * MPI's f2c table), which the request must give back when it is freed, as Open MPI's own PMLs'
 * do; else the table grows by a slot per request for the whole run, each pointing at freed
 * memory. 200 exchanges of requests with handles: the handles must stay small numbers. */

static void c2f_reuse(void)
{
    MPI_Comm c = dup_world();
    double s[8] = {0}, r[8];
    MPI_Fint largest = 0;
    for (int i = 0; i < 200; ++i) {
        if (pt_rank > 1)
            break;
        MPI_Request rq[2];
        pt_call(MPI_Irecv(r, 8, MPI_DOUBLE, 1 - pt_rank, 5, c, &rq[0]), "irecv");
        pt_call(MPI_Isend(s, 8, MPI_DOUBLE, 1 - pt_rank, 5, c, &rq[1]), "isend");
        for (int k = 0; k < 2; ++k) {
            const MPI_Fint f = MPI_Request_c2f(rq[k]);
            largest = f > largest ? f : largest;
        }
        pt_call(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), "waitall");
    }
    if (pt_rank <= 1)
        check(largest < 50, "Fortran handles of 400 requests reused: largest %d", (int)largest);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 2e. MPI_Request_free on an active receive is allowed: the receive still takes the first
 * matching message, and the next receive the one after it. The freed receive's message is
 * sent in every shape pml/zip has: bare, synchronous (an envelope, the payload's 8 bytes
 * shorter than the envelope), larger than pml_zip_bare_max (envelope + raw payload) and smooth
 * doubles (a frame where the run compresses). A synchronous send completes only once the
 * freed receive has taken its payload. */

static void free_active(void)
{
    static const int sizes[] = {10, 1, LARGE, LARGE};
    static const int sync[] = {0, 1, 0, 1};
    MPI_Comm c = dup_world();
    double *s = dalloc(LARGE), *gone = dalloc(LARGE), *r = dalloc(LARGE);
    for (int m = 0; m < 4; ++m) {
        const int n = sizes[m];
        smooth(s, n, 60 + m);
        if (0 == pt_rank) {
            if (sync[m])
                pt_call(MPI_Ssend(s, n, MPI_DOUBLE, 1, 7, c), "ssend");
            else
                pt_call(MPI_Send(s, n, MPI_DOUBLE, 1, 7, c), "send");
            s[0] = -1.5; /* the second message differs from the first */
            pt_call(MPI_Send(s, n, MPI_DOUBLE, 1, 7, c), "send");
        } else if (1 == pt_rank) {
            MPI_Request rq;
            MPI_Status st;
            /* room for two doubles, so that the 1-double message lands in place */
            pt_call(MPI_Irecv(gone, n < 2 ? 2 : n, MPI_DOUBLE, 0, 7, c, &rq), "irecv");
            pt_call(MPI_Request_free(&rq), "request_free");
            check(MPI_REQUEST_NULL == rq, "MPI_Request_free sets the handle to MPI_REQUEST_NULL");
            memset(r, 0, (size_t)n * sizeof(double));
            pt_call(MPI_Recv(r, n, MPI_DOUBLE, 0, 7, c, &st), "recv");
            s[0] = -1.5;
            check(count_of(&st, MPI_DOUBLE) == n && pt_same(r, s, (size_t)n * sizeof(double)),
                  "%d doubles (%s send): the receive after a freed one gets the second message", n,
                  sync[m] ? "synchronous" : "standard");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(s);
    free(gone);
    free(r);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 3. MPI sets status.MPI_ERROR only for calls that return MPI_ERR_IN_STATUS: MPI_Probe,
 * MPI_Iprobe (when it matches), MPI_Mprobe, MPI_Improbe and MPI_Mrecv leave it alone. For
 * MPI_Recv the standard does not say; stock ob1 and ucx leave it alone too (also when they
 * return MPI_ERR_TRUNCATE), so that is asserted as well. */

static void status_error(void)
{
    static const char *const names[] = {"probe", "iprobe", "mprobe", "improbe", "recv"};
    static const int sizes[] = {10, 10, LARGE};
    MPI_Comm c = dup_world();
    double *s = dalloc(LARGE), *r = dalloc(LARGE);
    for (int m = 0; m < 3; ++m) {
        const int n = sizes[m], is_int = 0 == m;
        MPI_Datatype t = is_int ? MPI_INT : MPI_DOUBLE;
        const size_t bytes = n * (is_int ? sizeof(int) : sizeof(double));
        if (is_int) {
            for (int i = 0; i < n; ++i)
                ((int *)s)[i] = 1000 + i;
        } else {
            smooth(s, n, 40 + m);
        }
        for (int call = 0; call < 5; ++call) {
            const int tag = 10 * m + call;
            char name[64];
            snprintf(name, sizeof name, "%s of %d %s", names[call], n, is_int ? "ints" : "doubles");
            MPI_Barrier(MPI_COMM_WORLD);
            if (0 == pt_rank) {
                MPI_Request rq;
                pt_call(MPI_Isend(s, n, t, 1, tag, c, &rq), "isend");
                pt_call(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
                continue;
            }
            if (1 != pt_rank)
                continue;
            MPI_Status st, rs;
            MPI_Message msg = MPI_MESSAGE_NULL;
            int flag = 0;
            memset(r, 0, bytes);
            st.MPI_ERROR = SENTINEL_ERROR;
            rs.MPI_ERROR = SENTINEL_ERROR;
            switch (call) {
            case 0:
                pt_call(MPI_Probe(0, tag, c, &st), "probe");
                break;
            case 1:
                while (!flag) {
                    st.MPI_ERROR = SENTINEL_ERROR;
                    pt_call(MPI_Iprobe(0, tag, c, &flag, &st), "iprobe");
                }
                break;
            case 2:
                pt_call(MPI_Mprobe(0, tag, c, &msg, &st), "mprobe");
                break;
            case 3:
                while (!flag) {
                    st.MPI_ERROR = SENTINEL_ERROR;
                    pt_call(MPI_Improbe(0, tag, c, &flag, &msg, &st), "improbe");
                }
                break;
            default:
                pt_call(MPI_Recv(r, n, t, 0, tag, c, &st), "recv");
                break;
            }
            check(st.MPI_SOURCE == 0 && st.MPI_TAG == tag && count_of(&st, t) == n,
                  "%s: source, tag and count", name);
            check(SENTINEL_ERROR == st.MPI_ERROR, "%s: MPI_ERROR left alone, not %d", name,
                  st.MPI_ERROR);
            if (call < 2) {
                pt_call(MPI_Recv(r, n, t, 0, tag, c, &rs), "recv after probe");
            } else if (call < 4) {
                pt_call(MPI_Mrecv(r, n, t, &msg, &rs), "mrecv");
                check(SENTINEL_ERROR == rs.MPI_ERROR,
                      "%s, then mrecv: MPI_ERROR left alone, not %d", name, rs.MPI_ERROR);
            } else {
                rs = st;
            }
            check(count_of(&rs, t) == n && pt_same(r, s, bytes), "%s: data", name);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(s);
    free(r);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 4. Sending with one type and receiving with another. MPI allows receiving any message as
 * MPI_PACKED (to MPI_Unpack it) and receiving a message sent as MPI_PACKED (MPI_Pack of doubles)
 * with any type that matches the packed signature: MPI_DOUBLE, a contiguous or a vector type of
 * doubles. Doubles received as MPI_BYTE are outside MPI's strict type matching, but Open MPI
 * delivers their bytes on a homogeneous system and relies on it itself (MPI_Sendrecv_replace
 * receives into bytes, case 7), so this is asserted too: MPI_Get_count as stock reports it and
 * the data bit for bit. */

/* One message from `from` to `to` on comm (both may be this rank: then Isend + Recv + Wait).
 * Returns 1 on the receiving rank, with the status in *st. */
static int transfer(MPI_Comm comm, int from, int to, const void *sbuf, int scount,
                    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int tag,
                    MPI_Status *st)
{
    int me;
    MPI_Comm_rank(comm, &me);
    if (me == from && me == to) {
        MPI_Request rq;
        pt_call(MPI_Isend(sbuf, scount, stype, to, tag, comm, &rq), "isend to self");
        pt_call(MPI_Recv(rbuf, rcount, rtype, from, tag, comm, st), "recv from self");
        pt_call(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
        return 1;
    }
    if (me == from)
        pt_call(MPI_Send(sbuf, scount, stype, to, tag, comm), "send");
    if (me == to)
        pt_call(MPI_Recv(rbuf, rcount, rtype, from, tag, comm, st), "recv");
    return me == to;
}

static void type_mismatch_on(MPI_Comm comm, int from, int to, const char *where)
{
    static const int sizes[] = {1, 1000, LARGE};
    int me;
    MPI_Comm_rank(comm, &me);
    if (me != from && me != to)
        return;
    for (int si = 0; si < 3; ++si) {
        const int n = sizes[si];
        const size_t bytes = n * sizeof(double);
        double *x = dalloc(n), *out = dalloc(2 * (size_t)n);
        unsigned char *raw = malloc(bytes);
        smooth(x, n, 50 + si);
        MPI_Status st;

        /* Doubles received as MPI_BYTE: 8n bytes, the doubles' own. */
        memset(raw, 0, bytes);
        if (transfer(comm, from, to, x, n, MPI_DOUBLE, raw, (int)bytes, MPI_BYTE, 1, &st))
            check(count_of(&st, MPI_BYTE) == (int)bytes && pt_same(raw, x, bytes),
                  "%s, %d doubles received as MPI_BYTE: count %d, data", where, n,
                  count_of(&st, MPI_BYTE));

        /* Doubles received as MPI_PACKED, then unpacked. */
        memset(raw, 0, bytes);
        if (transfer(comm, from, to, x, n, MPI_DOUBLE, raw, (int)bytes, MPI_PACKED, 2, &st)) {
            int pos = 0;
            check(count_of(&st, MPI_PACKED) == (int)bytes,
                  "%s, %d doubles received as MPI_PACKED: count %d", where, n,
                  count_of(&st, MPI_PACKED));
            memset(out, 0, bytes);
            pt_call(MPI_Unpack(raw, (int)bytes, &pos, out, n, MPI_DOUBLE, comm), "unpack");
            check(pos == (int)bytes && pt_same(out, x, bytes),
                  "%s, %d doubles received as MPI_PACKED: unpacked data", where, n);
        }

        /* MPI_Pack of the doubles, sent as MPI_PACKED. */
        int psize = 0, plen = 0;
        MPI_Pack_size(n, MPI_DOUBLE, comm, &psize);
        unsigned char *packed = malloc(psize);
        pt_call(MPI_Pack(x, n, MPI_DOUBLE, packed, psize, &plen, comm), "pack");
        check(plen == (int)bytes, "%s: MPI_Pack of %d doubles gives %d bytes", where, n, plen);

        memset(out, 0, bytes);
        if (transfer(comm, from, to, packed, plen, MPI_PACKED, out, n, MPI_DOUBLE, 3, &st))
            check(count_of(&st, MPI_DOUBLE) == n && pt_same(out, x, bytes),
                  "%s, packed %d doubles received as MPI_DOUBLE: count %d, data", where, n,
                  count_of(&st, MPI_DOUBLE));

        MPI_Datatype contig, vec;
        MPI_Type_contiguous(n, MPI_DOUBLE, &contig);
        MPI_Type_commit(&contig);
        MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec);
        MPI_Type_commit(&vec);
        memset(out, 0, bytes);
        if (transfer(comm, from, to, packed, plen, MPI_PACKED, out, 1, contig, 4, &st)) {
            int elems = -1;
            MPI_Get_elements(&st, contig, &elems);
            check(count_of(&st, contig) == 1 && elems == n && pt_same(out, x, bytes),
                  "%s, packed %d doubles received as a contiguous type: count %d, elements %d, "
                  "data",
                  where, n, count_of(&st, contig), elems);
        }
        for (int i = 0; i < 2 * n; ++i)
            out[i] = -7.5;
        if (transfer(comm, from, to, packed, plen, MPI_PACKED, out, 1, vec, 5, &st)) {
            int ok = 1;
            for (int i = 0; i < n; ++i) {
                ok &= pt_same(&out[2 * i], &x[i], sizeof(double));
                ok &= -7.5 == out[2 * i + 1];
            }
            check(count_of(&st, vec) == 1 && ok,
                  "%s, packed %d doubles received as a vector type (stride 2): count %d, data",
                  where, n, count_of(&st, vec));
        }
        MPI_Type_free(&contig);
        MPI_Type_free(&vec);
        free(packed);
        free(raw);
        free(out);
        free(x);
    }
}

static void type_mismatch(void)
{
    MPI_Comm c = dup_world();
    type_mismatch_on(c, 0, 1, "rank 0 -> 1");
    MPI_Barrier(MPI_COMM_WORLD);
    type_mismatch_on(MPI_COMM_SELF, 0, 0, "MPI_COMM_SELF");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 5. MPI_Comm_set_info while messages are in flight (sent, not yet received): the receive
 * delivers what was sent, whatever the Info key now says. */

static void info_in_flight(void)
{
    static const int sizes[] = {200, LARGE};
    MPI_Info on, off;
    MPI_Info_create(&on);
    MPI_Info_set(on, "zip_p2p", "true");
    MPI_Info_create(&off);
    MPI_Info_set(off, "zip_p2p", "false");
    double *s[2] = {dalloc(LARGE), dalloc(LARGE)}, *r = dalloc(LARGE);
    for (int dir = 0; dir < 2; ++dir) {
        MPI_Comm c;
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, dir ? off : on, &c);
        MPI_Request rq[2];
        for (int m = 0; m < 2; ++m)
            smooth(s[m], sizes[m], 60 + 2 * dir + m);
        if (0 == pt_rank) {
            for (int m = 0; m < 2; ++m)
                pt_call(MPI_Isend(s[m], sizes[m], MPI_DOUBLE, 1, m, c, &rq[m]), "isend");
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the messages are on their way */
        pt_call(MPI_Comm_set_info(c, dir ? on : off), "set_info");
        if (1 == pt_rank) {
            for (int m = 0; m < 2; ++m) {
                MPI_Status st;
                memset(r, 0, sizes[m] * sizeof(double));
                int rc = MPI_Recv(r, sizes[m], MPI_DOUBLE, 0, m, c, &st);
                check(MPI_SUCCESS == rc && count_of(&st, MPI_DOUBLE) == sizes[m] &&
                          pt_same(r, s[m], sizes[m] * sizeof(double)),
                      "%d doubles sent with zip_p2p=%s, received after set_info(%s): rc %d, "
                      "count %d, data",
                      sizes[m], dir ? "false" : "true", dir ? "true" : "false", rc,
                      count_of(&st, MPI_DOUBLE));
            }
        }
        if (0 == pt_rank)
            pt_call(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), "waitall");
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_free(&c);
    }
    MPI_Info_free(&on);
    MPI_Info_free(&off);
    free(s[0]);
    free(s[1]);
    free(r);
}

/* ------------------------------------------------------------------------------------------ */
/* 6. A receive smaller than the message returns an error of class MPI_ERR_TRUNCATE under
 * MPI_ERRORS_RETURN, and the program goes on. The buffer is as large as the message (stock
 * single-copy transports may write past the posted count); 500 doubles are posted with MPI_Recv
 * and with MPI_Irecv, and 1 with MPI_Irecv (under an envelope's size, and under
 * MPI_THREAD_MULTIPLE up to 4 KiB: received in zip's own landing buffer, which a longer message
 * must not overrun). */

static void truncate_case(void)
{
    static const int sizes[] = {1000, 3000, 100000};
    static const char *const how[] = {"MPI_Recv of 500", "MPI_Irecv of 500", "MPI_Irecv of 1"};
    MPI_Comm c = dup_world();
    double *s = dalloc(100000), *r = dalloc(100000), *ref = dalloc(1000);
    for (int si = 0; si < 9; ++si) {
        const int n = sizes[si / 3], way = si % 3;
        smooth(s, n, 70 + si);
        if (0 == pt_rank) {
            /* The sender's result is not specified: no check. */
            MPI_Send(s, n, MPI_DOUBLE, 1, 6, c);
        } else if (1 == pt_rank) {
            MPI_Status st;
            MPI_Request rq;
            int rc, cls = -1;
            if (0 == way) {
                rc = MPI_Recv(r, 500, MPI_DOUBLE, 0, 6, c, &st);
            } else {
                rc = MPI_Irecv(r, 1 == way ? 500 : 1, MPI_DOUBLE, 0, 6, c, &rq);
                if (MPI_SUCCESS == rc)
                    rc = MPI_Wait(&rq, &st);
            }
            if (MPI_SUCCESS != rc)
                MPI_Error_class(rc, &cls);
            check(MPI_ERR_TRUNCATE == cls,
                  "%d doubles, %s: error class MPI_ERR_TRUNCATE (rc %d, class %d)", n, how[way], rc,
                  cls);
        }
        /* A normal exchange afterwards, both ways. */
        for (int dir = 0; dir < 2; ++dir) {
            const int from = dir, to = 1 - dir;
            smooth(ref, 1000, 80 + 2 * si + dir);
            MPI_Status st;
            memset(r, 0, 1000 * sizeof(double));
            if (transfer(c, from, to, ref, 1000, MPI_DOUBLE, r, 1000, MPI_DOUBLE, 7, &st))
                check(count_of(&st, MPI_DOUBLE) == 1000 && pt_same(r, ref, 1000 * sizeof(double)),
                      "after truncating %d doubles: rank %d -> %d works", n, from, to);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(s);
    free(r);
    free(ref);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 7. MPI_Sendrecv_replace of 1000 doubles: plain data, and data whose first 32 bytes happen to
 * read as a RAW zip header (magic, kind 1, elem 2, 7968 raw and wire bytes). */

static void fill_replace(double *x, int rank, int fake_header)
{
    smooth(x, 1000, 90 + 2 * rank + fake_header);
    if (fake_header) {
        const uint64_t magic = 0x5a49507032ull, bytes = 7968;
        const uint32_t kind = 1, elem = 2;
        unsigned char *b = (unsigned char *)x;
        memcpy(b, &magic, 8);
        memcpy(b + 8, &kind, 4);
        memcpy(b + 12, &elem, 4);
        memcpy(b + 16, &bytes, 8);
        memcpy(b + 24, &bytes, 8);
    }
}

static void sendrecv_replace(void)
{
    MPI_Comm c = dup_world();
    double buf[1000], ref[1000];
    for (int fake = 0; fake < 2; ++fake) {
        const char *what = fake ? "doubles that look like a zip header" : "plain doubles";
        if (pt_rank < 2) {
            const int peer = 1 - pt_rank;
            MPI_Status st;
            fill_replace(buf, pt_rank, fake);
            fill_replace(ref, peer, fake);
            pt_call(MPI_Sendrecv_replace(buf, 1000, MPI_DOUBLE, peer, 7, peer, 7, c, &st),
                    "sendrecv_replace");
            check(count_of(&st, MPI_DOUBLE) == 1000 && pt_same(buf, ref, sizeof buf),
                  "ranks 0 <-> 1, %s: count %d, data", what, count_of(&st, MPI_DOUBLE));
        }
        fill_replace(buf, pt_rank, fake);
        memcpy(ref, buf, sizeof buf);
        MPI_Status st;
        pt_call(MPI_Sendrecv_replace(buf, 1000, MPI_DOUBLE, 0, 8, 0, 8, MPI_COMM_SELF, &st),
                "sendrecv_replace on MPI_COMM_SELF");
        check(count_of(&st, MPI_DOUBLE) == 1000 && pt_same(buf, ref, sizeof buf),
              "MPI_COMM_SELF, %s: count %d, data", what, count_of(&st, MPI_DOUBLE));
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 8. A zero-length message of doubles matches a receive of any type (the empty signature):
 * count 0, and a larger buffer is left untouched. */

static void zero_length_on(MPI_Comm comm, int from, int to, const char *where)
{
    int buf[16], me;
    MPI_Comm_rank(comm, &me);
    MPI_Status st;
    static const char *const names[] = {"0 MPI_INT", "0 MPI_BYTE", "16 MPI_INT"};
    for (int v = 0; v < 3; ++v) {
        for (int i = 0; i < 16; ++i)
            buf[i] = 0x5a5a5a5a + i;
        MPI_Datatype t = 1 == v ? MPI_BYTE : MPI_INT;
        int rc = MPI_SUCCESS;
        if (me == from && me == to) {
            MPI_Request rq;
            pt_call(MPI_Isend(NULL, 0, MPI_DOUBLE, to, 20 + v, comm, &rq), "isend to self");
            rc = MPI_Recv(buf, 2 == v ? 16 : 0, t, from, 20 + v, comm, &st);
            pt_call(MPI_Wait(&rq, MPI_STATUS_IGNORE), "wait");
        } else if (me == from) {
            pt_call(MPI_Send(NULL, 0, MPI_DOUBLE, to, 20 + v, comm), "send");
            continue;
        } else if (me == to) {
            rc = MPI_Recv(buf, 2 == v ? 16 : 0, t, from, 20 + v, comm, &st);
        } else {
            continue;
        }
        int untouched = 1;
        for (int i = 0; i < 16; ++i)
            untouched &= buf[i] == 0x5a5a5a5a + i;
        check(MPI_SUCCESS == rc && 0 == count_of(&st, t) && 0 == count_of(&st, MPI_DOUBLE) &&
                  untouched,
              "%s: 0 doubles received as %s: rc %d, count %d, buffer untouched %d", where, names[v],
              rc, count_of(&st, t), untouched);
    }
}

static void zero_length(void)
{
    MPI_Comm c = dup_world();
    zero_length_on(c, 0, 1, "rank 0 -> 1");
    zero_length_on(MPI_COMM_SELF, 0, 0, "MPI_COMM_SELF");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* 9. MPI_Iprobe is local: it returns at once even when the matching message's sender is outside
 * MPI (rank 0 sleeps 3 s after its Isends); the flag it returns may be either. */

static void iprobe_local(void)
{
    static const int sizes[] = {LARGE, 4096};
    MPI_Comm c = dup_world();
    double *s[2] = {dalloc(LARGE), dalloc(4096)}, *r = dalloc(LARGE);
    for (int m = 0; m < 2; ++m)
        smooth(s[m], sizes[m], 100 + m);
    if (0 == pt_rank) {
        MPI_Request rq[2];
        for (int m = 0; m < 2; ++m)
            pt_call(MPI_Isend(s[m], sizes[m], MPI_DOUBLE, 1, m, c, &rq[m]), "isend");
        pt_sleep(3.0);
        pt_call(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), "waitall");
    } else if (1 == pt_rank) {
        pt_sleep(0.5);
        for (int m = 0; m < 2; ++m) {
            int flag = 0;
            MPI_Status st;
            double t0 = MPI_Wtime();
            pt_call(MPI_Iprobe(0, m, c, &flag, &st), "iprobe");
            double dt = MPI_Wtime() - t0;
            check(dt < 0.5, "one MPI_Iprobe for %d doubles while the sender sleeps took %.3f s",
                  sizes[m], dt);
        }
        for (int m = 0; m < 2; ++m) {
            int flag = 0;
            MPI_Status st;
            double end = MPI_Wtime() + 4.0;
            while (!flag && MPI_Wtime() < end)
                pt_call(MPI_Iprobe(0, m, c, &flag, &st), "iprobe");
            check(flag && count_of(&st, MPI_DOUBLE) == sizes[m],
                  "MPI_Iprobe for %d doubles matches in the end", sizes[m]);
            memset(r, 0, sizes[m] * sizeof(double));
            pt_call(MPI_Recv(r, sizes[m], MPI_DOUBLE, 0, m, c, &st), "recv");
            check(count_of(&st, MPI_DOUBLE) == sizes[m] &&
                      pt_same(r, s[m], sizes[m] * sizeof(double)),
                  "%d doubles: data", sizes[m]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(s[0]);
    free(s[1]);
    free(r);
    MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------------------------ */
/* Active receives sharing a buffer: each receive must read its own first message, not the one
 * another receive wrote there since (zip used to parse envelopes from the buffer in its
 * progress, after later deliveries: two receives then took one envelope and waited for the
 * same payload for ever). */

#define SHARED_MSGS 4
#define SHARED_N 20000

static void shared_buffer(void)
{
    MPI_Comm c = dup_world();
    double *s[SHARED_MSGS], *r = dalloc(SHARED_N);
    for (int m = 0; m < SHARED_MSGS; ++m) {
        s[m] = dalloc(SHARED_N);
        smooth(s[m], SHARED_N, 300 + m);
    }
    for (int way = 0; way < 2; ++way) { /* persistent receives, then MPI_Irecv */
        const char *name = 0 == way ? "recv_init+startall" : "irecv";
        if (0 == pt_rank) {
            MPI_Request rq[SHARED_MSGS];
            for (int m = 0; m < SHARED_MSGS; ++m)
                pt_call(MPI_Isend(s[m], SHARED_N, MPI_DOUBLE, 1, m, c, &rq[m]), "isend");
            pt_call(MPI_Waitall(SHARED_MSGS, rq, MPI_STATUSES_IGNORE), "waitall");
        } else if (1 == pt_rank) {
            pt_sleep(0.3); /* every first message waits at the receiver */
            MPI_Request rq[SHARED_MSGS];
            MPI_Status st[SHARED_MSGS];
            for (int m = 0; m < SHARED_MSGS; ++m) {
                if (0 == way)
                    pt_call(MPI_Recv_init(r, SHARED_N, MPI_DOUBLE, 0, m, c, &rq[m]), "recv_init");
                else
                    pt_call(MPI_Irecv(r, SHARED_N, MPI_DOUBLE, 0, m, c, &rq[m]), "irecv");
            }
            if (0 == way)
                pt_call(MPI_Startall(SHARED_MSGS, rq), "startall");
            pt_call(MPI_Waitall(SHARED_MSGS, rq, st), "waitall");
            int which = -1;
            for (int m = 0; m < SHARED_MSGS; ++m) {
                check(st[m].MPI_TAG == m && st[m].MPI_SOURCE == 0 &&
                          count_of(&st[m], MPI_DOUBLE) == SHARED_N,
                      "%s into one buffer: receive %d completes with its own status", name, m);
                if (pt_same(r, s[m], SHARED_N * sizeof(double)))
                    which = m;
                if (0 == way)
                    MPI_Request_free(&rq[m]);
            }
            check(which >= 0, "%s into one buffer: it holds one of the messages", name);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int m = 0; m < SHARED_MSGS; ++m)
        free(s[m]);
    free(r);
    MPI_Comm_free(&c);
}

static const struct pt_case cases[] = {
    {"probe_ssend", probe_ssend, 4},
    {"probe_order", probe_order, 4},
    {"probe_order_long", probe_order_long, 8},
    {"recv_untouched", recv_untouched, 8},
    {"c2f_reuse", c2f_reuse, 8},
    {"free_active", free_active, 8},
    {"status_error", status_error, 4},
    {"type_mismatch", type_mismatch, 4},
    {"info_in_flight", info_in_flight, 4},
    {"truncate", truncate_case, 4},
    {"sendrecv_replace", sendrecv_replace, 4},
    {"zero_length", zero_length, 4},
    {"iprobe_local", iprobe_local, 8},
    {"shared_buffer", shared_buffer, 8},
};

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (pt_size < 2) {
        if (0 == pt_rank)
            printf("SKIP: p2p_semantics (needs 2 ranks)\n");
        MPI_Finalize();
        return 0;
    }
    int bad = pt_run_cases("p2p_semantics", cases, sizeof cases / sizeof cases[0], argc, argv);
    pt_failures += bad;
    return pt_finish("p2p_semantics");
}
