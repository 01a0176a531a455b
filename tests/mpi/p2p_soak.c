/*
 * A randomized soak of point-to-point traffic, for pml/zip in front of ob1 or ucx. A seed that
 * every rank draws alike picks each step: the communicator (MPI_COMM_WORLD or duplicates carrying
 * each zip_policy), one datatype for the step (predefined, strided, contiguous, struct, holes),
 * the data, and up to 12 messages, each with its sender, receiver, tag, count (zero to 1 MiB) and
 * send mode (standard, synchronous, buffered or ready; blocking, non-blocking or persistent:
 * MPI_Send_init and its kin, then MPI_Start), received by MPI_Recv, MPI_Irecv, MPI_Recv_init +
 * MPI_Start, MPI_Probe or an MPI_Iprobe loop and then MPI_Recv, MPI_Mprobe + MPI_Mrecv or
 * MPI_Improbe + MPI_Imrecv, into buffers that may be larger than the message. A receiver takes
 * all its messages of a step by their source and tag, or all with MPI_ANY_SOURCE and MPI_ANY_TAG.
 * A ready-mode message is the first from its sender to its receiver with its tag and goes to a
 * receiver that names its sources; the receiver posts it before a barrier that the send follows.
 *
 * Every rank works through the step's messages in one order, sending those it sends and
 * receiving those it receives, so no blocking call can wait forever (senders to a wildcard
 * receiver do not block: its receives may take the messages in another order). A receive is
 * identified by its status: for each source and tag, receives in the order they were posted get the
 * messages in the order they were sent (MPI's non-overtaking rule). Each is checked for its
 * source, tag, element count and every byte of the buffer (beyond the message and in the
 * datatype's holes: untouched); every send buffer must be unchanged.
 *
 * With --threads T (MPI_THREAD_MULTIPLE), T threads per rank each run such a soak at once, each
 * on its own duplicates of MPI_COMM_WORLD and from its own seed: pml/zip's state shared between
 * threads (requests, streams, statistics, the buffered sends' pool) is what that adds.
 *
 * Usage: p2p_soak [--seed S] [--steps N] [--max-bytes B] [--threads T]
 * Prints "PASS: p2p_soak ..." on rank 0, or the mismatches and "FAIL: p2p_soak ...".
 */
#include <pthread.h>

#include "soak_data.h"

enum { MSGS = 12, TAGS = 3, COMMS = 4, MAX_THREADS = 8 };
enum send_mode {
    S_SEND,
    S_ISEND,
    S_SSEND,
    S_ISSEND,
    S_BSEND,
    S_IBSEND,
    S_RSEND,
    S_IRSEND,
    S_SEND_INIT,
    S_SSEND_INIT,
    S_BSEND_INIT,
    S_RSEND_INIT,
    SEND_MODES
};
enum recv_mode { R_RECV, R_IRECV, R_RECV_INIT, R_PROBE, R_IPROBE, R_MPROBE, R_IMPROBE, RECV_MODES };
static const char *const send_name[SEND_MODES] = {
    "MPI_Send",      "MPI_Isend",      "MPI_Ssend",      "MPI_Issend",
    "MPI_Bsend",     "MPI_Ibsend",     "MPI_Rsend",      "MPI_Irsend",
    "MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init"};
static const char *const recv_name[RECV_MODES] = {"MPI_Recv",   "MPI_Irecv",  "MPI_Recv_init",
                                                  "MPI_Probe",  "MPI_Iprobe", "MPI_Mprobe",
                                                  "MPI_Improbe"};

static int is_ready(int smode)
{
    return S_RSEND == smode || S_IRSEND == smode || S_RSEND_INIT == smode;
}
static int is_persistent(int smode)
{
    return smode >= S_SEND_INIT;
}
/* Blocking sends that may wait for their receive to be matched. */
static int may_block(int smode)
{
    return S_SEND == smode || S_SSEND == smode || S_RSEND == smode;
}
static const char *const comm_name[COMMS] = {"world", "dup auto", "dup always", "dup never"};

/* One soak: a thread's (with --threads) or the process's. */
typedef struct {
    int id;
    uint64_t seed;
    MPI_Comm comms[COMMS]; /* comms[0]: MPI_COMM_WORLD, with threads a duplicate of it */
    uint64_t draw_state;
    const char *step_comm;
    int reported, bad, total_msgs;
    int send_used[SEND_MODES], recv_used[RECV_MODES];
} soak_t;

typedef struct {
    int src, dst, tag, count, smode, rmode;
    int seq; /* among the step's messages from src to dst with this tag */
} message_t;

/* A receive this rank posted, in posting order. */
typedef struct {
    int msg; /* the message it was posted for (with wildcards: whichever it gets) */
    unsigned char *buf;
    size_t bytes;
    int count;       /* items the buffer holds */
    int probe_count; /* what the probe before it said (MPI_Get_count), or -2 */
    MPI_Request req;
    int persistent; /* req came from MPI_Recv_init: freed once complete */
    MPI_Status status;
} receive_t;

static uint64_t draw(soak_t *s)
{
    return zt_mix(s->draw_state++);
}

static int max_bytes = 1 << 20, steps = 100;
static int wrank, wsize;

static int draw_count(soak_t *s, const soak_type_t *t)
{
    static const int classes[] = {0, 1, 5, 100, 1000, 4097, 8193, 20000, 65536, 131072};
    const int n = classes[draw(s) % (sizeof classes / sizeof classes[0])];
    const int cap = max_bytes / t->extent;
    return n > cap ? cap : n;
}

static uint64_t owner_of(const message_t *m)
{
    return (uint64_t)m->src * 1000u + (uint64_t)m->dst;
}
static uint64_t salt_of(int step, const message_t *m)
{
    return ((uint64_t)step * TAGS + (uint64_t)m->tag) * 4096u + (uint64_t)m->seq;
}

static void report(soak_t *s, int step, const char *what, const message_t *m, const char *detail)
{
    if (s->reported++ < 8)
        fprintf(stderr,
                "MISMATCH world rank %d thread %d: step %d on %s: %s: message %d -> %d tag %d "
                "count %d (%s, %s): %s\n",
                wrank, s->id, step, s->step_comm, what, m->src, m->dst, m->tag, m->count,
                send_name[m->smode], recv_name[m->rmode], detail);
}

/* Checks one completed receive; returns the mismatches. */
static int check_receive(soak_t *s, int step, const receive_t *r, const message_t *msgs, int n,
                         int got_seq[][TAGS], const soak_type_t *t, int kind, MPI_Comm c)
{
    const int src = r->status.MPI_SOURCE, tag = r->status.MPI_TAG;
    int csize;
    MPI_Comm_size(c, &csize);
    if (src < 0 || src >= csize || tag < 0 || tag >= TAGS) {
        char d[96];
        snprintf(d, sizeof d, "status source %d tag %d", src, tag);
        report(s, step, "receive", &msgs[r->msg], d);
        return 1;
    }
    /* The message this receive got: the next one from src with this tag. */
    const int seq = got_seq[src][tag]++;
    const message_t *m = NULL;
    for (int k = 0; k < n; ++k)
        if (msgs[k].src == src && msgs[k].dst == msgs[r->msg].dst && msgs[k].tag == tag &&
            msgs[k].seq == seq)
            m = &msgs[k];
    if (NULL == m) {
        char d[96];
        snprintf(d, sizeof d, "no message %d from %d with tag %d was sent", seq, src, tag);
        report(s, step, "receive", &msgs[r->msg], d);
        return 1;
    }
    int count = -1;
    MPI_Get_count(&r->status, t->type, &count);
    int bad = 0;
    if (count != m->count || (-2 != r->probe_count && r->probe_count != m->count)) {
        char d[64];
        snprintf(d, sizeof d, "MPI_Get_count %d, of the probe %d", count, r->probe_count);
        report(s, step, "count", m, d);
        bad = 1;
    }
    unsigned char *want = alloc_bytes(r->bytes, SENTINEL);
    put_block(want, 0, t, m->count, kind, owner_of(m), salt_of(step, m));
    if (0 != memcmp(want, r->buf, r->bytes)) {
        size_t at = 0;
        while (want[at] == r->buf[at])
            ++at;
        char d[96];
        snprintf(d, sizeof d, "byte %zu of %zu: got %02x want %02x", at, r->bytes, r->buf[at],
                 want[at]);
        report(s, step, "data", m, d);
        bad = 1;
    }
    free(want);
    return bad;
}

static void make_comms(soak_t *s, int threaded)
{
    static const char *const policies[3] = {"auto", "always", "never"};
    s->comms[0] = MPI_COMM_WORLD;
    if (threaded)
        MPI_Comm_dup(MPI_COMM_WORLD, &s->comms[0]);
    for (int i = 0; i < 3; ++i) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "zip_policy", policies[i]);
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &s->comms[1 + i]);
        MPI_Info_free(&info);
    }
}

/* Waits for a message by MPI_Iprobe, testing now and then as a computing rank would. */
static int iprobe_wait(int source, int tag, MPI_Comm c, MPI_Status *status)
{
    int flag = 0, rc = MPI_SUCCESS;
    while (MPI_SUCCESS == rc && !flag)
        rc = MPI_Iprobe(source, tag, c, &flag, status);
    return rc;
}

static int improbe_wait(int source, int tag, MPI_Comm c, MPI_Message *msg, MPI_Status *status)
{
    int flag = 0, rc = MPI_SUCCESS;
    while (MPI_SUCCESS == rc && !flag)
        rc = MPI_Improbe(source, tag, c, &flag, msg, status);
    return rc;
}

/* Posts (or makes) this rank's receive of message k into r. */
static int receive(const message_t *m, int wild, const soak_type_t *t, MPI_Comm c, receive_t *r)
{
    const int source = wild ? MPI_ANY_SOURCE : m->src, tag = wild ? MPI_ANY_TAG : m->tag;
    const MPI_Datatype T = t->type;
    MPI_Status ps;
    MPI_Message msg;
    int rc;
    r->req = MPI_REQUEST_NULL;
    r->persistent = 0;
    r->probe_count = -2;
    switch (m->rmode) {
    case R_RECV:
        return MPI_Recv(r->buf, r->count, T, source, tag, c, &r->status);
    case R_IRECV:
        return MPI_Irecv(r->buf, r->count, T, source, tag, c, &r->req);
    case R_RECV_INIT:
        rc = MPI_Recv_init(r->buf, r->count, T, source, tag, c, &r->req);
        r->persistent = MPI_SUCCESS == rc;
        return MPI_SUCCESS != rc ? rc : MPI_Start(&r->req);
    case R_PROBE:
    case R_IPROBE:
        rc =
            R_PROBE == m->rmode ? MPI_Probe(source, tag, c, &ps) : iprobe_wait(source, tag, c, &ps);
        MPI_Get_count(&ps, T, &r->probe_count);
        return MPI_SUCCESS != rc
                   ? rc
                   : MPI_Recv(r->buf, r->count, T, ps.MPI_SOURCE, ps.MPI_TAG, c, &r->status);
    case R_MPROBE:
        rc = MPI_Mprobe(source, tag, c, &msg, &ps);
        MPI_Get_count(&ps, T, &r->probe_count);
        return MPI_SUCCESS != rc ? rc : MPI_Mrecv(r->buf, r->count, T, &msg, &r->status);
    default:
        rc = improbe_wait(source, tag, c, &msg, &ps);
        MPI_Get_count(&ps, T, &r->probe_count);
        return MPI_SUCCESS != rc ? rc : MPI_Imrecv(r->buf, r->count, T, &msg, &r->req);
    }
}

static int send(const message_t *m, const unsigned char *buf, const soak_type_t *t, MPI_Comm c,
                MPI_Request *req)
{
    const int n = m->count, dst = m->dst, tag = m->tag;
    const MPI_Datatype T = t->type;
    int rc;
    *req = MPI_REQUEST_NULL;
    switch (m->smode) {
    case S_SEND:
        return MPI_Send(buf, n, T, dst, tag, c);
    case S_ISEND:
        return MPI_Isend(buf, n, T, dst, tag, c, req);
    case S_SSEND:
        return MPI_Ssend(buf, n, T, dst, tag, c);
    case S_ISSEND:
        return MPI_Issend(buf, n, T, dst, tag, c, req);
    case S_BSEND:
        return MPI_Bsend(buf, n, T, dst, tag, c);
    case S_IBSEND:
        return MPI_Ibsend(buf, n, T, dst, tag, c, req);
    case S_RSEND:
        return MPI_Rsend(buf, n, T, dst, tag, c);
    case S_IRSEND:
        return MPI_Irsend(buf, n, T, dst, tag, c, req);
    case S_SEND_INIT:
        rc = MPI_Send_init(buf, n, T, dst, tag, c, req);
        break;
    case S_SSEND_INIT:
        rc = MPI_Ssend_init(buf, n, T, dst, tag, c, req);
        break;
    case S_BSEND_INIT:
        rc = MPI_Bsend_init(buf, n, T, dst, tag, c, req);
        break;
    default:
        rc = MPI_Rsend_init(buf, n, T, dst, tag, c, req);
        break;
    }
    return MPI_SUCCESS != rc ? rc : MPI_Start(req);
}

/* Runs one soak's steps (a thread's with --threads). */
static void *run_soak(void *arg)
{
    soak_t *s = arg;
    s->draw_state = zt_mix((s->seed ^ 0x2b2b) + 0x10001u * (uint64_t)s->id);
    int(*got_seq)[TAGS] = calloc((size_t)wsize, sizeof *got_seq);
    int bad = 0, total_msgs = 0;
    for (int step = 0; step < steps; ++step) {
        const int ci = (int)(draw(s) % COMMS);
        const MPI_Comm c = s->comms[ci];
        s->step_comm = comm_name[ci];
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        const soak_type_t *t = &types[draw(s) % TYPES];
        const int kind = (int)(draw(s) % 3);
        const int n = 1 + (int)(draw(s) % MSGS);
        message_t msgs[MSGS];
        int wild[64] = {0};
        for (int p = 0; p < wsize && p < 64; ++p)
            wild[p] = 0 == draw(s) % 3;
        for (int k = 0; k < n; ++k) {
            message_t *m = &msgs[k];
            m->src = (int)(draw(s) % (uint64_t)wsize);
            m->dst = (m->src + 1 + (int)(draw(s) % (uint64_t)(wsize - 1))) % wsize;
            m->tag = (int)(draw(s) % TAGS);
            m->count = draw_count(s, t);
            m->smode = (int)(draw(s) % SEND_MODES);
            m->rmode = (int)(draw(s) % RECV_MODES);
            m->seq = 0;
            for (int j = 0; j < k; ++j)
                m->seq += msgs[j].src == m->src && msgs[j].dst == m->dst && msgs[j].tag == m->tag;
            /* Ready mode needs its receive posted first: the receiver posts it before the step's
             * barrier, so it must be the first of its source and tag there, and named. */
            if (is_ready(m->smode) && (wild[m->dst] || 0 != m->seq))
                m->smode = S_RSEND == m->smode    ? S_SEND
                           : S_IRSEND == m->smode ? S_ISEND
                                                  : S_SEND_INIT;
            if (is_ready(m->smode) && R_RECV_INIT != m->rmode)
                m->rmode = R_IRECV;
            /* A wildcard receive may take a message sent after the one it was posted for; a
             * blocking send to that receiver could then wait on a rank that waits on it. */
            if (wild[m->dst] && may_block(m->smode))
                m->smode = S_SEND == m->smode ? S_ISEND : S_ISSEND;
        }
        /* A wildcard receiver's buffers hold the largest message it gets; some buffers more. */
        int largest = 0;
        for (int k = 0; k < n; ++k)
            if (msgs[k].dst == wrank && msgs[k].count > largest)
                largest = msgs[k].count;
        const int extra = 0 == draw(s) % 2 ? 3 : 0;

        unsigned char *sbuf[MSGS] = {0}, *sref[MSGS] = {0};
        MPI_Request sreq[MSGS];
        receive_t recv[MSGS];
        int posted = 0, ready = 0, preposted[MSGS] = {0};
        for (int k = 0; k < n; ++k) {
            const message_t *m = &msgs[k];
            ready |= is_ready(m->smode);
            if (is_ready(m->smode) && m->dst == wrank) {
                receive_t *r = &recv[posted++];
                r->msg = k;
                r->count = m->count + extra;
                r->bytes = (size_t)r->count * t->extent;
                r->buf = alloc_bytes(r->bytes, SENTINEL);
                preposted[k] = 1;
                if (MPI_SUCCESS != receive(m, 0, t, c, r)) {
                    report(s, step, "receive failed", m, "error code");
                    ++bad;
                }
            }
        }
        if (ready)
            MPI_Barrier(s->comms[0]);
        for (int k = 0; k < n; ++k) {
            const message_t *m = &msgs[k];
            sreq[k] = MPI_REQUEST_NULL;
            if (m->src == wrank) {
                const size_t bytes = (size_t)m->count * t->extent;
                sbuf[k] = alloc_bytes(bytes, SENTINEL);
                put_block(sbuf[k], 0, t, m->count, kind, owner_of(m), salt_of(step, m));
                sref[k] = alloc_bytes(bytes, 0);
                memcpy(sref[k], sbuf[k], bytes);
                const int rc = send(m, sbuf[k], t, c, &sreq[k]);
                if (MPI_SUCCESS != rc) {
                    report(s, step, "send failed", m, "error code");
                    ++bad;
                }
            }
            if (m->dst == wrank && !preposted[k]) {
                receive_t *r = &recv[posted++];
                r->msg = k;
                r->count = (wild[wrank] ? largest : m->count) + extra;
                r->bytes = (size_t)r->count * t->extent;
                r->buf = alloc_bytes(r->bytes, SENTINEL);
                if (MPI_SUCCESS != receive(m, wild[wrank], t, c, r)) {
                    report(s, step, "receive failed", m, "error code");
                    ++bad;
                }
            }
        }
        for (int i = 0; i < posted; ++i)
            if (MPI_REQUEST_NULL != recv[i].req &&
                MPI_SUCCESS != MPI_Wait(&recv[i].req, &recv[i].status)) {
                report(s, step, "receive wait failed", &msgs[recv[i].msg], "error code");
                ++bad;
            }
        if (MPI_SUCCESS != MPI_Waitall(n, sreq, MPI_STATUSES_IGNORE)) {
            report(s, step, "send wait failed", &msgs[0], "error code");
            ++bad;
        }
        /* Persistent requests stay allocated, inactive, after their wait. */
        for (int i = 0; i < posted; ++i)
            if (recv[i].persistent && MPI_SUCCESS != MPI_Request_free(&recv[i].req)) {
                report(s, step, "receive request free failed", &msgs[recv[i].msg], "error code");
                ++bad;
            }
        for (int k = 0; k < n; ++k)
            if (is_persistent(msgs[k].smode) && MPI_REQUEST_NULL != sreq[k] &&
                MPI_SUCCESS != MPI_Request_free(&sreq[k])) {
                report(s, step, "send request free failed", &msgs[k], "error code");
                ++bad;
            }
        memset(got_seq, 0, (size_t)wsize * sizeof *got_seq);
        for (int i = 0; i < posted; ++i) {
            bad += check_receive(s, step, &recv[i], msgs, n, got_seq, t, kind, c);
            free(recv[i].buf);
        }
        for (int k = 0; k < n; ++k) {
            if (NULL != sbuf[k] &&
                0 != memcmp(sbuf[k], sref[k], (size_t)msgs[k].count * t->extent)) {
                report(s, step, "send buffer changed", &msgs[k], "");
                ++bad;
            }
            free(sbuf[k]);
            free(sref[k]);
        }
        total_msgs += n;
        for (int k = 0; k < n; ++k) {
            ++s->send_used[msgs[k].smode];
            ++s->recv_used[msgs[k].rmode];
        }
        MPI_Barrier(s->comms[0]);
    }
    free(got_seq);
    s->bad = bad;
    s->total_msgs = total_msgs;
    return NULL;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int threads = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (0 == strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (0 == strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);
        else if (0 == strcmp(argv[i], "--max-bytes"))
            max_bytes = atoi(argv[i + 1]);
        else if (0 == strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
    }
    if (threads < 1 || threads > MAX_THREADS)
        threads = threads < 1 ? 1 : MAX_THREADS;
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, threads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2 || (threads > 1 && provided < MPI_THREAD_MULTIPLE)) {
        if (0 == wrank)
            printf("SKIP: p2p_soak (%s)\n",
                   wsize < 2 ? "needs 2 ranks or more" : "no MPI_THREAD_MULTIPLE");
        MPI_Finalize();
        return 0;
    }
    make_types();
    soak_t soaks[MAX_THREADS];
    memset(soaks, 0, sizeof soaks);
    for (int i = 0; i < threads; ++i) {
        soaks[i].id = i;
        soaks[i].seed = seed;
        make_comms(&soaks[i], threads > 1);
    }
    /* Room for three steps of buffered sends per soak: a buffered send's space comes back when
     * the library has finished it, which may be after the step's barrier. */
    int pack_max = 0;
    MPI_Pack_size(max_bytes, MPI_BYTE, MPI_COMM_WORLD, &pack_max);
    const size_t attach =
        3u * MSGS * (size_t)threads * ((size_t)pack_max + MPI_BSEND_OVERHEAD + 64);
    void *bsend_buf = malloc(attach);
    MPI_Buffer_attach(bsend_buf, (int)attach);
    if (1 == threads) {
        run_soak(&soaks[0]);
    } else {
        pthread_t tid[MAX_THREADS];
        for (int i = 0; i < threads; ++i)
            pthread_create(&tid[i], NULL, run_soak, &soaks[i]);
        for (int i = 0; i < threads; ++i)
            pthread_join(tid[i], NULL);
    }
    int bad = 0, total_msgs = 0, send_used[SEND_MODES] = {0}, recv_used[RECV_MODES] = {0};
    for (int i = 0; i < threads; ++i) {
        bad += soaks[i].bad;
        total_msgs += soaks[i].total_msgs;
        for (int k = 0; k < SEND_MODES; ++k)
            send_used[k] += soaks[i].send_used[k];
        for (int k = 0; k < RECV_MODES; ++k)
            recv_used[k] += soaks[i].recv_used[k];
    }
    int all = 0, detached_size = 0;
    void *detached = NULL;
    MPI_Buffer_detach(&detached, &detached_size);
    free(bsend_buf);
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < threads; ++i)
        for (int k = threads > 1 ? 0 : 1; k < COMMS; ++k)
            MPI_Comm_free(&soaks[i].comms[k]);
    free_types();
    if (0 == wrank)
        printf("%s: p2p_soak (seed %llu, %d ranks, %d thread%s, %d messages, %d mismatches)\n",
               0 == all ? "PASS" : "FAIL", (unsigned long long)seed, wsize, threads,
               threads > 1 ? "s" : "", total_msgs, all);
    if (0 == wrank) { /* what the seed covered: every rank drew the same messages */
        printf("p2p_soak messages by mode:");
        for (int i = 0; i < SEND_MODES; ++i)
            printf(" %s %d", send_name[i], send_used[i]);
        for (int i = 0; i < RECV_MODES; ++i)
            printf(" %s %d", recv_name[i], recv_used[i]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
