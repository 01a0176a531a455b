/* zipbench: latency sweeps of MPI collectives (blocking and non-blocking) over message sizes and
 * data sets, for comparing Open MPI with and without the zip coll component, and of rank 0 -> 1
 * point-to-point transfers (pingpong, bandwidth) for the zip pml (when --ops lists only those,
 * zip rows describe pml/zip: its threshold, codec and --require-zip check).
 *
 * Whether zip is on, and which tuned algorithm is forced, is decided by the MCA parameters of
 * the job; --mode only labels the rows (perftest/zipsweep runs the modes in alternation and
 * merges them). --ab instead compares inside one job: stock Open MPI on duplicates made with
 * the MPI_Info key zip_coll=false, coll/zip on a plain one, interleaved (zipbench_ab.h).
 * "bytes" is the size of the buffer each rank passes: the broadcast buffer, the alltoallv send
 * buffer (split over all peers), the average gatherv contribution. The overlap
 * benchmark (ops named <collective>+compute) adds a fixed computation to each call: after a
 * blocking one, between a non-blocking one and its MPI_Wait (with MPI_Test now and then), so
 * that the two forms can be compared at equal work. latency_us
 * is the median over repetitions of the slowest rank's time; for bandwidth, which streams a window
 * of messages, that time divided by the window (time per message: MB/s = bytes / latency_us).
 * Every repetition sends the same data unless --evolve advances them a step between two
 * (zb_evolve, untimed): what temporal coding, which codes a message against the previous one of
 * its stream, must be measured on. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include <link.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zipbench_ab.h"
#include "zipbench_data.h"
#include "zipbench_ops.h"
#include "zipbench_ratio.h"
#include "zipbench_timing.h"
#include "zipbench_zipstats.h"

typedef struct options {
    char ops[1024], datasets[512], sizes[1024];
    const char *mode, *link, *csv, *codec;
    long min_bytes, max_bytes, step;
    int require_zip, ab, ab_blocks, evolve;
    double compute_us, test_every_us;
    long compute_iters;
    zb_timing_opts t;
} options;

static void usage(void)
{
    printf(
        "usage: zipbench [options]\n"
        "  --ops LIST        default bcast,alltoallv,gatherv; any of\n"
        "    %s\n"
        "                    ((all)reduce: MPI_SUM of doubles; i-names: the non-blocking\n"
        "                    call + MPI_Wait; pingpong,\n"
        "                    bandwidth: rank 0 -> 1; bandwidth reports the time per message of\n"
        "                    a window streamed at once)\n"
        "                    OP+compute (a collective): the overlap benchmark, the call and a\n"
        "                    computation (blocking OP: after it; non-blocking: between the call\n"
        "                    and MPI_Wait, calling MPI_Test now and then); compute: alone\n"
        "  --compute-us US   the computation's length, calibrated at start (default 1000)\n"
        "  --compute-iters N its length in kernel iterations instead (the header prints the\n"
        "                    calibrated N: pass it to the other jobs of a comparison so that\n"
        "                    every job does the same work)\n"
        "  --test-every-us US   MPI_Test about every US of computation (default 100)\n"
        "  --datasets LIST   %s (default all);\n"
        "                    corpus:DIR: the double messages perftest/msgrec recorded in DIR\n"
        "                    (rows say corpus-<last part of DIR>)\n"
        "  --min B --max B --step F   sizes from B to B bytes, times F\n"
        "                    (default 1024..16777216, x2)\n"
        "  --sizes LIST      explicit sizes in bytes (overrides --min/--max/--step)\n"
        "  --mode LABEL      row label: default, tuned-bcast-6, zip, ... (default: default)\n"
        "  --ab              zip against stock Open MPI inside this job (collectives only):\n"
        "                    rows default, zip and default-again (instead of --mode) from\n"
        "                    three duplicates of MPI_COMM_WORLD, the two defaults made with\n"
        "                    the MPI_Info key zip_coll=false, timed interleaved in blocks;\n"
        "                    coll/zip runs as the job's MCA parameters say, and must take\n"
        "                    the calls of the zip duplicate only (checked per point)\n"
        "  --ab-blocks N     --ab: at least N blocks of 1-3 repetitions per communicator\n"
        "                    and point (default 18, made a multiple of 6); --budget is the\n"
        "                    timed seconds per communicator\n"
        "  --link LABEL      network label (default $NETEMU_LINK or 'local')\n"
        "  --csv FILE        append rows op,dataset,ranks,link,bytes,mode,latency_us,ratio\n"
        "  --codec SPEC      zip rows report the ratio zip's counters measured (MPI_T pvars\n"
        "                    coll_zip_<op>_bytes_in/out, all ranks); without them, an\n"
        "                    estimate: codec SPEC (default: the component's) on one message\n"
        "                    (bcast buffer, alltoallv block, gatherv contribution), 1 below\n"
        "                    coll_zip_threshold\n"
        "  --require-zip     fail unless the zip coll component is loaded (pml/zip loaded\n"
        "                    and enabled when --ops lists only pingpong,bandwidth)\n"
        "  --budget S --rse X --warmup N --min-reps N --max-reps N   stopping rule\n"
        "                    (default 1.0 s, 0.02, 2, 5, 1000)\n"
        "  --batch K|auto    time K back-to-back calls per repetition and report the time\n"
        "                    per call (default 1; auto: 256 KiB / bytes, 1 to 16); the last\n"
        "                    call of each batch is verified.\n"
        "                    Over netemu, small points need it: between repetitions the\n"
        "                    link's token bucket refills and lets the next call through\n"
        "                    at veth speed\n"
        "  --evolve          the data change between repetitions as a time-stepping code's\n"
        "                    do (for temporal coding: pml_zip_temporal,\n"
        "                    coll_zip_alltoallv_temporal): before each repetition but the\n"
        "                    first, untimed and alike on every rank, heat takes one more\n"
        "                    step of its heat equation, the other sets have 1/%d of their\n"
        "                    elements scaled by 1 + d, |d| < 1e-3 (at places drawn anew each\n"
        "                    step); results are verified against the evolved data. Needs\n"
        "                    --batch 1 (auto is 1), not with --ab\n",
        zb_op_names, zb_dataset_names, ZB_EVOLVE_EVERY);
}

static int parse(int argc, char **argv, options *o)
{
    const char *env_link = getenv("NETEMU_LINK");
    *o = (options){.mode = "default",
                   .link = env_link ? env_link : "local",
                   .min_bytes = 1024,
                   .max_bytes = 16 << 20,
                   .step = 2,
                   .compute_us = 1000,
                   .test_every_us = 100,
                   .ab_blocks = 18,
                   .t = {.warmup = 2,
                         .min_reps = 5,
                         .max_reps = 1000,
                         .rse = 0.02,
                         .budget_s = 1.0,
                         .batch = 1}};
    snprintf(o->ops, sizeof o->ops, "bcast,alltoallv,gatherv");
    snprintf(o->datasets, sizeof o->datasets, "%s", zb_dataset_names);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && v && ++i)
/* A list longer than its buffer is refused, not cut: a cut name would be run as another. */
#define LIST(field) ((size_t)snprintf(o->field, sizeof o->field, "%s", v) < sizeof o->field)
        if (ARG("--ops")) {
            if (!LIST(ops))
                return -1;
        } else if (ARG("--datasets")) {
            if (!LIST(datasets))
                return -1;
        } else if (ARG("--sizes")) {
            if (!LIST(sizes))
                return -1;
        } else if (ARG("--min"))
            o->min_bytes = atol(v);
        else if (ARG("--max"))
            o->max_bytes = atol(v);
        else if (ARG("--step"))
            o->step = atol(v);
        else if (ARG("--mode"))
            o->mode = v;
        else if (ARG("--link"))
            o->link = v;
        else if (ARG("--csv"))
            o->csv = v;
        else if (ARG("--codec"))
            o->codec = v;
        else if (ARG("--compute-us"))
            o->compute_us = atof(v);
        else if (ARG("--compute-iters"))
            o->compute_iters = atol(v);
        else if (ARG("--test-every-us"))
            o->test_every_us = atof(v);
        else if (ARG("--budget"))
            o->t.budget_s = atof(v);
        else if (ARG("--rse"))
            o->t.rse = atof(v);
        else if (ARG("--batch"))
            o->t.batch = strcmp(v, "auto") ? atoi(v) : 0;
        else if (ARG("--warmup"))
            o->t.warmup = atoi(v);
        else if (ARG("--min-reps"))
            o->t.min_reps = atoi(v);
        else if (ARG("--max-reps"))
            o->t.max_reps = atoi(v);
        else if (ARG("--ab-blocks"))
            o->ab_blocks = atoi(v);
        else if (!strcmp(a, "--require-zip"))
            o->require_zip = 1;
        else if (!strcmp(a, "--ab"))
            o->ab = 1;
        else if (!strcmp(a, "--evolve"))
            o->evolve = 1;
        else
            return -1;
#undef LIST
#undef ARG
    }
    if (o->min_bytes < 8 || o->max_bytes < o->min_bytes || o->step < 2 || o->t.min_reps < 1 ||
        o->t.max_reps < o->t.min_reps || o->t.batch < 0 || !(o->compute_us > 0) ||
        o->compute_iters < 0 || !(o->test_every_us > 0) || o->ab_blocks < 1 ||
        (o->evolve && (o->ab || o->t.batch > 1)))
        return -1;
    return 0;
}

/* Reads an MCA variable through MPI_T into buf (len bytes; a string is cut to len - 1 characters
 * and terminated); returns 0 when it exists. MPI_T reports a string's count as its buffer size
 * (2048 in Open MPI), so the value goes through a buffer of that size first. */
static int read_cvar(const char *name, void *buf, int len, int is_string)
{
    int provided, idx, count, rc = -1;
    MPI_T_cvar_handle h;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    if (MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
        size_t cap = (size_t)count * 8 + (size_t)len; /* 8: the widest scalar element */
        char *tmp = calloc(1, cap);
        if (tmp && MPI_T_cvar_read(h, tmp) == MPI_SUCCESS) {
            memcpy(buf, tmp, (size_t)len);
            if (is_string)
                ((char *)buf)[len - 1] = 0;
            rc = 0;
        }
        free(tmp);
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
    return rc;
}

/* Name of zip's MCA variable `var` for the component that handles the ops: "coll_zip_<var>" or
 * "pml_zip_<var>". */
static const char *zip_var(int p2p, const char *var)
{
    static char name[64];
    snprintf(name, sizeof name, "%s_zip_%s", p2p ? "pml" : "coll", var);
    return name;
}

/* pml/zip's variables are gone from MPI_T after MPI_Init (the pml framework closes the component
 * once it has interposed), so for it the job's MCA settings, which mpirun passes as OMPI_MCA_*
 * environment variables, are what can be read. NULL if unset. */
static const char *pml_zip_env(const char *var)
{
    char name[80]; /* OMPI_MCA_ + zip_var's up to 63 characters */
    snprintf(name, sizeof name, "OMPI_MCA_%s", zip_var(1, var));
    return getenv(name);
}

static int is_coll_zip(struct dl_phdr_info *info, size_t len, void *unused)
{
    (void)len;
    (void)unused;
    return info->dlpi_name && strstr(info->dlpi_name, "mca_coll_zip.so") != NULL;
}

/* The coll zip component's .so is mapped once the coll framework opened it; if not, a "zip"
 * row would silently be the default (found without MPI_T, which must wait until after the
 * timing). For pml/zip: "zip" in the pml list and pml_zip_enable 1 (else it forwards
 * everything). */
static int zip_loaded(int p2p)
{
    if (p2p) {
        const char *pml = getenv("OMPI_MCA_pml"), *en = pml_zip_env("enable");
        return pml && strstr(pml, "zip") && en && atoi(en) == 1;
    }
    return dl_iterate_phdr(is_coll_zip, NULL) != 0;
}

/* Messages below the zip component's threshold travel raw. */
static size_t zip_threshold(int p2p)
{
    unsigned long long t = 0; /* MPI_T reads a size_t variable as unsigned long long */
    if (p2p)                  /* pml/zip's default threshold is 64 KiB */
        return pml_zip_env("threshold") ? strtoull(pml_zip_env("threshold"), NULL, 10) : 65536;
    return read_cvar(zip_var(p2p, "threshold"), &t, (int)sizeof t, 0) ? 0 : (size_t)t;
}

/* The codec spec the zip component runs with, so that the ratio column describes it. */
static void zip_codec_spec(int p2p, char *spec, size_t len)
{
    char codec[256] = "", lossy[256] = "";
    if (p2p) { /* a lossy stage is part of pml_zip_codec's spec */
        const char *c = pml_zip_env("codec");
        snprintf(spec, len, "%s", c && *c ? c : "fast");
        return;
    }
    if (read_cvar(zip_var(p2p, "codec"), codec, sizeof codec, 1) || !codec[0])
        snprintf(codec, sizeof codec, "fast");
    if (!read_cvar(zip_var(p2p, "lossy"), lossy, sizeof lossy, 1) && lossy[0] &&
        strcmp(lossy, "none"))
        snprintf(spec, len, "%s+%s", lossy, codec);
    else
        snprintf(spec, len, "%s", codec);
}

/* How many ops of the comma-separated list satisfy pred; *total: how many there are. */
static int ops_where(const char *ops, int (*pred)(const char *), int *total)
{
    char l[sizeof((options *)0)->ops], *save = NULL;
    int n = 0;
    snprintf(l, sizeof l, "%s", ops);
    *total = 0;
    for (char *t = strtok_r(l, ",", &save); t; t = strtok_r(NULL, ",", &save), ++*total)
        n += pred(t) != 0;
    return n;
}

static long next_size(const options *o, long cur, const char **cursor)
{
    if (o->sizes[0]) {
        if (!**cursor)
            return -1;
        char *end;
        long s = strtol(*cursor, &end, 10);
        *cursor = *end == ',' ? end + 1 : end;
        return s;
    }
    cur = cur < 0 ? o->min_bytes : cur * o->step;
    return cur <= o->max_bytes ? cur : -1;
}

/* Ends the job after an error that every rank met and rank 0 reported: the other ranks wait
 * before aborting, or their abort could kill rank 0 before its message reached mpirun (a test
 * of that message failed so under load). */
static void abort_job(int rank)
{
    if (rank)
        sleep(2);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* --evolve: the field F[0..n) of data set ds, advanced one step at each call of evolve_step
 * (zb_evolve), identically on every rank. */
typedef struct evolver {
    const char *ds;
    double *F;
    size_t n;
    unsigned long step;
    int rank;
} evolver;

static void evolve_step(void *ctx)
{
    evolver *e = ctx;
    char why[512] = "";
    if (zb_evolve(e->ds, e->F, e->n, ++e->step, why, sizeof why)) {
        if (!e->rank)
            fprintf(stderr, "zipbench: --evolve: data set '%s': %s\n", e->ds, why);
        abort_job(e->rank);
    }
}

/* Bytes all ranks handed to zip (traffic[0]) and sent after compression (traffic[1]) over a
 * few untimed runs of `op`, from zip's MPI_T counters; the same data gives the same frames, so
 * this is the ratio of the timed runs. With ev (--evolve, op's field) the data advance before
 * every run, and 9 uncounted runs go first: the stream's last message is another point's
 * (coll/zip's streams are per peer, not per size), the temporal choice then goes plain and
 * samples again after 8 calls, so that the 8 counted runs are coded as the timed ones were.
 * Collective; 0 when every rank could read the counters. */
static int measured_ratio(zb_op *op, const char *name, evolver *ev, zb_zipstats *stats,
                          double traffic[3])
{
    const int RUNS = ev ? 8 : 2;
    for (int i = 0; ev && i < 9; i++) {
        if (i)
            evolve_step(ev);
        zb_op_prepare(op, 0);
        zb_op_run(op, 0);
    }
    unsigned long long in0 = 0, out0 = 0, on0 = 0, in1 = 0, out1 = 0, on1 = 0;
    char row[32];
    zb_op_stats_name(name, row, sizeof row);
    int ok = stats && !zb_zipstats_read(stats, row, &in0, &out0, &on0);
    for (int i = 0; i < RUNS; i++) {
        if (ev)
            evolve_step(ev);
        zb_op_prepare(op, 0);
        zb_op_run(op, 0);
    }
    ok = ok && !zb_zipstats_read(stats, row, &in1, &out1, &on1);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t[4] = {ok, (double)(in1 - in0), (double)(out1 - out0), (double)(on1 - on0)};
    MPI_Allreduce(MPI_IN_PLACE, t, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    traffic[0] = t[1];
    traffic[1] = t[2];
    traffic[2] = t[3];
    return t[0] == size ? 0 : -1;
}

/* One measured point, kept until the ratio pass that follows all timing. With --ab a point
 * is three, one per mode, in ZB_AB_* order (ab: the index; -1 without --ab). */
typedef struct point {
    char op[32], ds[512];
    long bytes;
    const char *mode;
    int ab;
    zb_timing r;
} point;

/* Field data of data set `ds` for messages of `bytes`; aborts the job on an unknown name or an
 * unreadable corpus. */
static double *field(const char *ds, long bytes, int rank)
{
    size_t n = (size_t)bytes / sizeof(double);
    double *F = malloc((n ? n : 1) * sizeof *F);
    char why[512] = "out of memory";
    if (!F || zb_fill(ds, F, n, why, sizeof why)) {
        if (!rank)
            fprintf(stderr, "zipbench: data set '%s': %s\n", ds, why);
        abort_job(rank);
    }
    return F;
}

/* F[0..bytes / 8) filled anew with data set ds, as field made it. */
static void refill(const char *ds, double *F, long bytes, int rank)
{
    char why[512] = "";
    if (zb_fill(ds, F, (size_t)bytes / sizeof *F, why, sizeof why)) {
        if (!rank)
            fprintf(stderr, "zipbench: data set '%s': %s\n", ds, why);
        abort_job(rank);
    }
}

/* The overlap benchmark's computation, set up by main before any timing. */
static zb_compute compute;

static zb_op *create_op(const char *name, const double *F, long bytes, int rank, MPI_Comm comm)
{
    zb_op *op = zb_op_create(name, F, (size_t)bytes / sizeof(double), &compute, comm);
    if (!op) {
        if (!rank)
            fprintf(stderr, "zipbench: unknown operation '%s'\n", name);
        abort_job(rank);
    }
    return op;
}

/* Ping-pongs 256 KiB and 1 MiB, three times each, with partners rank^1 and rank^h (h about half
 * the ranks), before any timing: what coll/zip's speed probe does at its first call. Open MPI's
 * shared-memory transport runs later transfers at a speed that depends on such history (on 2
 * ranks a 64 KiB gatherv took 13-14 us after the probe, 20-21 us without), so every job, with zip
 * or without, starts from the same state. */
static void warm_transport(int rank, int size)
{
    /* On a communicator pml/zip leaves alone (the Info key zip_p2p; stock ignores it), so that
     * these zeros do not count in its statistics, observe's predicted saving included. */
    MPI_Info info;
    MPI_Comm comm;
    MPI_Info_create(&info);
    MPI_Info_set(info, "zip_p2p", "false");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    int h = 1;
    while (2 * h <= size / 2)
        h *= 2;
    const int partners[2] = {rank ^ 1, h > 1 ? rank ^ h : -1};
    char *buf = calloc(1, 1 << 20);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < 2; i++) {
        const int p = partners[i];
        for (int bytes = 256 << 10; p >= 0 && p < size && bytes <= 1 << 20; bytes *= 4)
            for (int k = 0; k < 3; k++) {
                if (rank < p) {
                    MPI_Send(buf, bytes, MPI_BYTE, p, 77, comm);
                    MPI_Recv(buf, bytes, MPI_BYTE, p, 77, comm, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, bytes, MPI_BYTE, p, 77, comm, MPI_STATUS_IGNORE);
                    MPI_Send(buf, bytes, MPI_BYTE, p, 77, comm);
                }
            }
    }
    free(buf);
    MPI_Comm_free(&comm);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A new point at the end of *pts (*n of *cap used). */
static point *new_point(point **pts, int *n, int *cap)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *pts = realloc(*pts, (size_t)*cap * sizeof **pts);
        if (!*pts)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return &(*pts)[(*n)++];
}

/* Times every (data set, size, op) point, with --ab on each of the communicators ab (else
 * NULL: MPI_COMM_WORLD). Nothing here touches MPI_T: an MPI_T session, or even
 * MPI_T_init_thread/finalize before the timing, slows Open MPI's small collectives measurably
 * (4 ranks over netemu: about +10 us on 25-50 us for alltoallv and gatherv). */
static point *time_points(const options *o, int rank, MPI_Comm *ab, int *npoints)
{
    point *pts = NULL;
    int n = 0, cap = 0;
    const int modes = ab ? ZB_AB_COMMS : 1;
    char dsl[sizeof o->datasets], *dsave = NULL;
    snprintf(dsl, sizeof dsl, "%s", o->datasets);
    for (char *ds = strtok_r(dsl, ",", &dsave); ds; ds = strtok_r(NULL, ",", &dsave)) {
        const char *cursor = o->sizes;
        for (long bytes = next_size(o, -1, &cursor); bytes > 0;
             bytes = next_size(o, bytes, &cursor)) {
            double *F = field(ds, bytes, rank), *first = F;
            char opl[sizeof o->ops], *osave = NULL;
            snprintf(opl, sizeof opl, "%s", o->ops);
            for (char *name = strtok_r(opl, ",", &osave); name;
                 name = strtok_r(NULL, ",", &osave)) {
                zb_op *ops[ZB_AB_COMMS];
                zb_timing r[ZB_AB_COMMS];
                if (o->evolve && F != first) /* every op from the data set's first step */
                    refill(ds, F, bytes, rank);
                first = NULL;
                for (int c = 0; c < modes; c++)
                    ops[c] = create_op(name, F, bytes, rank, ab ? ab[c] : MPI_COMM_WORLD);
                zb_timing_opts t = o->t;
                if (t.batch == 0) /* auto: about 256 KiB per repetition, as the bucket needs */
                    t.batch = bytes >= 262144 ? 1 : bytes <= 16384 ? 16 : (int)(262144 / bytes);
                evolver ev = {ds, F, (size_t)bytes / sizeof *F, 0, rank};
                if (o->evolve) {
                    t.batch = 1;
                    t.evolve = evolve_step;
                    t.evolve_ctx = &ev;
                }
                if (ab)
                    zb_ab_measure(ops, &t, o->ab_blocks, MPI_COMM_WORLD, r);
                else
                    r[0] = zb_measure(ops[0], &t, MPI_COMM_WORLD);
                for (int c = 0; c < modes; c++) {
                    point *pt = new_point(&pts, &n, &cap);
                    snprintf(pt->op, sizeof pt->op, "%s", name);
                    snprintf(pt->ds, sizeof pt->ds, "%s", ds);
                    pt->bytes = bytes;
                    pt->mode = ab ? zb_ab_modes[c] : o->mode;
                    pt->ab = ab ? c : -1;
                    pt->r = r[c];
                    /* Per message, so bandwidth rows read like the others (bytes / time =
                     * rate). */
                    const int msgs = zb_op_messages(ops[c]);
                    pt->r.median_us /= msgs;
                    pt->r.mean_us /= msgs;
                    pt->r.stderr_us /= msgs;
                    pt->r.min_us /= msgs;
                    zb_op_destroy(ops[c]);
                }
            }
            free(F);
        }
    }
    *npoints = n;
    return pts;
}

/* The ratio column of a zip row: zip's counters over untimed runs when it has them, else the
 * codec's ratio on one message (zip sends a frame only when it is smaller, nothing below the
 * threshold is compressed). Collective. */
/* Whether `op` is not yet in the list `told` (",a,b,", as long as zipbench's --ops), which it
 * then joins: a note per op rather than per point. */
static int first_time(char *told, const char *op)
{
    char needle[40];
    snprintf(needle, sizeof needle, ",%s,", op);
    if (strstr(told, needle))
        return 0;
    strncat(told, needle + 1, sizeof((options *)0)->ops + 1 - strlen(told));
    return 1;
}

static double point_ratio(const point *pt, const char *spec, size_t threshold, zb_zipstats *stats,
                          int evolve, int rank, MPI_Comm comm)
{
    const int use_pvars = stats != NULL;
    static char told[sizeof((options *)0)->ops + 2] = ","; /* ",op,op," told about */
    double *F = field(pt->ds, pt->bytes, rank);
    zb_op *op = create_op(pt->op, F, pt->bytes, rank, comm);
    const size_t msg = zb_op_message_bytes(op);
    double ratio = 1.0, traffic[3];
    evolver ev = {pt->ds, F, (size_t)pt->bytes / sizeof *F, 0, rank};
    if (use_pvars && measured_ratio(op, pt->op, evolve ? &ev : NULL, stats, traffic) == 0) {
        ratio = traffic[1] > 0 ? traffic[0] / traffic[1] : 1.0;
        /* Loaded is not selected: a component that declined the communicator would make this
         * row plain Open MPI under a zip label. */
        if (!rank && !strcmp(pt->op, "compute"))
            ; /* no communication, nothing for zip to count */
        else if (!rank && msg >= threshold && traffic[0] == 0 && traffic[2] > 0)
            fprintf(stderr,
                    "zipbench: %s %s %ld bytes: zip's policy handed the calls to the previous "
                    "component (link faster than the codec, or policy never)\n",
                    pt->op, pt->ds, pt->bytes);
        else if (!rank && msg >= threshold && traffic[0] == 0)
            fprintf(stderr,
                    "zipbench: WARNING: %s %s %ld bytes: zip's counters saw no bytes, the row is "
                    "probably not zip\n",
                    pt->op, pt->ds, pt->bytes);
    } else if (use_pvars && !rank && strcmp(pt->op, "compute") && first_time(told, pt->op)) {
        fprintf(stderr,
                "zipbench: %s: zip exports no counters for it (a build that does not take it): "
                "ratio 1\n",
                pt->op);
    } else if (!use_pvars && !rank && msg >= threshold && msg >= sizeof *F) {
        ratio = zb_ratio(spec, F, msg / sizeof *F);
        if (!(ratio > 1.0))
            ratio = 1.0;
    }
    zb_op_destroy(op);
    free(F);
    return ratio;
}

/* --ab: the check that coll/zip took the point's calls on the zip communicator only
 * (zb_ab_check), on the point's operation made anew on each of comms. Collective. */
static int ab_check(const point *pt, MPI_Comm *comms, zb_zipstats *stats, int rank)
{
    if (!strcmp(pt->op, "compute"))
        return 0; /* no communication */
    double *F = field(pt->ds, pt->bytes, rank);
    zb_op *ops[ZB_AB_COMMS];
    for (int c = 0; c < ZB_AB_COMMS; c++)
        ops[c] = create_op(pt->op, F, pt->bytes, rank, comms[c]);
    char row[32], label[600];
    zb_op_stats_name(pt->op, row, sizeof row);
    snprintf(label, sizeof label, "%s %s %ld", pt->op, pt->ds, pt->bytes);
    const int bad = zb_ab_check(ops, row, label, stats);
    for (int c = 0; c < ZB_AB_COMMS; c++)
        zb_op_destroy(ops[c]);
    free(F);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    options o;
    if (parse(argc, argv, &o)) {
        if (!rank)
            usage();
        MPI_Finalize();
        return 2;
    }
    int nops, p2p_ops = ops_where(o.ops, zb_op_name_p2p, &nops), p2p = p2p_ops == nops;
    if (o.ab && (p2p_ops || !zip_loaded(0))) {
        if (!rank)
            fprintf(stderr, "zipbench: --ab: %s\n",
                    p2p_ops ? "collectives only (pml/zip is process-wide: compare point-to-point "
                              "job by job)"
                            : "the zip coll component is not loaded (check "
                              "mca_base_component_path)");
        MPI_Finalize();
        return 4;
    }
    if (o.require_zip && !zip_loaded(p2p)) {
        if (!rank)
            fprintf(stderr,
                    "zipbench: --require-zip: the zip %s component is not loaded%s "
                    "(check mca_base_component_path)\n",
                    p2p ? "pml" : "coll", p2p ? " and enabled" : "");
        MPI_Finalize();
        return 4;
    }
    FILE *csv = NULL;
    if (!rank && o.csv) {
        csv = fopen(o.csv, "a");
        if (!csv) {
            perror(o.csv);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (ftell(csv) == 0)
            fprintf(csv, "op,dataset,ranks,link,bytes,mode,latency_us,ratio\n");
    }

    warm_transport(rank, size);
    if (ops_where(o.ops, zb_op_name_compute, &nops)) {
        /* Calibrated at the computation's length (the rate changes with it where ranks share
         * cores); MPI_Test's interval from the same rate. */
        compute.iters =
            o.compute_iters ? o.compute_iters : zb_compute_iters_for(o.compute_us, MPI_COMM_WORLD);
        const double per_us =
            o.compute_iters
                ? (double)zb_compute_iters_for(o.compute_us, MPI_COMM_WORLD) / o.compute_us
                : (double)compute.iters / o.compute_us;
        compute.test_every = (long)(o.test_every_us * per_us + 0.5);
        if (compute.test_every < 1)
            compute.test_every = 1;
        if (!rank)
            printf("# compute iters=%ld test_every=%ld (about %.0f us, MPI_Test every %.0f us)\n",
                   compute.iters, compute.test_every, (double)compute.iters / per_us,
                   o.test_every_us);
    }
    MPI_Comm ab[ZB_AB_COMMS] = {MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
    if (o.ab)
        zb_ab_open(MPI_COMM_WORLD, ab);
    int npoints = 0;
    point *pts = time_points(&o, rank, o.ab ? ab : NULL, &npoints);

    /* From here on MPI_T may be used: zip's settings and counters. pml/zip has no MPI_T
     * counters: its rows carry the codec estimate. With --ab some rows are zip's. */
    const int is_zip = o.ab || !strncmp(o.mode, "zip", 3);
    char spec[600];
    const size_t threshold = is_zip ? zip_threshold(p2p) : 0;
    /* One MPI_T session for the whole pass: opening one takes 0.24 s on 4 ranks sharing 2 cores
     * (MPI_T_init_thread and 105 counter lookups), which per point was most of a verifying
     * job's time. */
    zb_zipstats *stats = is_zip && !p2p ? zb_zipstats_open() : NULL;
    const int use_pvars = stats != NULL;
    if (o.codec)
        snprintf(spec, sizeof spec, "%s", o.codec);
    else if (is_zip)
        zip_codec_spec(p2p, spec, sizeof spec);
    else
        snprintf(spec, sizeof spec, "fast");
    if (!rank) {
        printf("# zipbench ranks=%d link=%s mode=%s zip=%s codec=%s ratio=%s\n", size, o.link,
               o.ab ? "ab" : o.mode, p2p ? "pml" : "coll", is_zip ? spec : "-",
               !is_zip     ? "-"
               : use_pvars ? "measured(coll_zip pvars)"
                           : "codec-estimate");
        if (o.evolve)
            printf("# evolve: the data advance one step before each repetition (heat: its heat "
                   "equation; others: 1/%d of the elements perturbed)%s\n",
                   ZB_EVOLVE_EVERY,
                   is_zip && p2p ? "; the ratio column is one message's, coded on its own" : "");
        printf("%-18s %-14s %10s %-12s %12s %12s %9s %5s %7s\n", "op", "dataset", "bytes", "mode",
               "median_us", "mean_us", "stderr", "reps", "ratio");
    }
    long failures = 0;
    int ab_bad = 0; /* --ab: the check of the point's first row failed; its rows are skipped */
    for (int i = 0; i < npoints; i++) {
        const point *pt = &pts[i];
        if (pt->ab == ZB_AB_DEFAULT) {
            ab_bad = ab_check(pt, ab, stats, rank);
            failures += ab_bad;
        }
        const double ratio = !strncmp(pt->mode, "zip", 3)
                                 ? point_ratio(pt, spec, threshold, stats, o.evolve, rank,
                                               o.ab ? ab[ZB_AB_ZIP] : MPI_COMM_WORLD)
                                 : 1.0;
        if (rank || (pt->ab >= 0 && ab_bad))
            continue;
        const zb_timing *r = &pt->r;
        char ds[128];
        zb_dataset_label(pt->ds, ds, sizeof ds);
        if (r->bad_elements > 0) {
            /* A wrong result has no meaningful latency: report it, write no row. */
            fprintf(stderr,
                    "zipbench: VERIFY FAILED %s %s %ld bytes mode %s: %.0f wrong elements\n",
                    pt->op, ds, pt->bytes, pt->mode, r->bad_elements);
            failures++;
            continue;
        }
        printf("%-18s %-14s %10ld %-12s %12.1f %12.1f %9.1f %5d %7.3f\n", pt->op, ds, pt->bytes,
               pt->mode, r->median_us, r->mean_us, r->stderr_us, r->reps, ratio);
        if (csv)
            fprintf(csv, "%s,%s,%d,%s,%ld,%s,%.3f,%.4f\n", pt->op, ds, size, o.link, pt->bytes,
                    pt->mode, r->median_us, ratio);
    }
    fflush(stdout);
    free(pts);
    zb_zipstats_close(stats);
    if (o.ab)
        zb_ab_close(ab);
    if (csv)
        fclose(csv);
    MPI_Bcast(&failures, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 3 : 0;
}
