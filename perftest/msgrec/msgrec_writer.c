/*
 * The recorder's output: per rank, rank<NNNNN>.dat (the payloads, back to back) and
 * rank<NNNNN>.idx (one line per payload, a summary line at the end); README.md has the format.
 * Settings come from the environment once, at the first call:
 *   MSGREC_DIR        output directory (default "msgrec"), created if missing
 *   MSGREC_MIN_BYTES  smallest payload recorded (default 4096)
 *   MSGREC_MAX_BYTES  payload bytes recorded per rank at most (default 64 MiB)
 *   MSGREC_SKIP       eligible payloads (>= MSGREC_MIN_BYTES) passed over first (default 0)
 *   MSGREC_EVERY      then one eligible payload in N is recorded (default 1)
 */
#include "msgrec.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct msgrec_state {
    int configured, enabled, finished;
    char dir[PATH_MAX];
    uint64_t min_bytes, max_bytes, skip, every;
    FILE *data, *index;
    uint64_t offset; /* bytes written to the data file so far */
    /* counts for the summary line */
    uint64_t eligible, recorded, small, small_bytes, over_limit, over_limit_bytes, unsampled;
    void *pack;
    size_t pack_cap;
} msgrec_state_t;

static msgrec_state_t state;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t calls;

static uint64_t env_u64(const char *name, uint64_t fallback, uint64_t min)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return fallback;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v < min) {
        fprintf(stderr, "msgrec: ignoring %s=%s (want an integer >= %" PRIu64 ")\n", name, s, min);
        return fallback;
    }
    return v;
}

/* mkdir -p: every rank creates the directory, so EEXIST is the usual answer. */
static int make_dirs(const char *path)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return -1;
    for (char *p = tmp + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static FILE *open_output(int rank, const char *suffix)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/rank%05d.%s", state.dir, rank, suffix);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "msgrec: cannot write %s: %s; not recording\n", path, strerror(errno));
    return f;
}

/* Reads the settings and opens this rank's files (MPI is initialised: a send is being made). */
static void configure(void)
{
    state.configured = 1;
    const char *dir = getenv("MSGREC_DIR");
    snprintf(state.dir, sizeof state.dir, "%s", dir && *dir ? dir : "msgrec");
    state.min_bytes = env_u64("MSGREC_MIN_BYTES", 4096, 1);
    state.max_bytes = env_u64("MSGREC_MAX_BYTES", 64u << 20, 0);
    state.skip = env_u64("MSGREC_SKIP", 0, 0);
    state.every = env_u64("MSGREC_EVERY", 1, 1);

    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (make_dirs(state.dir) != 0) {
        fprintf(stderr, "msgrec: cannot create %s: %s; not recording\n", state.dir,
                strerror(errno));
        return;
    }
    state.data = open_output(rank, "dat");
    state.index = open_output(rank, "idx");
    if (!state.data || !state.index) {
        if (state.data)
            fclose(state.data);
        if (state.index)
            fclose(state.index);
        state.data = state.index = NULL;
        return;
    }
    setvbuf(state.data, NULL, _IOFBF, 1 << 20);
    fprintf(state.index, "# msgrec index 1: call op elem bytes offset peer tag\n");
    state.enabled = 1;
}

uint64_t msgrec_next_call(void)
{
    return __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}

/* The rank of comm's `peer` in MPI_COMM_WORLD, which names the same process in every index. */
static int world_rank(MPI_Comm comm, int peer)
{
    if (peer < 0 || comm == MPI_COMM_WORLD)
        return peer;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    MPI_Group group, world;
    int out = peer;
    if (inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group))
        return peer;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    if (PMPI_Group_translate_ranks(group, 1, &peer, world, &out) != MPI_SUCCESS ||
        out == MPI_UNDEFINED)
        out = peer;
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return out;
}

/* The bytes MPI sends for count x type at buf: in place for a named type, else packed into the
 * state's scratch buffer. NULL if packing failed. */
static const void *payload(const void *buf, int count, MPI_Datatype type, uint64_t bytes)
{
    int combiner = MPI_COMBINER_NAMED, ni, na, nd;
    PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    if (combiner == MPI_COMBINER_NAMED)
        return buf;
    int cap = 0;
    if (PMPI_Pack_size(count, type, MPI_COMM_WORLD, &cap) != MPI_SUCCESS || (uint64_t)cap < bytes)
        return NULL;
    if ((size_t)cap > state.pack_cap) {
        void *p = realloc(state.pack, (size_t)cap);
        if (!p)
            return NULL;
        state.pack = p;
        state.pack_cap = (size_t)cap;
    }
    int position = 0;
    if (PMPI_Pack(buf, count, type, state.pack, cap, &position, MPI_COMM_WORLD) != MPI_SUCCESS ||
        (uint64_t)position != bytes)
        return NULL;
    return state.pack;
}

void msgrec_record(uint64_t call, const char *op, const void *buf, int count, MPI_Datatype type,
                   MPI_Comm comm, int peer, int tag)
{
    if (peer == MPI_PROC_NULL || count <= 0)
        return;
    int type_size = 0;
    if (PMPI_Type_size(type, &type_size) != MPI_SUCCESS || type_size <= 0)
        return;
    const uint64_t bytes = (uint64_t)count * (uint64_t)type_size;

    pthread_mutex_lock(&lock);
    if (!state.configured)
        configure();
    if (!state.enabled || state.finished)
        goto out;
    if (bytes < state.min_bytes) {
        ++state.small;
        state.small_bytes += bytes;
        goto out;
    }
    uint64_t n = state.eligible++;
    if (n < state.skip || (n - state.skip) % state.every != 0) {
        ++state.unsampled;
        goto out;
    }
    if (state.offset + bytes > state.max_bytes) {
        ++state.over_limit;
        state.over_limit_bytes += bytes;
        goto out;
    }
    const void *data = payload(buf, count, type, bytes);
    if (!data) {
        fprintf(stderr, "msgrec: cannot pack %" PRIu64 " bytes of call %" PRIu64 "; skipped\n",
                bytes, call);
        goto out;
    }
    if (fwrite(data, 1, bytes, state.data) != bytes) {
        fprintf(stderr, "msgrec: write failed (%s); recording stops\n", strerror(errno));
        state.enabled = 0;
        goto out;
    }
    fprintf(state.index, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 " %d %d\n", call, op,
            msgrec_elem_name(msgrec_classify(type)), bytes, state.offset, world_rank(comm, peer),
            tag);
    state.offset += bytes;
    ++state.recorded;
out:
    pthread_mutex_unlock(&lock);
}

void msgrec_finish(void)
{
    pthread_mutex_lock(&lock);
    if (state.enabled && !state.finished) {
        fprintf(state.index,
                "# end calls=%" PRIu64 " recorded=%" PRIu64 " recorded_bytes=%" PRIu64
                " small=%" PRIu64 " small_bytes=%" PRIu64 " over_limit=%" PRIu64
                " over_limit_bytes=%" PRIu64 " unsampled=%" PRIu64 "\n",
                __atomic_load_n(&calls, __ATOMIC_RELAXED), state.recorded, state.offset,
                state.small, state.small_bytes, state.over_limit, state.over_limit_bytes,
                state.unsampled);
        if (fclose(state.data) != 0 || fclose(state.index) != 0)
            fprintf(stderr, "msgrec: closing the output failed: %s\n", strerror(errno));
        state.data = state.index = NULL;
    }
    state.finished = 1;
    free(state.pack);
    state.pack = NULL;
    state.pack_cap = 0;
    pthread_mutex_unlock(&lock);
}

/* An application that never calls MPI_Finalize (or exits from a Fortran STOP after it) still
 * gets complete files. */
__attribute__((destructor)) static void finish_at_exit(void)
{
    msgrec_finish();
}
